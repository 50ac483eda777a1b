//! Copy-mode transmit on real rings against the reference model
//! (ringlab_model::copy_tx), step for step.
//!
//! proptest-state-machine draws a configuration (two sockets, three or
//! four frames, tx rings of 2 or 4 and a completion ring of 2, design a or
//! b, batch 0 or 2, ring counters starting just below u32::MAX so they
//! wrap) and a sequence of the model's enabled actions; each is applied to
//! the model and to the simulator, whose projection onto the spec's
//! variables (`CopyTx::model_state`) must then equal the model's state.
//! The model's invariants are checked too: all of them in design b (where
//! the simulator's own checks must pass as well); in design a those its
//! positional publishing does not break by itself.
//!
//! A second machine draws multi-buffer configurations (design b, packets
//! of at most 2 or 3 descriptors, completion rings of 2 or 4): a dropped
//! packet's fragments completed and the consumer published only up to the
//! packet being built must agree with the model and keep every invariant;
//! 6.12.117's two choices are run too, and at the step where the model
//! first breaks an invariant the simulator's checks must name the same
//! one; the comparison ends there.
//!
//! Kills (`ringlab mutants`): xsk-immature-cq, xsk-txbusy-rollback,
//! xsk-cq-leak-2019, xsk-shared-cq-race, mb-send-partial (each makes the
//! rings leave the model).

use std::marker::PhantomData;

mod common;

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use ringlab_model::copy_tx::{Action, Config, Design, DropFrags, PublishFrags, State, INVARIANTS};
use ringlab_sim::copy_tx::{invariants, CopyTx, CopyTxConfig, Publish};

#[derive(Clone, Debug)]
struct Ref {
    sim: CopyTxConfig,
    state: State,
    /// Steps applied so far.
    steps: usize,
    /// The step at which the model broke an invariant, and which: with
    /// one of 6.12.117's multi-buffer choices, where that is expected and
    /// ends the comparison.
    broke: Option<(usize, &'static str)>,
}

impl Ref {
    fn new(sim: CopyTxConfig) -> Ref {
        let state = State::init(&sim.spec);
        Ref {
            sim,
            state,
            steps: 0,
            broke: None,
        }
    }

    fn cfg(&self) -> &Config {
        &self.sim.spec
    }

    /// One of 6.12.117's multi-buffer choices is on.
    fn finding(&self) -> bool {
        let c = self.cfg();
        c.multi_buf
            && (c.drop_frags, c.publish_frags) != (DropFrags::Complete, PublishFrags::Packet)
    }

    /// Whether the comparison ended at an earlier step.
    fn over(&self) -> bool {
        self.broke.is_some_and(|(at, _)| at < self.steps)
    }
}

/// The invariants the model must keep in this design: design a's
/// positional publishing breaks NoImmatureCompletion by itself, and with
/// it what a wrongly completed frame breaks next.
fn checked(design: Design) -> Vec<&'static str> {
    INVARIANTS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| {
            design == Design::B
                || !matches!(
                    *n,
                    "NoImmatureCompletion" | "NoDoubleCompletion" | "FrameConservation"
                )
        })
        .collect()
}

/// Ring counters start just below u32::MAX, or anywhere.
fn start() -> BoxedStrategy<u32> {
    prop_oneof![3 => (0u32..8).prop_map(|d| u32::MAX - d), 1 => any::<u32>()].boxed()
}

/// What a machine's runs are drawn from.
trait Shapes: Clone + std::fmt::Debug + 'static {
    fn init() -> BoxedStrategy<Ref>;
}

/// Single-buffer packets: design a or b, batch 0 or 2.
#[derive(Clone, Debug)]
struct Single;

impl Shapes for Single {
    fn init() -> BoxedStrategy<Ref> {
        let shape = prop_oneof![
            Just((Design::A, 0i64)),
            Just((Design::B, 0)),
            Just((Design::B, 2)),
        ];
        (
            shape,
            3usize..=4,
            prop_oneof![Just(2usize), Just(4)],
            start(),
            start(),
        )
            .prop_map(|((design, batch), frames, tx_size, tx_start, cq_start)| {
                let sim = CopyTxConfig::new(design, batch, 2, frames);
                sized(sim, tx_size, 2, tx_start, cq_start)
            })
            .boxed()
    }
}

