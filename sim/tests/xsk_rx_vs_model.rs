//! AF_XDP receive on real atomics against the reference model
//! (ringlab_model::xsk_rx), step for step.
//!
//! proptest-state-machine draws the spec's constants from the shapes of
//! the spec's models (the driver path, the generic path with two
//! sockets sharing the umem on two CPUs, seed 002's fast path with a
//! socket bound late, the XSKMAP path with a socket bound late, packets
//! of two chunks with and without XDP_USE_SG, XSKMAP entries replaced
//! while packets are in flight on each path), resized (1 to 4 buffers,
//! fill and rx rings of 1, 2 or 4 entries, 2 to 6 packets, budgets of 1
//! to 3), and a sequence of the spec's action instances: mostly ones the
//! model takes, the rest ones it refuses. Each is applied to the model
//! and to the simulator (`XskRx::step`): where the model steps, the
//! simulator must step too and its projection (`XskRx::model_state`)
//! must then equal the model's state; where the model refuses, the
//! simulator must refuse too. After every step the spec's invariants
//! must hold in the model and in the simulator's own checks.
//!
//! The model is the correct spec (Mutant = "none") whatever the build.
//! Kills (`ringlab mutants`): xsk-gen-rx-race (a second CPU takes the
//! rx lock of another socket of the umem), xdp-missing-flush (the poll
//! ends without publishing), redirect-xsk-ignore-key (the fast path
//! taken for another index), redirect-xsk-batch-tail-lost (the poll ends
//! with its batch), redirect-xsk-batch-reorder (a packet of another
//! action handled before the batch), redirect-xsk-batch-stale-sock (the
//! batch received into the queue's socket of the moment).
#![cfg(not(loom))]

mod common;

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use ringlab_model::xsk_rx::{Action, Config, Mutant, Redirect, RxPath, Stage, State, Verdict};
use ringlab_sim::xsk_rx::{invariants, XskRx, XskRxConfig};

/// Steps of a run, at most.
const LEN: usize = 100;

#[derive(Clone, Debug)]
struct Ref {
    sim: XskRxConfig,
    /// The same constants with Mutant = "none".
    spec: Config,
    state: State,
}

impl Ref {
    fn new(spec: Config) -> Ref {
        let sim = XskRxConfig::from_spec(spec);
        let spec = sim.spec.clone().with_mutant(Mutant::None);
        let state = State::init(&spec);
        Ref { sim, spec, state }
    }
}

/// The shapes of the spec's models.
fn shapes() -> Vec<Config> {
    let late_map = Config {
        late_bind: vec![2],
        ..Config::driver()
    };
    let single_no_sg = Config {
        sg: false,
        ..Config::driver()
    };
    let generic_two = Config {
        n_bufs: 3,
        ..Config::generic()
    };
    let fast_one = Config {
        n_sockets: 1,
        late_bind: vec![],
        ..Config::fast()
    };
    let remap = |base: Config| Config { remap: true, ..base };
    let tx_only = |base: Config| Config {
        tx_only: vec![2],
        ..base
    };
    let fast_tx_only = Config {
        late_bind: vec![1, 2],
        ..tx_only(Config::fast())
    };
    let batch_one = Config {
        batch: 3,
        ..fast_one.clone()
    };
    vec![
        Config::batch(),
        batch_one,
        tx_only(Config::driver()),
        tx_only(remap(Config::generic())),
        fast_tx_only,
        remap(Config::driver()),
        remap(Config::generic()),
        remap(Config::fast()),
        Config::driver(),
        Config::generic(),
        generic_two,
        Config::fast(),
        fast_one.clone(),
        fast_one,
        late_map,
        single_no_sg,
    ]
}

fn constants() -> BoxedStrategy<Config> {
    let pow = || prop_oneof![Just(1u32), Just(2u32), Just(4u32)];
    (
        proptest::sample::select(shapes()),
        1u8..=4,
        pow(),
        prop_oneof![Just(1u32), Just(2u32)],
        2u8..=6,
        1u32..=3,
    )
        .prop_map(|(base, bufs, fq, rx, pkts, budget)| Config {
            n_bufs: bufs.max(base.n_bufs.min(2)),
            fq_size: fq,
            rx_size: rx,
            max_pkts: pkts,
            poll_budget: budget,
            ..base
        })
        .boxed()
}

#[derive(Clone, Debug)]
struct RefMachine;

impl ReferenceStateMachine for RefMachine {
    type State = Ref;
    type Transition = Action;

    fn init_state() -> BoxedStrategy<Ref> {
        constants().prop_map(Ref::new).boxed()
    }

    /// Five in six an instance the model takes, by name; releases rare.
    fn transitions(r: &Ref) -> BoxedStrategy<Action> {
        let enabled = r.state.enabled(&r.spec);
        let refused: Vec<Action> = r
            .state
            .candidate_actions(&r.spec)
            .into_iter()
            .filter(|a| !enabled.contains(a))
            .collect();
        let taken = common::by_name(&enabled, Action::name, |n| match n {
            "XskRelease" | "Done" => 1,
            "XskBind" | "XskMapUpdate" => 3,
            _ => 12,
        });
        let refused = common::by_name(&refused, Action::name, |n| match n {
            "RxLock" | "XdpRun" => 3,
            _ => 1,
        });
        match (taken, refused) {
            (Some(t), Some(f)) => prop_oneof![5 => t, 1 => f].boxed(),
            (Some(t), None) => t,
            (None, Some(f)) => f,
            (None, None) => Just(Action::Done).boxed(),
        }
    }

