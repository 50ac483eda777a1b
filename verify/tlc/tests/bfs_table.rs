//! The model's breadth-first search against specs/manifest.json: the
//! outcome each model must have, and the `distinct_states` and `depth` TLC
//! measured (`ringlab check --record`). No java needed; tests/tlc_bfs.rs
//! compares against a live TLC run instead.

mod common;

use ringlab_model::{explore, ExploreOptions, ExploreResult, ModelCfg, Outcome};

fn run(name: &str) -> ExploreResult {
    let m = ModelCfg::from_file(common::cfg_path(name)).unwrap_or_else(|e| panic!("{e}"));
    explore(&m.config, &ExploreOptions::from_model_cfg(&m).unwrap())
}

#[test]
fn model_matches_manifest() {
    let models = common::manifest_models().expect("specs/manifest.json");
    let mut bad = Vec::new();
    for m in models.iter().filter(|m| m.tier == "ci") {
        let r = run(&m.cfg);
        bad.extend(common::outcome_mismatch(m, &r.outcome.summary()));
        let complete = r.outcome == Outcome::Pass;
        if complete && m.expected == "pass" && (m.distinct_states.is_none() || m.depth.is_none()) {
            bad.push(format!(
                "{}: no recorded state count: run `ringlab check --record`",
                m.name
            ));
        }
        if let (Some(d), true) = (m.distinct_states, complete) {
            if d != r.distinct {
                bad.push(format!(
                    "{}: manifest records {d} distinct states, model found {}",
                    m.name, r.distinct
                ));
            }
        }
        if let (Some(d), true) = (m.depth, complete) {
            if d != r.depth {
                bad.push(format!(
                    "{}: manifest records depth {d}, model found {}",
                    m.name, r.depth
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