/// The rings' sizes and start indices, a budget of 2, and the consumer
/// published at every step so the application's view matches the spec's.
fn sized(mut sim: CopyTxConfig, tx_size: usize, cq_size: usize, tx_start: u32, cq_start: u32) -> Ref {
    sim.spec.tx_size = tx_size;
    sim.spec.cq_size = cq_size;
    sim.spec.budget = 2;
    sim.tx_start = tx_start;
    sim.cq_start = cq_start;
    sim.publish = Publish::EachStep;
    Ref::new(sim)
}

/// Multi-buffer packets on design b, with the spec's two choices: half
/// the runs with the ones that pass, the rest with one of 6.12.117's.
#[derive(Clone, Debug)]
struct Multi;

impl Shapes for Multi {
    fn init() -> BoxedStrategy<Ref> {
        let choice = prop_oneof![
            2 => Just((DropFrags::Complete, PublishFrags::Packet)),
            1 => Just((DropFrags::Cancel, PublishFrags::Packet)),
            1 => Just((DropFrags::Complete, PublishFrags::All)),
        ];
        (
            choice,
            2i64..=3,
            3usize..=4,
            prop_oneof![Just(2usize), Just(4)],
            prop_oneof![Just(2usize), Just(4)],
            start(),
            start(),
        )
            .prop_map(
                |((drop, publish), max_frags, frames, tx_size, cq_size, tx_start, cq_start)| {
                    let sim = CopyTxConfig::new(Design::B, 0, 2, frames)
                        .multi_buf(max_frags, drop, publish);
                    sized(sim, tx_size, cq_size, tx_start, cq_start)
                },
            )
            .boxed()
    }
}

#[derive(Clone, Debug)]
struct RefMachine<S>(PhantomData<S>);

impl<S: Shapes> ReferenceStateMachine for RefMachine<S> {
    type State = Ref;
    type Transition = Action;

    fn init_state() -> BoxedStrategy<Ref> {
        S::init()
    }

    fn transitions(r: &Ref) -> BoxedStrategy<Action> {
        if r.broke.is_some() {
            // The comparison is over; what follows is not applied.
            return Just(Action::UserReap).boxed();
        }
        let enabled: Vec<Action> = r
            .state
            .successors(r.cfg())
            .into_iter()
            .map(|(a, _)| a)
            .filter(|a| Self::preconditions(r, a))
            .collect();
        assert!(!enabled.is_empty(), "the model deadlocked in {:?}", r.state);
        proptest::sample::select(enabled).boxed()
    }

    /// The model's enabled actions, but for submits the rings cannot
    /// follow: into a slot a real ring still lends to the kernel (the
    /// spec's tx[s] drops a batch's descriptors when they are taken, a real
    /// ring only once they can no longer be cancelled back; with
    /// PublishFrags "all" the spec's application may reuse the slots of the
    /// fragments of the packet being built at once, a real one only once a
    /// refresh has published past them), and, in design a, of a frame
    /// completed early and still held elsewhere (the spec's flight is a
    /// set, in which two skbs of one frame are one).
    fn preconditions(r: &Ref, a: &Action) -> bool {
        if r.broke.is_some() {
            return true;
        }
        if let Action::UserSubmit { s, f, .. } = *a {
            let s = s as usize;
            let lent = if r.state.pubd[s] {
                0
            } else {
                r.state.part[s].len()
            };
            if r.state.tx[s].len() + r.state.call[s].batch.len() + lent >= r.cfg().tx_size {
                return false;
            }
            if r.state.held(r.cfg(), f) != 1 {
                return false;
            }
        }
        r.state.step(r.cfg(), a).is_some()
    }

    fn apply(mut r: Ref, a: &Action) -> Ref {
        r.steps += 1;
        if r.broke.is_some() {
            return r;
        }
        r.state = r.state.step(r.cfg(), a).expect("precondition checked");
        if r.finding() {
            if let Some(name) = r.state.violated(r.cfg()) {
                r.broke = Some((r.steps, name));
            }
        }
        r
    }
}