    fn preconditions(_: &Ref, _: &Action) -> bool {
        true
    }

    fn apply(mut r: Ref, a: &Action) -> Ref {
        if let Some(t) = r.state.step(&r.spec, a) {
            r.state = t;
        }
        r
    }
}

struct Sut(XskRx);

impl StateMachineTest for Sut {
    type SystemUnderTest = Sut;
    type Reference = RefMachine;

    fn init_test(r: &Ref) -> Sut {
        let sys = XskRx::new(r.sim.clone()).expect("a valid config");
        assert_eq!(sys.model_state(), r.state, "Init differs");
        Sut(sys)
    }

    fn apply(mut sut: Sut, r: &Ref, a: Action) -> Sut {
        let before = sut.0.model_state();
        let took = before.step(&r.spec, &a).is_some();
        let stepped = sut.0.step(&a);
        common::same_step(&a, took, stepped, &sut.0.model_state(), &r.state, |g, w| {
            ringlab_model::xsk_rx::tla::changed(&r.spec, g, w).join(", ")
        });
        common::invariants_hold(
            &a,
            r.state.violated(&r.spec, &invariants::checked()),
            invariants::concrete(&sut.0),
            invariants::check(&sut.0),
        );
        let enabled = sut.0.enabled();
        assert_eq!(
            enabled,
            r.state.enabled(&r.spec),
            "after {a}: enabled actions differ"
        );
        sut
    }
}

prop_state_machine! {
    #![proptest_config(common::prop_config("xsk_rx_vs_model", 512))]
    #[test]
    fn the_simulator_follows_the_model(sequential 1..LEN => Sut);
}

/// The generated runs reach what the comparison is for: packets received
/// on each path, the fast path and its fallback, two CPUs contending for
/// the rx lock, multi-chunk packets, full rings, late binds, releases,
/// XSKMAP entries replaced with a packet for the old socket in flight,
/// and a socket released from two entries.
#[test]
fn generated_runs_reach_the_interesting_steps() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;
    let mut runner = TestRunner::deterministic();
    let strategy = RefMachine::sequential_strategy(1..LEN);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for _ in 0..256 {
        let (init, transitions, _) = strategy.new_tree(&mut runner).expect("a run").current();
        let mut r = init;
        for a in &transitions {
            let (cfg, s) = (&r.spec, &r.state);
            let took = s.step(cfg, a);
            let mut see = |what| *seen.entry(what).or_default() += 1;
            match (*a, &took) {
                (Action::XskRcvReserve { c }, Some(t)) => {
                    let r = &s.cpu[usize::from(c)];
                    see(match (cfg.path, r.fast) {
                        (RxPath::Generic, _) => "generic receive",
                        (_, true) => "fast receive",
                        _ => "xskmap receive",
                    });
                    if r.len > 1 {
                        see("multi-chunk receive");
                    }
                    let _ = t;
                }
                (
                    Action::XdpRun {
                        v: Verdict::Redirect,
                        k,
                        ..
                    },
                    Some(t),
                ) if cfg.redirect == Redirect::Xsk && s.rxq_xsk != 0 && k != s.rxq_xsk => {
                    let _ = t;
                    see("fast path's index names another socket")
                }
                (Action::RxLock { .. }, None) if s.lock.iter().any(Option::is_some) => {
                    see("rx lock contended")
                }
                (_, Some(t))
                    if t.cnt
                        .iter()
                        .zip(&s.cnt)
                        .any(|(a, b)| a.rx_queue_full > b.rx_queue_full) =>
                {
                    see("rx queue full")
                }
                (Action::XskMapUpdate { k, .. }, Some(_))
                    if s.map[usize::from(k) - 1] != 0
                        && s.cpu.iter().any(|r| {
                            r.stage != Stage::Idle && r.sock == s.map[usize::from(k) - 1]
                        }) =>
                {
                    see("entry replaced in flight")
                }
                (Action::XskRelease { s: x }, Some(_))
                    if s.map.iter().filter(|&&e| e == x).count() > 1 =>
                {
                    see("release from two entries")
                }
                (Action::XskBind { .. }, Some(_)) => see("late bind"),
                (Action::XskReleaseDone { .. }, Some(_)) => see("release done"),
                (Action::XdpDoFlush { .. }, Some(_)) => see("poll end"),
                _ => {}
            }
            r = RefMachine::apply(r, a);
        }
    }
    eprintln!("{seen:?}");
    for want in [
        "generic receive",
        "fast receive",
        "xskmap receive",
        "multi-chunk receive",
        "rx queue full",
        "fast path's index names another socket",
        "rx lock contended",
        "late bind",
        "release done",
        "poll end",
        "entry replaced in flight",
        "release from two entries",
    ] {
        assert!(
            seen.get(want).copied().unwrap_or(0) > 5,
            "{want} is rare: {seen:?}"
        );
    }
}
