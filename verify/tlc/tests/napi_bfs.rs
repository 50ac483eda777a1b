//! The NapiSkbCache model's breadth-first search against
//! specs/manifest.json: for every ci model of the spec, the outcome it
//! must have (the first invariant violated, checked in the .cfg's order
//! as TLC does; a liveness model's safety part passes), and TLC's
//! `distinct_states` and `depth`, for a violation too: the model takes
//! successors in TLC's order. DeferDrains stays TLC's: for
//! napi-defer-no-kick the model searches the safety part whole.

mod common;

use ringlab_model::napi_cache::{self, tla, Config, ModelCfg, State};
use ringlab_model::Outcome;

fn check(tier: &str) {
    let models: Vec<_> = common::manifest_models_with_prefix("NapiSkbCache", "MCNapiSkbCache")
        .expect("specs/manifest.json")
        .into_iter()
        .filter(|m| m.tier == tier)
        .collect();
    assert!(!models.is_empty(), "no {tier} NapiSkbCache models");
    let mut bad = Vec::new();
    for m in &models {
        let path = common::specs_dir().join(format!("mc/MCNapiSkbCache{}.cfg", m.cfg));
        let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let r = napi_cache::explore(&cfg).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        println!(
            "{}: {}, {} distinct states, depth {} (manifest: {}, {:?}, {:?})",
            m.name,
            r.outcome.summary(),
            r.distinct,
            r.depth,
            m.expected,
            m.distinct_states,
            m.depth
        );
        bad.extend(common::outcome_mismatch(m, &r.outcome.summary()));
        let c = &cfg.config;
        if let Outcome::Violation { invariant, trace } = &r.outcome {
            // The trace replays, only its last state is bad.
            let mut s = trace.init.clone();
            assert_eq!(s, State::init(c), "{}", m.name);
            for (a, t) in &trace.steps {
                assert_eq!(s.violated(c, &cfg.invariants), None, "{}: {a}", m.name);
                assert!(s.enabled(c).contains(a), "{}: {a} not enabled", m.name);
                s = s.step(c, a).unwrap_or_else(|| panic!("{}: {a} disabled", m.name));
                assert_eq!(&s, t);
                println!("  {a}");
            }
            assert_eq!(s.violated(c, &cfg.invariants), Some(*invariant), "{}", m.name);
            println!("{}", tla::state_conjunction(c, &s));
        }
        // A liveness model's count is where TLC stopped once it found the
        // cycle, a part of the space the model searches whole.
        if m.expected.starts_with("liveness:") {
            if m.distinct_states.is_some_and(|d| d > r.distinct) {
                bad.push(format!("{}: TLC saw {:?} states of {} the model finds", m.name, m.distinct_states, r.distinct));
            }
            continue;
        }
        bad.extend(common::count_mismatches(m, r.distinct, r.depth));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn napi_model_matches_manifest() {
    check("ci");
}

/// The deep tier (napi-cache-deep, 102164 states): `--ignored`.
#[test]
#[ignore]
fn napi_model_matches_manifest_deep() {
    check("deep");
}

/// enabled() and step() agree along runs that pick their actions in a
/// fixed spread, on every Path with Clone on and off, and the model's
/// states keep TypeOK.
#[test]
fn enabled_actions_step() {
    let small = Config::small();
    let clone = Config { ncpu: 1, clone: true, ..Config::small() };
    for cfg in [small.clone(), small.clone().with_path(napi_cache::Path::Bulk), small.with_path(napi_cache::Path::Slab), clone] {
        for spread in [3, 7, 11] {
            let mut s = State::init(&cfg);
            for i in 0..80 {
                let acts = s.enabled(&cfg);
                assert!(!acts.is_empty(), "{:?}: no step", cfg.path);
                for a in s.candidate_actions(&cfg) {
                    assert_eq!(s.step(&cfg, &a).is_some(), acts.contains(&a), "{a}");
                }
                s = s.step(&cfg, &acts[i * spread % acts.len()]).unwrap();
                assert!(s.violations(&cfg).is_empty(), "{:?}", s.violations(&cfg));
            }
        }
    }
}