struct Sut<S>(CopyTx, PhantomData<S>);

/// The step at which the model broke `name`: the simulator's checks must
/// name it too, and its state must be the model's but where a rollback
/// over a published consumer rereads slots the application refilled.
fn broken_alike(sys: &CopyTx, r: &Ref, a: &Action, name: &str) {
    let v = invariants::check(sys)
        .err()
        .unwrap_or_else(|| panic!("after {a}: the model broke {name}, the simulator nothing"));
    assert_eq!(v.invariant, Some(name), "after {a}: {v}");
    let mut got = sys.model_state();
    let size = r.cfg().tx_size;
    for (s, want) in r.state.tx.iter().enumerate() {
        let len = want.len();
        if len <= size {
            continue;
        }
        // The rolled-back view is `len` entries of a ring of `size`: its
        // last `size` are the ring's, each earlier one reads the slot the
        // application refilled `size` entries later.
        assert_eq!(name, "TxConsumerMonotone", "after {a}: tx[{s}] overflows");
        assert_eq!(got.tx[s].len(), len, "after {a}: tx[{s}]");
        for i in 0..len - size {
            assert_eq!(got.tx[s][i], want[i + size], "after {a}: tx[{s}][{i}]");
        }
        assert_eq!(
            got.tx[s][len - size..],
            want[len - size..],
            "after {a}: tx[{s}]"
        );
        got.tx[s] = want.clone();
    }
    assert_eq!(
        got, r.state,
        "after {a}: the rings (left) left the model (right)"
    );
}

impl<S: Shapes> StateMachineTest for Sut<S> {
    type SystemUnderTest = Sut<S>;
    type Reference = RefMachine<S>;

    fn init_test(r: &Ref) -> Sut<S> {
        let sys = CopyTx::new(r.sim.clone()).expect("a valid config");
        assert_eq!(sys.model_state(), r.state, "Init differs");
        Sut(sys, PhantomData)
    }

    fn apply(mut sut: Sut<S>, r: &Ref, a: Action) -> Sut<S> {
        if r.over() {
            return sut;
        }
        if let Err(d) = sut.0.step(&a) {
            panic!("{a}: the model took it, the simulator says {d}");
        }
        if let Some((_, name)) = r.broke {
            broken_alike(&sut.0, r, &a, name);
            return sut;
        }
        let got = sut.0.model_state();
        assert_eq!(
            got, r.state,
            "after {a}: the rings (left) left the model (right)"
        );
        for (name, holds) in INVARIANTS {
            if checked(r.cfg().design).contains(&name) {
                assert!(
                    holds(&r.state, r.cfg()),
                    "after {a}: the model broke {name}"
                );
            }
        }
        if r.cfg().design == Design::B {
            if let Err(v) = invariants::check(&sut.0) {
                panic!("after {a}: the model keeps every invariant, the simulator breaks {v}");
            }
        }
        sut
    }
}

prop_state_machine! {
    #![proptest_config(common::prop_config("copytx_vs_model", 512))]
    #[test]
    fn rings_follow_the_model(sequential 1..120 => Sut<Single>);

    #[test]
    fn multi_buffer_rings_follow_the_model(sequential 1..120 => Sut<Multi>);
}

