//! Copy-mode transmit on real rings against the reference model
//! (ringlab_model::copy_tx), step for step.
//!
//! proptest-state-machine draws a configuration (two sockets, three or
//! four frames, tx rings of 2 or 4 and a completion ring of 2, design a or
//! b, batch 0 or 2, ring counters starting just below u32::MAX so they
//! wrap) and a sequence of the model's enabled actions; each is applied to
//! the model and to the simulator, whose projection onto the spec's
//! variables (`CopyTx::model_state`) must then equal the model's state.
//! The model's invariants are checked too: all of them in design b;
//! in design a those its positional publishing does not break by itself.
//!
//! Kills (`ringlab mutants`): xsk-immature-cq, xsk-txbusy-rollback,
//! xsk-cq-leak-2019, xsk-shared-cq-race (each makes the rings leave the
//! model).

use proptest::prelude::*;
use proptest::test_runner::Config as PropConfig;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use ringlab_model::copy_tx::{Action, Config, Design, State, INVARIANTS};
use ringlab_sim::copy_tx::{CopyTx, CopyTxConfig, Publish};

#[derive(Clone, Debug)]
struct Ref {
    sim: CopyTxConfig,
    state: State,
}

impl Ref {
    fn cfg(&self) -> &Config {
        &self.sim.spec
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

struct RefMachine;

impl ReferenceStateMachine for RefMachine {
    type State = Ref;
    type Transition = Action;

    fn init_state() -> BoxedStrategy<Ref> {
        let shape = prop_oneof![
            Just((Design::A, 0i64)),
            Just((Design::B, 0)),
            Just((Design::B, 2)),
        ];
        let start = prop_oneof![3 => (0u32..8).prop_map(|d| u32::MAX - d), 1 => any::<u32>()];
        (
            shape,
            3usize..=4,
            prop_oneof![Just(2usize), Just(4)],
            start.clone(),
            start,
        )
            .prop_map(|((design, batch), frames, tx_size, tx_start, cq_start)| {
                let mut sim = CopyTxConfig::new(design, batch, 2, frames);
                sim.spec.tx_size = tx_size;
                sim.spec.cq_size = 2;
                sim.spec.budget = 2;
                sim.tx_start = tx_start;
                sim.cq_start = cq_start;
                sim.publish = Publish::EachStep;
                let state = State::init(&sim.spec);
                Ref { sim, state }
            })
            .boxed()
    }

    fn transitions(r: &Ref) -> BoxedStrategy<Action> {
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

    /// The model's enabled actions, but for two submits the rings cannot
    /// follow: into a slot a real ring still lends to the kernel (the
    /// spec's tx[s] drops a batch's descriptors when they are taken, a real
    /// ring only once they can no longer be cancelled back), and, in
    /// design a, of a frame completed early and still held elsewhere (the
    /// spec's flight is a set, in which two skbs of one frame are one).
    fn preconditions(r: &Ref, a: &Action) -> bool {
        if let Action::UserSubmit { s, f, .. } = *a {
            let s = s as usize;
            if r.state.tx[s].len() + r.state.call[s].batch.len() >= r.cfg().tx_size {
                return false;
            }
            if r.state.held(r.cfg(), f) != 1 {
                return false;
            }
        }
        r.state.step(r.cfg(), a).is_some()
    }

    fn apply(mut r: Ref, a: &Action) -> Ref {
        r.state = r.state.step(r.cfg(), a).expect("precondition checked");
        r
    }
}

struct Sut(CopyTx);

impl StateMachineTest for Sut {
    type SystemUnderTest = Sut;
    type Reference = RefMachine;

    fn init_test(r: &Ref) -> Sut {
        let sys = CopyTx::new(r.sim.clone()).expect("a valid config");
        assert_eq!(sys.model_state(), r.state, "Init differs");
        Sut(sys)
    }

    fn apply(mut sut: Sut, r: &Ref, a: Action) -> Sut {
        if let Err(d) = sut.0.step(&a) {
            panic!("{a}: the model took it, the simulator says {d}");
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
        sut
    }
}

prop_state_machine! {
    #![proptest_config(PropConfig {
        cases: 512,
        max_shrink_iters: 4096,
        failure_persistence: None,
        .. PropConfig::default()
    })]
    #[test]
    fn rings_follow_the_model(sequential 1..120 => Sut);
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
    let strategy = RefMachine::sequential_strategy(1..120);
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
            r = RefMachine::apply(r, a);
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
