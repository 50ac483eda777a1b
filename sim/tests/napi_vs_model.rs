//! The NAPI skb cache on real atomics against the reference model
//! (ringlab_model::napi_cache), step for step.
//!
//! proptest-state-machine draws the spec's constants within small bounds
//! (one or two CPUs, 2 to 6 heads, caches of 2 to 4 refilled 1 to 4 at a
//! time, defer lists of 1 to 3, batches of 1 to 3, up to 6 frames, every
//! Path, Clone on and off, the slab failing or not) and a sequence of the
//! spec's action instances: mostly ones the model can take, the rest ones
//! it refuses. Each is applied to the model and to the simulator
//! (`NapiSkbCache::step`): where the model steps, the simulator must step
//! too and its projection onto the spec's variables
//! (`NapiSkbCache::model_state`) must then equal the model's state; where
//! the model refuses, the simulator must refuse too, changing nothing.
//! After every step every spec invariant must hold in the model and in
//! the simulator's own checks.
//!
//! The model is the correct spec (Mutant = "none") whatever the build:
//! a failure prints the minimal case (the constants and the actions).
//! Kills (`ringlab mutants`): every napi-* mutant the simulator puts back
//! (each makes the simulator leave the model's state or break a check).
#![cfg(not(loom))]

mod common;

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

use ringlab_model::napi_cache::{Action, Config, Mutant, Path, State, XdpVerdict};
use ringlab_sim::protocols::napi_cache::{invariants, NapiCacheConfig, NapiSkbCache};

/// Steps of a run, at most (proptest draws the number below it).
const LEN: usize = 100;

#[derive(Clone, Debug)]
struct Ref {
    /// The simulator's config: the spec's constants with the build's
    /// mutant.
    sim: NapiCacheConfig,
    /// The same constants with Mutant = "none": the model compared with.
    spec: Config,
    state: State,
}

impl Ref {
    fn new(spec: Config) -> Ref {
        let sim = NapiCacheConfig::from_spec(spec);
        let spec = sim.spec.clone().with_mutant(Mutant::None);
        let state = State::init(&spec);
        Ref { sim, spec, state }
    }
}

