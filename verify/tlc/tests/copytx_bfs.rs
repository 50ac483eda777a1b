//! The XskCopyTx model's breadth-first search against specs/manifest.json:
//! the outcome each xsk-copytx-* model must have, and, for every model the
//! search completes, TLC's `distinct_states` (symmetry classes under
//! SYMMETRY Perms) and `depth`.

mod common;

use ringlab_model::copy_tx::{self, ModelCfg};
use ringlab_model::Outcome;

#[test]
fn copy_tx_model_matches_manifest() {
    let models = common::manifest_models_of("XskCopyTx").expect("specs/manifest.json");
    assert!(models.len() >= 10, "{} xsk-copytx models", models.len());
    let mut bad = Vec::new();
    for m in &models {
        let path = common::specs_dir().join(format!("mc/MCXskCopyTx_{}.cfg", m.cfg));
        let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let r = copy_tx::explore(&cfg).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        bad.extend(common::outcome_mismatch(m, &r.outcome.summary()));
        if let Outcome::Violation { invariant, trace } = &r.outcome {
            // The trace replays, and only its last state is bad.
            let c = &cfg.config;
            let mut s = trace.init.clone();
            for (a, t) in &trace.steps {
                assert_eq!(s.violated(c), None, "{}: {a}", m.name);
                s = s
                    .step(c, a)
                    .unwrap_or_else(|| panic!("{}: {a} disabled", m.name));
                assert_eq!(&s, t);
            }
            assert_eq!(s.violated(c), Some(*invariant), "{}", m.name);
        }
        // A liveness model's count is where TLC stopped once it found the
        // cycle: not a whole state space to compare.
        if r.outcome != Outcome::Pass || m.expected.starts_with("liveness:") {
            continue;
        }
        bad.extend(common::count_mismatches(m, r.distinct, r.depth));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
