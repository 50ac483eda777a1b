//! io_uring SEND_ZC on real atomics against the reference model
//! (ringlab_model::iouring_zc), step for step.
//!
//! proptest-state-machine draws the spec's constants within small bounds
//! (the shapes of the spec's two models, 1 to 3 requests of 1 or 2
//! units, 1 to 3 skbs, an SQ of 1, 2 or 4 and a CQ of 1 or 2 whose
//! counters start just below u32::MAX, so that runs wrap them) and a
//! sequence of the spec's action instances: mostly ones the model can
//! take, the rest ones it refuses, as an application and a kernel may
//! attempt anything. Each is applied to the model and to the simulator
//! (`IoUringZc::step`): where the model steps, the simulator must step
//! too and its projection onto the spec's variables
//! (`IoUringZc::model_state`) must then equal the model's state; where
//! the model refuses, the simulator must refuse too, changing nothing.
//! After every step every spec invariant must hold in the model and in
//! the simulator's own checks.
//!
//! The model is the correct spec (Mutant = "none") whatever the build:
//! a failure prints the minimal case (the constants and the actions).
//! Kills (`ringlab mutants`): iou-skip-notif, iou-notif-order,
//! iou-fixedbuf-life (each makes the simulator leave the model's state).
#![cfg(not(loom))]

mod common;

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use ringlab_model::iouring_zc::{Action, Config, Mutant, State};
use ringlab_sim::protocols::iouring_zc::{invariants, IoUringZc, IoUringZcConfig};

/// Steps of a run, at most (proptest draws the number below it).
const LEN: usize = 120;

#[derive(Clone, Debug)]
struct Ref {
    /// The simulator's config: the spec's constants with the build's
    /// mutant, the rings' starts.
    sim: IoUringZcConfig,
    /// The same constants with Mutant = "none": the model compared with.
    spec: Config,
    state: State,
}

impl Ref {
    fn new((spec, sq_start, cq_start): (Config, u32, u32)) -> Ref {
        let sim = IoUringZcConfig::from_spec(spec).starts(sq_start, cq_start);
        let spec = sim.spec.clone().with_mutant(Mutant::None);
        let state = State::init(&spec);
        Ref { sim, spec, state }
    }
}