/// The generator reaches what the comparison is for: every driver outcome,
/// failed allocations, partial batches, invalid descriptors completed,
/// skbs freed out of order, and completion counters crossing u32::MAX.
#[test]
fn generated_runs_reach_the_interesting_steps() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;
    let mut runner = TestRunner::deterministic();
    let strategy = RefMachine::<Single>::sequential_strategy(1..120);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..256 {
        let (init, transitions, _) = strategy.new_tree(&mut runner).expect("a run").current();
        let mut r = init;
        let mut wrapped = false;
        let mut sys = CopyTx::new(r.sim.clone()).unwrap();
        for a in &transitions {
            let key = match a {
                Action::XmitSend { o, .. } | Action::XmitBatchSend { o, .. } => {
                    format!("{}({})", a.name(), o.id())
                }
                Action::XmitBatchAlloc { j, .. } if r.state.call.iter().any(|c| c.pend > *j) => {
                    "partial batch".into()
                }
                Action::DriverFree { f, .. }
                    if r.state.flight.iter().next().map(|k| k.addrs[0]) != Some(*f) =>
                {
                    "out of order".into()
                }
                _ => a.name().into(),
            };
            *seen.entry(key).or_default() += 1;
            let invalid = r.state.tx.iter().flatten().filter(|d| !d.ok).count();
            r = RefMachine::<Single>::apply(r, a);
            if r.state.tx.iter().flatten().filter(|d| !d.ok).count() < invalid {
                *seen.entry("invalid completed".into()).or_default() += 1;
            }
            sys.step(a).unwrap();
            wrapped |= sys.pool.cq.peek(|p| p.cached_prod() < 8);
        }
        if wrapped {
            *seen.entry("cq wrapped".into()).or_default() += 1;
        }
    }
    for want in [
        "XmitSend(sent)",
        "XmitSend(busy)",
        "XmitSend(drop)",
        "XmitBatchSend(busy)",
        "XmitBatchSend(drop)",
        "XmitAllocFail",
        "XmitBatchAllocFail",
        "partial batch",
        "out of order",
        "invalid completed",
        "cq wrapped",
    ] {
        assert!(
            seen.get(want).copied().unwrap_or(0) > 5,
            "{want} is rare: {seen:?}"
        );
    }
}

/// The multi-buffer runs reach what they are for: fragments built,
/// packets of several descriptors sent, dropped for one descriptor too
/// many or an invalid one among them, the rest of a dropped packet
/// drained, a whole packet rolled back on NETDEV_TX_BUSY; and the
/// cancelled fragments of 6.12.117 break FrameConservation, the simulator
/// with them. (A rollback over a published consumer takes a longer
/// sequence than random runs find often: the scripted tests below.)
#[test]
fn multi_buffer_runs_reach_the_interesting_steps() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;
    let mut runner = TestRunner::deterministic();
    let strategy = RefMachine::<Multi>::sequential_strategy(1..120);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..512 {
        let (init, transitions, _) = strategy.new_tree(&mut runner).expect("a run").current();
        let mut r = init;
        let mut sut = Sut::<Multi>::init_test(&r);
        for a in &transitions {
            let before = r.state.clone();
            r = RefMachine::<Multi>::apply(r, a);
            sut = Sut::<Multi>::apply(sut, &r, *a);
            if r.over() {
                break;
            }
            let t = &r.state;
            let mut see = |what: &str| *seen.entry(what.into()).or_default() += 1;
            let Some(s) = ringlab_sim::copy_tx::sock_of(a) else {
                continue;
            };
            if t.part[s].len() > before.part[s].len() {
                see("fragment built");
            }
            if t.flight.len() > before.flight.len() && t.flight.iter().any(|k| k.addrs.len() > 1) {
                see("packet sent whole");
            }
            if t.drain[s] && !before.drain[s] && !before.part[s].is_empty() {
                see("packet dropped");
            }
            if before.drain[s] && t.tx[s].len() < before.tx[s].len() {
                see("drained");
            }
            if !before.part[s].is_empty()
                && t.part[s].is_empty()
                && t.tx[s].len() > before.tx[s].len()
            {
                see("packet rolled back");
            }
            if let Some((_, name)) = r.broke {
                see(name);
            }
        }
    }
    eprintln!("{seen:?}");
    for want in [
        "fragment built",
        "packet sent whole",
        "packet dropped",
        "drained",
        "packet rolled back",
        "FrameConservation",
    ] {
        assert!(
            seen.get(want).copied().unwrap_or(0) > 5,
            "{want} is rare: {seen:?}"
        );
    }
}

/// The model's and the simulator's states after each of `steps`, from a
/// multi-buffer configuration with 6.12.117's choice `drop`/`publish`;
/// the last step must break `name` in both.
fn scripted(drop: DropFrags, publish: PublishFrags, steps: &[Action], name: &str) {
    scripted_on(2, 2, 2, drop, publish, steps, name)
}

