//! The IoUringZcNotif model's breadth-first search against
//! specs/manifest.json: for every ci model of the spec, the outcome it
//! must have (the first invariant violated, checked in the .cfg's order
//! as TLC does), and TLC's `distinct_states` and `depth`: for a violation
//! too, since the model takes successors in TLC's order and TLC checks
//! those models on one worker.

mod common;

use ringlab_model::iouring_zc::{self, tla, ModelCfg, State};
use ringlab_model::Outcome;

#[test]
fn iouring_model_matches_manifest() {
    let models: Vec<_> = common::manifest_models_with_prefix("IoUringZcNotif", "MCIoUringZcNotif")
        .expect("specs/manifest.json")
        .into_iter()
        .filter(|m| m.tier == "ci")
        .collect();
    assert!(models.len() >= 2, "{} io_uring zc models", models.len());
    let mut bad = Vec::new();
    for m in &models {
        let path = common::specs_dir().join(format!("mc/MCIoUringZcNotif{}.cfg", m.cfg));
        let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let r = iouring_zc::explore(&cfg).unwrap_or_else(|e| panic!("{}: {e}", m.name));
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
            assert_eq!(s, State::init(c), "{}", m.name);
            for (a, t) in &trace.steps {
                assert_eq!(s.violated(c, &cfg.invariants), None, "{}: {a}", m.name);
                assert!(s.enabled(c).contains(a), "{}: {a} not enabled", m.name);
                s = s
                    .step(c, a)
                    .unwrap_or_else(|| panic!("{}: {a} disabled", m.name));
                assert_eq!(&s, t);
                assert!(s.type_ok(c), "{}: {a}", m.name);
                println!("  {a}");
            }
            assert_eq!(
                s.violated(c, &cfg.invariants),
                Some(*invariant),
                "{}",
                m.name
            );
            println!("{}", tla::state_conjunction(c, &s));
        }
        bad.extend(common::count_mismatches(m, r.distinct, r.depth));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// enabled() and step() agree: every enabled action steps, the candidates
/// left out do not, and Done is the only stutter, along a run that picks
/// its actions in a fixed spread over the enabled ones.
#[test]
fn enabled_actions_step() {
    for cfg in [iouring_zc::Config::zc_notif(), iouring_zc::Config::batch1()] {
        let mut s = State::init(&cfg);
        for i in 0..60 {
            let acts = s.enabled(&cfg);
            assert!(!acts.is_empty());
            for a in s.candidate_actions(&cfg) {
                let t = s.step(&cfg, &a);
                assert_eq!(t.is_some(), acts.contains(&a), "{a}");
                if let Some(t) = t {
                    assert_eq!(t == s, a == iouring_zc::Action::Done, "{a}");
                }
            }
            s = s.step(&cfg, &acts[i * 7 % acts.len()]).unwrap();
        }
    }
}