/// The spec's constants: one of its two models' shapes, resized; where
/// the rings' counters start.
fn constants() -> BoxedStrategy<(Config, u32, u32)> {
    let shape = prop_oneof![Just(Config::zc_notif()), Just(Config::batch1())];
    let start = prop_oneof![Just(0u32), (u32::MAX - 4)..=u32::MAX];
    (shape, 1u8..=3, 1u32..=2, 1u8..=3, 0u32..=2, 0u32..=1, 1u32..=2, start.clone(), start)
        .prop_map(|(base, n, len, skbs, sq, cq, batch, s0, c0)| {
            let c = Config {
                n_reqs: n,
                req_len: len,
                max_skbs: skbs,
                sq_size: 1 << sq,
                cq_size: 1 << cq,
                batch,
                ..base
            };
            (c, s0, c0)
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

    /// Four in five an instance the model takes, the rest one it
    /// refuses, each drawn by action name first (so that IoSendZc's many
    /// instances do not drown the rest). Unregistering the buffer comes
    /// rarely (every later fixed send fails).
    fn transitions(r: &Ref) -> BoxedStrategy<Action> {
        let enabled = r.state.enabled(&r.spec);
        let refused: Vec<Action> = r
            .state
            .candidate_actions(&r.spec)
            .into_iter()
            .filter(|a| !enabled.contains(a))
            .collect();
        let weight = |n: &str| match n {
            "IoUringUnregisterBuffers" | "Done" => 1,
            _ => 12,
        };
        let taken = common::by_name(&enabled, Action::name, weight);
        let refused = common::by_name(&refused, Action::name, |_| 1);
        match (taken, refused) {
            (Some(t), Some(f)) => prop_oneof![4 => t, 1 => f].boxed(),
            (Some(t), None) => t,
            (None, Some(f)) => f,
            (None, None) => unreachable!("UserReap is always a candidate"),
        }
    }

    /// Any instance at any time: where the model refuses it, so must the
    /// simulator.
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

struct Sut(IoUringZc);

impl StateMachineTest for Sut {
    type SystemUnderTest = Sut;
    type Reference = RefMachine;

    fn init_test(r: &Ref) -> Sut {
        let sys = IoUringZc::new(r.sim.clone()).expect("a valid config");
        assert_eq!(sys.model_state(), r.state, "Init differs");
        Sut(sys)
    }

    /// `r` is the model after `a`; before it, the model was where the
    /// simulator is (checked after the previous step).
    fn apply(mut sut: Sut, r: &Ref, a: Action) -> Sut {
        let before = sut.0.model_state();
        let took = before.step(&r.spec, &a).is_some();
        let stepped = sut.0.step(&a);
        common::same_step(&a, took, stepped, &sut.0.model_state(), &r.state, |g, w| {
            ringlab_model::iouring_zc::tla::changed(&r.spec, g, w).join(", ")
        });
        common::invariants_hold(
            &a,
            r.state.violated(&r.spec, &invariants::CHECKED),
            invariants::concrete(&sut.0),
            invariants::check(&sut.0),
        );
        sut
    }
}

prop_state_machine! {
    #![proptest_config(common::prop_config("iouring_vs_model", 1024))]
    #[test]
    fn the_simulator_follows_the_model(sequential 1..LEN => Sut);
}

/// The generated runs reach what the comparison is for: notifications
/// posted, linked ones among them, CQEs overflowed and flushed back, the
/// buffer unregistered with sends still to come, retries, failures in
/// prep and in issue, both rings' counters wrapped past u32::MAX.
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
        let mut sq_pushed = 0u64;
        let mut cq_posted = 0u64;
        for a in &transitions {
            let s = r.state.clone();
            let took = s.step(&r.spec, a);
            let mut see = |what| *seen.entry(what).or_default() += 1;
            if let Some(t) = &took {
                if t.posted.len() > s.posted.len() {
                    cq_posted += (t.posted.len() - s.posted.len()) as u64;
                }
                if t.posted[s.posted.len()..].iter().any(|c| c.notif) {
                    see("notification posted");
                }
                if t.nd.iter().enumerate().any(|(i, n)| usize::from(n.head) != i + 1) {
                    see("notification linked");
                }
                if t.ovf.len() > s.ovf.len() {
                    see("CQE overflowed");
                }
                if t.compl.last().is_some_and(|c| c.res < 0) && t.compl.len() > s.compl.len() {
                    see("request failed");
                }
                match a {
                    Action::IoCqringOverflowFlush => see("overflow flushed"),
                    Action::IoPollRetry(_) => see("retry"),
                    Action::IoUringUnregisterBuffers if t.st.iter().any(|x| x.id() != "done") => {
                        see("unregistered with sends to come")
                    }
                    Action::UserSubmit(_) => sq_pushed += 1,
                    _ => {}
                }
            }
            if u64::from(r.sim.sq_start) + sq_pushed > u64::from(u32::MAX) {
                see("SQ wrapped");
            }
            if u64::from(r.sim.cq_start) + cq_posted > u64::from(u32::MAX) {
                see("CQ wrapped");
            }
            r = RefMachine::apply(r, a);
        }
    }
    eprintln!("{seen:?}");
    for want in [
        "notification posted",
        "notification linked",
        "CQE overflowed",
        "overflow flushed",
        "request failed",
        "retry",
        "unregistered with sends to come",
        "SQ wrapped",
        "CQ wrapped",
    ] {
        assert!(seen.get(want).is_some_and(|&n| n >= 4), "{want}: {seen:?}");
    }
}
