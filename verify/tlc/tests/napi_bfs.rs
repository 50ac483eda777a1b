//! The NapiSkbCache model's breadth-first search against
//! specs/manifest.json: for every ci model of the spec, the outcome it
//! must have (the first invariant violated, checked in the .cfg's order
//! as TLC does; a liveness model's safety part passes), and TLC's
//! `distinct_states` and `depth`, for a violation too: the model takes
//! successors in TLC's order. DeferDrains stays TLC's: for
//! napi-defer-no-kick the model searches the safety part whole.

mod common;

use ringlab_model::napi_cache::{self, tla, Config, State};

fn check(tier: &str) {
    common::plain_bfs::matches_manifest::<State>("NapiSkbCache", "MCNapiSkbCache", tier, true, tla::state_conjunction);
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
