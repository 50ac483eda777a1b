//! The DevmemTokens model's breadth-first search against
//! specs/manifest.json: for every devmem-* model, the outcome it must have
//! (the first invariant violated, checked in the .cfg's order as TLC
//! does), and for a passing model TLC's `distinct_states` and `depth`.

mod common;

use ringlab_model::devmem::{self, tla, State};

#[test]
fn devmem_model_matches_manifest() {
    // The deep tier is TLC's (make verify-deep): its models take minutes.
    let models = common::plain_bfs::matches_manifest::<State>("DevmemTokens", "MCDevmem_", "ci", false, tla::state_conjunction);
    assert!(models.len() >= 3, "{} devmem models", models.len());
    for m in &models {
        assert!(m.name.starts_with("devmem-"), "{}", m.name);
    }
}

/// enabled() and step() agree: every enabled action steps, and Done is
/// the only stutter.
#[test]
fn enabled_actions_step() {
    let cfg = devmem::Config::xarray();
    let init = State::init(&cfg);
    let acts = init.enabled(&cfg);
    assert!(!acts.is_empty());
    for a in &acts {
        let t = init.step(&cfg, a).unwrap();
        assert_eq!(t == init, matches!(a, devmem::Action::Done), "{a}");
    }
}
