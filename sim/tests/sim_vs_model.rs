//! The simulator against the reference model, step for step.
//!
//! proptest-state-machine draws a ring (kind, size, start index near
//! u32::MAX so the counters wrap, batch limit) and a sequence of the
//! model's enabled actions, applies each to the model and to the
//! simulator, and compares everything the simulator can observe: both
//! shared counters, all cached indices, every slot's entry, each loaded
//! entry. The model runs with idx_bits = 32, i.e. real u32 counters.
//!
//! The mutants this kills (`ringlab mutants`): wrapping-add (the counters
//! cross u32::MAX), reserve-partial, cached-cons-offset,
//! batch-release-count and cons-no-publish (the simulator's counters leave
//! the model's).

mod common;

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use ringlab_model::xsk_ring::{Action, Barriers, Config, Mutant, Side, State};
use ringlab_ring::XdpDesc;
use ringlab_sim::harness::Protocol;
use ringlab_sim::xsk_ring::payload::Payload;
use ringlab_sim::xsk_ring::{RingKind, SimConfig, StepError, XskRing};

#[derive(Clone, Debug)]
struct Ref {
    kind: RingKind,
    start: u32,
    cfg: Config,
    state: State,
}

fn side(s: ringlab_sim::xsk_ring::config::Side) -> Side {
    match s {
        ringlab_sim::xsk_ring::config::Side::Kernel => Side::Kernel,
        ringlab_sim::xsk_ring::config::Side::User => Side::User,
    }
}

fn model_cfg(kind: RingKind, size: u32, max_batch: u32) -> Config {
    Config {
        size: size as u64,
        idx_bits: 32,
        prod_side: side(kind.prod_side()),
        cons_side: side(kind.cons_side()),
        max_batch: max_batch as u64,
        barriers: Barriers::ALL,
        invalid_descs: kind.invalid_descs(),
        copy_tx: false,
        mutant: Mutant::None,
    }
}

struct RefMachine;

impl ReferenceStateMachine for RefMachine {
    type State = Ref;
    type Transition = Action;

    fn init_state() -> BoxedStrategy<Ref> {
        let kind = prop_oneof![
            Just(RingKind::Fill),
            Just(RingKind::Tx),
            Just(RingKind::Comp),
            Just(RingKind::Rx),
        ];
        let size = (0u32..=5).prop_map(|k| 1u32 << k);
        // Mostly just below u32::MAX, so a run crosses the wrap; sometimes anywhere.
        let start = prop_oneof![3 => (0u32..64).prop_map(|d| u32::MAX - d), 1 => any::<u32>()];
        (kind, size, start)
            .prop_flat_map(|(kind, size, start)| {
                (Just(kind), Just(size), Just(start), 1..=size.min(4))
            })
            .prop_map(|(kind, size, start, max_batch)| {
                let cfg = model_cfg(kind, size, max_batch);
                let state = State::init(&cfg, start as u64);
                Ref {
                    kind,
                    start,
                    cfg,
                    state,
                }
            })
            .boxed()
    }

    fn transitions(r: &Ref) -> BoxedStrategy<Action> {
        let enabled: Vec<Action> = r
            .state
            .successors(&r.cfg)
            .into_iter()
            .map(|(a, _)| a)
            .collect();
        assert!(!enabled.is_empty(), "the model deadlocked in {:?}", r.state);
        proptest::sample::select(enabled).boxed()
    }

    fn preconditions(r: &Ref, a: &Action) -> bool {
        r.state.step(&r.cfg, a).is_some()
    }

    fn apply(mut r: Ref, a: &Action) -> Ref {
        r.state = r.state.step(&r.cfg, a).expect("precondition checked");
        r
    }
}

enum Sut {
    Addr(XskRing<u64>, State),
    Desc(XskRing<XdpDesc>, State),
}