/// As [`scripted`], with packets of up to `max_frags` descriptors on tx
/// rings of `tx_size` and a completion ring of `cq_size`.
fn scripted_on(
    max_frags: i64,
    tx_size: usize,
    cq_size: usize,
    drop: DropFrags,
    publish: PublishFrags,
    steps: &[Action],
    name: &str,
) {
    let mut sim = CopyTxConfig::new(Design::B, 0, 2, 3).multi_buf(max_frags, drop, publish);
    sim.spec.tx_size = tx_size;
    sim.spec.cq_size = cq_size;
    sim.publish = Publish::EachStep;
    let mut r = Ref::new(sim);
    let mut sut = Sut::<Multi>::init_test(&r);
    for a in steps {
        assert!(r.broke.is_none(), "broke before {a}: {:?}", r.broke);
        assert!(
            RefMachine::<Multi>::preconditions(&r, a),
            "{a} is not enabled"
        );
        r = RefMachine::<Multi>::apply(r, a);
        sut = Sut::<Multi>::apply(sut, &r, *a);
    }
    assert_eq!(r.broke.map(|(_, n)| n), Some(name));
}

/// 6.12.117's refresh publishes the consumer past f0's fragment; the
/// application refills its slot; NETDEV_TX_BUSY on the packet's last
/// descriptor takes `cached_cons` back over it, and the rolled-back ring
/// reads f2 where the fragment was.
#[test]
fn a_rollback_over_a_published_consumer_rereads_refilled_slots() {
    use Action::*;
    let s = 0;
    let submit = |f, contd| UserSubmit {
        s,
        f,
        ok: true,
        contd,
    };
    let send = |o| XmitSend { s, o };
    scripted(
        DropFrags::Complete,
        PublishFrags::All,
        &[
            submit(0, true),
            Sendto { s },
            XmitReserve { s },
            send(ringlab_model::copy_tx::TxResult::Sent),
            // The ring is dry: the refresh publishes past f0's fragment.
            XmitReserve { s },
            submit(1, false),
            // Into f0's slot, which the application now owns.
            submit(2, false),
            Sendto { s },
            XmitReserve { s },
            send(ringlab_model::copy_tx::TxResult::Busy),
        ],
        "TxConsumerMonotone",
    );
}

/// A packet of three descriptors on a tx ring of two: each refresh
/// publishes the consumer past the fragment just taken, so the
/// application refills the slots while the packet is built, and
/// NETDEV_TX_BUSY on its last descriptor takes `cached_cons` back three
/// entries, further than the ring holds.
#[test]
fn a_rollback_of_a_packet_longer_than_the_ring_goes_back_past_it() {
    use ringlab_model::copy_tx::TxResult::{Busy, Sent};
    use Action::*;
    let s = 0;
    let submit = |f, contd| UserSubmit {
        s,
        f,
        ok: true,
        contd,
    };
    let send = |o| XmitSend { s, o };
    scripted_on(
        3,
        2,
        4,
        DropFrags::Complete,
        PublishFrags::All,
        &[
            submit(0, true),
            Sendto { s },
            XmitReserve { s },
            send(Sent),
            XmitReserve { s },
            submit(1, true),
            Sendto { s },
            XmitReserve { s },
            send(Sent),
            XmitReserve { s },
            submit(2, false),
            Sendto { s },
            XmitReserve { s },
            send(Busy),
        ],
        "TxConsumerMonotone",
    );
}

/// An invalid descriptor ends f0's packet: 6.12.117's xsk_drop_skb()
/// cancels f0's completion slot, and f0 is nowhere.
#[test]
fn a_dropped_packet_cancelling_its_fragments_loses_their_frames() {
    use Action::*;
    let s = 0;
    scripted(
        DropFrags::Cancel,
        PublishFrags::Packet,
        &[
            UserSubmit {
                s,
                f: 0,
                ok: true,
                contd: true,
            },
            UserSubmit {
                s,
                f: 1,
                ok: false,
                contd: false,
            },
            Sendto { s },
            XmitReserve { s },
            XmitSend {
                s,
                o: ringlab_model::copy_tx::TxResult::Sent,
            },
            XmitReserve { s },
        ],
        "FrameConservation",
    );
}
