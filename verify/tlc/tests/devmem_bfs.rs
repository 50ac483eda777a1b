//! The DevmemTokens model's breadth-first search against
//! specs/manifest.json: for every devmem-* model, the outcome it must have
//! (the first invariant violated, checked in the .cfg's order as TLC
//! does), and for a passing model TLC's `distinct_states` and `depth`.

mod common;

use ringlab_model::devmem::{self, tla, ModelCfg, State};
use ringlab_model::Outcome;

#[test]
fn devmem_model_matches_manifest() {
    // The deep tier is TLC's (make verify-deep): its models take minutes.
    let models: Vec<_> = common::manifest_models_with_prefix("DevmemTokens", "MCDevmem_")
        .expect("specs/manifest.json")
        .into_iter()
        .filter(|m| m.tier == "ci")
        .collect();
    assert!(models.len() >= 3, "{} devmem models", models.len());
    let mut bad = Vec::new();
    for m in &models {
        assert!(m.name.starts_with("devmem-"), "{}", m.name);
        let path = common::specs_dir().join(format!("mc/MCDevmem_{}.cfg", m.cfg));
        let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let r = devmem::explore(&cfg).unwrap_or_else(|e| panic!("{}: {e}", m.name));
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
            // The trace replays, only its last state is bad, and every
            // state prints.
            let mut s = trace.init.clone();
            for (a, t) in &trace.steps {
                assert_eq!(s.violated(c, &cfg.invariants), None, "{}: {a}", m.name);
                assert!(s.enabled(c).contains(a), "{}: {a} not enabled", m.name);
                s = s
                    .step(c, a)
                    .unwrap_or_else(|| panic!("{}: {a} disabled", m.name));
                assert_eq!(&s, t);
                assert!(s.type_ok(c), "{}: {a}", m.name);
            }
            assert_eq!(
                s.violated(c, &cfg.invariants),
                Some(*invariant),
                "{}",
                m.name
            );
            println!("{}", tla::state_conjunction(c, &s));
        }
        if r.outcome != Outcome::Pass {
            continue;
        }
        bad.extend(common::count_mismatches(m, r.distinct, r.depth));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
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