fn step<E: Payload>(sim: &mut XskRing<E>, before: &State, after: &State, cfg: &Config, a: &Action) {
    let res = match *a {
        Action::ProdReserve { n } => sim.prod_reserve(n as u32).map(|_| ()),
        Action::ProdWrite { ok } => sim.prod_write(ok).map(|_| ()),
        Action::ProdSubmit { n } => sim.prod_submit(n as u32).map(|_| ()),
        Action::ProdCancel { n } => sim.prod_cancel(n as u32).map(|_| ()),
        Action::ConsPeek { nb } => sim.cons_peek(nb.unwrap_or(1) as u32).map(|_| ()),
        Action::ConsPeekBatch { max } => sim.cons_peek_batch(max as u32).map(|_| ()),
        Action::ConsRead => sim.cons_read().map(|l| {
            assert_eq!(
                l.pos as u64, after.last.pos,
                "ConsRead loaded another position than the model"
            );
            assert_eq!(
                l.valid, after.last.ok,
                "ConsRead saw another descriptor validity than the model"
            );
        }),
        Action::ConsRelease { nb } => sim.cons_release(nb.unwrap_or(0) as u32).map(|_| ()),
        Action::ConsPublish => sim.cons_publish().map(|_| ()),
        Action::ProdWriteAhead { .. } | Action::ConsReadAhead | Action::Stutter => {
            panic!("{a:?} is not an action of a ring with all barriers")
        }
    };
    match res {
        Ok(()) => {}
        // The model's self-loops (a reserve on a full ring, an empty peek)
        // may be no step at all for the simulator.
        Err(StepError::Disabled) if before == after => {}
        Err(e) => panic!("{}: model took it, simulator said: {e}", a.name()),
    }
    let s = sim.state();
    // The simulator observes the model's counters but the ghost cExp.
    for ((name, g), (mname, w)) in s.counters().iter().zip(after.counters()) {
        assert_eq!(
            *name, mname,
            "the two counter lists are in the spec's order"
        );
        assert_eq!(
            *g as u64,
            w,
            "after {}: {name} is {g:#x} in the simulator, {w:#x} in the model",
            a.name()
        );
    }
    for (i, e) in after.slot.iter().enumerate() {
        let want = (e.idx != cfg.never()).then_some(e.idx as u32);
        assert_eq!(s.slot[i], want, "after {}: slot {i} differs", a.name());
        if want.is_some() {
            assert_eq!(
                s.slot_ok[i],
                e.ok,
                "after {}: validity of slot {i} differs",
                a.name()
            );
        }
    }
    if let Err(v) = Protocol::check(sim) {
        panic!("after {}: simulator invariant: {v}", a.name());
    }
}

impl StateMachineTest for Sut {
    type SystemUnderTest = Sut;
    type Reference = RefMachine;

    fn init_test(r: &Ref) -> Sut {
        let cfg = SimConfig {
            kind: r.kind,
            size: r.cfg.size as u32,
            start: r.start,
            max_batch: r.cfg.max_batch as u32,
            seed: 0,
        };
        if r.kind.invalid_descs() {
            Sut::Desc(XskRing::new(cfg).expect("valid config"), r.state.clone())
        } else {
            Sut::Addr(XskRing::new(cfg).expect("valid config"), r.state.clone())
        }
    }

    fn apply(sut: Sut, r: &Ref, a: Action) -> Sut {
        if let Some(bad) = r.state.violated(&r.cfg) {
            panic!("the model broke {bad}: the reference itself is wrong");
        }
        match sut {
            Sut::Addr(mut sim, before) => {
                step(&mut sim, &before, &r.state, &r.cfg, &a);
                Sut::Addr(sim, r.state.clone())
            }
            Sut::Desc(mut sim, before) => {
                step(&mut sim, &before, &r.state, &r.cfg, &a);
                Sut::Desc(sim, r.state.clone())
            }
        }
    }
}

prop_state_machine! {
    #![proptest_config(common::prop_config("sim_vs_model", 256))]
    #[test]
    fn simulator_follows_the_model(sequential 1..160 => Sut);
}

/// The generator reaches what the comparison is for: runs whose counters
/// cross u32::MAX, and tx runs that load an invalid descriptor.
#[test]
fn generated_runs_wrap_and_load_invalid_descriptors() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = RefMachine::sequential_strategy(1..160);
    let (mut wrapped, mut invalid) = (0, 0);
    for _ in 0..256 {
        let (init, transitions, _) = strategy.new_tree(&mut runner).expect("a run").current();
        let mut r = init;
        for a in &transitions {
            let before = r.state.prod;
            r = RefMachine::apply(r, a);
            wrapped += usize::from(r.state.prod < before);
            invalid += usize::from(*a == Action::ConsRead && !r.state.last.ok);
        }
    }
    assert!(wrapped > 10, "only {wrapped} runs crossed u32::MAX");
    assert!(
        invalid > 10,
        "only {invalid} invalid descriptors were loaded"
    );
}