/// The spec's constants, resized.
fn constants() -> BoxedStrategy<Config> {
    let path = prop_oneof![Just(Path::Slab), Just(Path::Bulk), Just(Path::Flush)];
    (1u8..=2, 2u8..=6, 2u32..=4, 1u32..=4, 1u32..=3, 1u32..=3, 0u32..=6, path, any::<bool>(), any::<bool>())
        .prop_map(|(ncpu, nskb, cache_size, bulk, defer_max, batch, nframes, path, clone, slab_fail)| Config {
            ncpu,
            nskb,
            cache_size,
            bulk: bulk.min(cache_size),
            defer_max,
            batch,
            nframes,
            path,
            clone,
            slab_fail,
            mutant: Mutant::None,
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
    /// refuses, each drawn by action name first (what fills a defer list
    /// weighing more).
    fn transitions(r: &Ref) -> BoxedStrategy<Action> {
        let enabled = r.state.enabled(&r.spec);
        let refused: Vec<Action> = candidates(&r.spec).into_iter().filter(|a| !enabled.contains(a)).collect();
        // Frames and frees more than polls, so that defer lists fill;
        // frag lists and copies more still, so that lists of two are
        // shared by a copy before they are freed.
        let weight = |n: &str| match n {
            "SkbGroReceiveList" | "PskbCopy" => 8,
            "SkbAttemptDeferFree" | "NapiBuildSkb" => 3,
            "TunXdpOne" | "TunSendmsgEnd" => 2,
            _ => 1,
        };
        let taken = common::by_name(&enabled, Action::name, weight);
        let refused = common::by_name(&refused, Action::name, |_| 1);
        match (taken, refused) {
            (Some(t), Some(f)) => prop_oneof![4 => t, 1 => f].boxed(),
            (Some(t), None) => t,
            (None, Some(f)) => f,
            (None, None) => unreachable!("KfreeSkb(1) is always a candidate"),
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

/// Every instance of every action, with every choice.
fn candidates(cfg: &Config) -> Vec<Action> {
    let mut out = Vec::new();
    for c in cfg.cpus() {
        out.push(Action::NetRxAction { c });
        out.push(Action::NapiComplete { c });
        out.push(Action::TunSendmsgEnd { c });
        for fail in [false, true] {
            out.push(Action::NapiBuildSkb { c, fail });
            out.push(Action::TunSendmsg { c, fail });
            out.push(Action::TunXdpOne { c, verdict: XdpVerdict::PassSlab { fail } });
        }
        out.push(Action::TunXdpOne { c, verdict: XdpVerdict::Drop });
        out.push(Action::TunXdpOne { c, verdict: XdpVerdict::PassHead });
        for s in cfg.skbs() {
            out.push(Action::NapiConsumeSkb { c, s });
            out.push(Action::SkbAttemptDeferFree { c, s });
            out.push(Action::PskbCopy { c, p: s });
            for t in cfg.skbs() {
                out.push(Action::SkbGroReceiveList { c, p: s, t });
            }
        }
    }
    for s in cfg.skbs() {
        out.push(Action::KfreeSkb { s });
        out.push(Action::SkbGet { s });
    }
    out
}

struct Sut(NapiSkbCache);

impl StateMachineTest for Sut {
    type SystemUnderTest = Sut;
    type Reference = RefMachine;

    fn init_test(r: &Ref) -> Sut {
        let sys = NapiSkbCache::new(r.sim.clone()).expect("a valid config");
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
            ringlab_model::napi_cache::tla::changed(&r.spec, g, w).join(", ")
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
    #![proptest_config(common::prop_config("napi_vs_model", 1024))]
    #[test]
    fn the_simulator_follows_the_model(sequential 1..LEN => Sut);
}

/// The generated runs reach what the comparison is for: every Path's
/// batches, refills and half flushes, a bulk get short of heads and one
/// that failed, skbs deferred to another CPU, IPIs, a full list bypassed,
/// flushes that recycle, frag lists and copies freed, XDP drops.
#[test]
fn generated_runs_reach_the_interesting_steps() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;
    let mut runner = TestRunner::deterministic();
    let strategy = RefMachine::sequential_strategy(1..LEN);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..512 {
        let (init, transitions, _) = strategy.new_tree(&mut runner).expect("a run").current();
        let mut r = init;
        for a in &transitions {
            let s = r.state.clone();
            let Some(t) = s.step(&r.spec, a) else { continue };
            let mut see = |what: &str| *seen.entry(what.to_string()).or_default() += 1;
            let cached = |x: &State| x.cache.iter().map(Vec::len).sum::<usize>();
            match a {
                Action::TunSendmsg { c, fail } => {
                    see(&format!("batch on {}", r.spec.path.id()));
                    if *fail && r.spec.path != Path::Slab {
                        see("bulk get failed");
                    }
                    let k = usize::from(*c) - 1;
                    if r.spec.path != Path::Slab && !*fail && t.heads[k].len() < t.pending[k] as usize {
                        see("bulk get short of heads");
                    }
                }
                Action::TunXdpOne { verdict: XdpVerdict::PassCache { .. }, .. } => see("no head: napi_build_skb"),
                Action::NapiBuildSkb { fail: true, .. } => see("build failed"),
                Action::SkbAttemptDeferFree { c, s: x } => {
                    let o = s.owner[usize::from(*x) - 1];
                    if o != *c && t.defer != s.defer {
                        see("deferred to another CPU");
                    } else if o != *c {
                        see("full list bypassed");
                    }
                }
                Action::TunXdpOne { verdict: XdpVerdict::Drop, .. } => see("XDP drop"),
                Action::KfreeSkb { s: x } if s.frag[usize::from(*x) - 1] != 0 => see("frag list freed"),
                Action::PskbCopy { .. } => see("copy"),
                _ => {}
            }
            // A member of a frag list that another copy shares, with a
            // successor, dropping a reference (what unlinking it loses).
            if (0..s.users.len()).any(|k| s.users[k] > 1 && s.next[k] != 0 && t.users[k] < s.users[k]) {
                see("shared frag list member released");
            }
            if t.kick.iter().zip(&s.kick).any(|(a, b)| *a && !*b) {
                see("IPI");
            }
            if s.defer.iter().any(|d| !d.is_empty()) && t.defer.iter().any(Vec::is_empty) && cached(&t) > cached(&s) {
                see("flush recycled");
            }
            if t.slab.len() > s.slab.len() && cached(&t) < cached(&s) {
                see("half flush");
            }
            if t.slab.len() < s.slab.len() && cached(&t) > cached(&s) {
                see("refill");
            }
            r = RefMachine::apply(r, a);
        }
    }
    eprintln!("{seen:?}");
    for want in [
        "batch on slab",
        "batch on bulk",
        "batch on flush",
        "bulk get failed",
        "bulk get short of heads",
        "no head: napi_build_skb",
        "build failed",
        "deferred to another CPU",
        "full list bypassed",
        "IPI",
        "flush recycled",
        "half flush",
        "refill",
        "XDP drop",
        "frag list freed",
        "shared frag list member released",
        "copy",
    ] {
        assert!(seen.get(want).is_some_and(|&n| n >= 4), "{want}: {seen:?}");
    }
}
