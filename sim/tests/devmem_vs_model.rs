//! Devmem receive tokens on real atomics against the reference model
//! (ringlab_model::devmem), step for step.
//!
//! proptest-state-machine draws the spec's constants within small bounds
//! (xarray mode, array mode, or two bindings that may ask for either; 1 or
//! 2 sockets and 1 to 3 net_iovs a binding, frags in 1 or 2 pieces,
//! MAX_DONTNEED_FRAGS 1 or 2 and token counts one above it) and a
//! sequence of the spec's action instances: mostly ones the model can
//! take, the rest ones it refuses, the mutants' instances among them (a
//! recvmsg whose cmsg does not fit, a release's lone read of uref, a bind
//! of the other mode), as an application may attempt anything. Each is
//! applied to the model and to the simulator (`Devmem::step`): where the
//! model steps, the simulator must step too and its projection onto the
//! spec's variables (`Devmem::model_state`) must then equal the model's
//! state; where the model refuses, the simulator must refuse too, changing
//! nothing. After every step the spec's invariants (OwnTokensOnly aside:
//! array mode gives it up) must hold in the model and in the simulator's
//! own checks.
//!
//! The model is the correct spec (Mutant = "none") whatever the build:
//! a failure prints the minimal case (the constants and the actions).
//! Kills (`ringlab mutants`): zcrx-uref-race, dm-dontneed-loop,
//! dm-cmsg-trunc, dm-recv-no-ref, dm-close-no-release,
//! dm-unbind-no-cleanup, dm-mode-mix (each makes the simulator take or
//! refuse a step the model does not, or leave the model's state).
#![cfg(not(loom))]

mod common;

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use ringlab_model::devmem::{Action, Bst, Config, Mode, Mutant, State};
use ringlab_sim::devmem::{invariants, Devmem, DevmemConfig};

/// Steps of a run, at most (proptest draws the number below it).
const LEN: usize = 120;

#[derive(Clone, Debug)]
struct Ref {
    /// The simulator's config: the spec's constants with the build's
    /// mutant.
    sim: DevmemConfig,
    /// The same constants with Mutant = "none": the model compared with.
    spec: Config,
    state: State,
}

impl Ref {
    fn new(spec: Config) -> Ref {
        let sim = DevmemConfig::from_spec(spec);
        let spec = sim.spec.clone().with_mutant(Mutant::None);
        let state = State::init(&spec);
        Ref { sim, spec, state }
    }

    /// Every instance of Next's actions, the mutants' included: the
    /// correct spec's candidates, RecvMsg with `told` false and
    /// DontneedRead.
    fn candidates(&self) -> Vec<Action> {
        let mut all = self.state.candidate_actions(&self.spec);
        for s in self.spec.socks() {
            all.push(Action::RecvMsg { s, told: false });
            all.extend((0..self.spec.toks()).map(|t| Action::DontneedRead { s, t }));
        }
        all
    }
}

/// The spec's constants: one of the three shapes of the spec's models,
/// resized.
fn constants() -> BoxedStrategy<Config> {
    let shape = prop_oneof![
        Just(Config::xarray()),
        Just(Config::array()),
        Just(Config::modes()),
    ];
    (shape, 1u8..=2, 1u8..=3, 1u32..=2, 1u32..=2)
        .prop_map(|(base, socks, niovs, parts, limit)| Config {
            socks_per: socks,
            niovs_per: niovs,
            parts,
            dontneed_limit: limit,
            max_count: limit + 1,
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

    /// Four in five an instance the model takes, the rest one it refuses,
    /// each drawn by action name first (so that Dontneed's many instances
    /// do not drown the rest). Closes and unbinds come rarely (they end a
    /// run), and so do binds once a binding is bound (so that a bind of
    /// the other mode is attempted while it is).
    fn transitions(r: &Ref) -> BoxedStrategy<Action> {
        let enabled = r.state.enabled(&r.spec);
        let refused: Vec<Action> = r
            .candidates()
            .into_iter()
            .filter(|a| !enabled.contains(a))
            .collect();
        let bound = r.state.bst.contains(&Bst::Bound);
        let weight = |n: &str| match n {
            "Close" | "Unbind" | "Done" => 1,
            "BindRx" if bound => 1,
            _ => 12,
        };
        let taken = common::by_name(&enabled, Action::name, weight);
        // The instances the mutants take, more often.
        let refused = common::by_name(&refused, Action::name, |n| match n {
            "BindRx" => 4,
            "RecvMsg" | "DontneedRead" => 2,
            _ => 1,
        });
        match (taken, refused) {
            (Some(t), Some(f)) => prop_oneof![4 => t, 1 => f].boxed(),
            (Some(t), None) => t,
            (None, Some(f)) => f,
            (None, None) => unreachable!("Close or Done is always a candidate"),
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

struct Sut(Devmem);

impl StateMachineTest for Sut {
    type SystemUnderTest = Sut;
    type Reference = RefMachine;

    fn init_test(r: &Ref) -> Sut {
        let sys = Devmem::new(r.sim.clone()).expect("a valid config");
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
            ringlab_model::devmem::tla::changed(&r.spec, g, w).join(", ")
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
    #![proptest_config(common::prop_config("devmem_vs_model", 1024))]
    #[test]
    fn the_simulator_follows_the_model(sequential 1..LEN => Sut);
}

/// The generated runs reach what the comparison is for, what each mutant
/// changes: tokens of both modes received, returned and (array mode)
/// returned through another socket; token counts above
/// MAX_DONTNEED_FRAGS; sockets closed with tokens out (xarray mode) and
/// bindings unbound with tokens out (array mode); and the instances the
/// correct spec refuses: a recvmsg whose cmsg does not fit, a lone read
/// of uref, a bind of the other mode while one is bound.
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
                (Action::RecvMsg { s: o, .. }, Some(_)) => {
                    see(match s.mode_of(o.b) {
                        Mode::Xarray => "xarray token",
                        Mode::Array => "array token",
                    });
                }
                (Action::RecvMsg { told: false, .. }, None) => see("untold recvmsg refused"),
                (Action::DontneedRead { .. }, None) => see("lone uref read refused"),
                (Action::BindRx { b, m }, None)
                    if s.bst_of(b) == Bst::Idle && cfg.modes.contains(&m) =>
                {
                    see("bind of the other mode refused")
                }
                (Action::Dontneed { s: o, c, .. }, Some(t)) => {
                    let k = cfg.sock_index(o);
                    if t.user[k] != s.user[k] || t.stolen != s.stolen {
                        see("tokens returned");
                    }
                    if t.stolen.len() > s.stolen.len() {
                        see("token returned through another socket");
                    }
                    if c > cfg.dontneed_limit {
                        see("count above the limit");
                    }
                }
                (Action::Close { s: o }, Some(_))
                    if s.mode_of(o.b) == Mode::Xarray
                        && s.xa[cfg.sock_index(o)].iter().any(Option::is_some) =>
                {
                    see("xarray close with tokens out")
                }
                (Action::Unbind { b }, Some(_))
                    if s.mode_of(b) == Mode::Array
                        && cfg
                            .niovs_of(b)
                            .iter()
                            .any(|&n| s.uref[cfg.niov_index(n)] > 0) =>
                {
                    see("array unbind with tokens out")
                }
                _ => {}
            }
            r = RefMachine::apply(r, a);
        }
    }
    eprintln!("{seen:?}");
    for want in [
        "xarray token",
        "array token",
        "tokens returned",
        "token returned through another socket",
        "count above the limit",
        "xarray close with tokens out",
        "array unbind with tokens out",
        "untold recvmsg refused",
        "lone uref read refused",
        "bind of the other mode refused",
    ] {
        assert!(
            seen.get(want).copied().unwrap_or(0) > 5,
            "{want} is rare: {seen:?}"
        );
    }
}
