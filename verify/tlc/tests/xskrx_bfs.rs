//! The XskRx model's breadth-first search against specs/manifest.json:
//! for every ci-tier model of XskRx.tla and XskRedirectXsk.tla, the
//! outcome it must have (the first invariant violated, checked in the
//! .cfg's order as TLC does, or the Refinement property), and for a
//! passing model TLC's `distinct_states` and `depth` under SYMMETRY Perms.

mod common;

use ringlab_model::explore::{bfs, SpecMachine};
use ringlab_model::xsk_rx::{self, refinement, tla, Machine, ModelCfg, State};
use ringlab_model::Outcome;

#[test]
fn xsk_rx_model_matches_manifest() {
    let mut models = Vec::new();
    for module in ["XskRx", "XskRedirectXsk"] {
        let of = common::manifest_models_of(module).expect("specs/manifest.json");
        models.extend(
            of.into_iter()
                .filter(|m| m.tier == "ci")
                .map(|m| (module, m)),
        );
    }
    assert!(models.len() >= 18, "{} xsk-rx models", models.len());
    let mut bad = Vec::new();
    for (module, m) in &models {
        assert!(m.name.starts_with("xsk-r"), "{}", m.name);
        let path = common::specs_dir().join(format!("mc/MC{module}_{}.cfg", m.cfg));
        let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let machine = Machine::from_model_cfg(&cfg).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let r = bfs(&machine, cfg.check_deadlock, None);
        println!(
            "{}: {}, {} distinct states, depth {}, {:.1} s (manifest: {}, {:?}, {:?})",
            m.name,
            r.outcome.summary(),
            r.distinct,
            r.depth,
            r.elapsed.as_secs_f64(),
            m.expected,
            m.distinct_states,
            m.depth
        );
        bad.extend(common::outcome_mismatch(m, &r.outcome.summary()));
        let c = &machine.config;
        if let Outcome::Violation { invariant, trace } = &r.outcome {
            // The trace replays under the model's next-state relation;
            // only its last state, or for Refinement its last step, is bad.
            let mut s = trace.init.clone();
            let last = trace.steps.len();
            for (n, (a, t)) in trace.steps.iter().enumerate() {
                assert_eq!(s.violated(c, &cfg.invariants), None, "{}: {a}", m.name);
                assert!(
                    machine.successors(&s).iter().any(|(b, u)| b == a && u == t),
                    "{}: {a} does not lead to the trace's next state",
                    m.name
                );
                if let Some(abs) = &machine.refinement {
                    let ok = refinement::refines_step(abs, &s, a, t);
                    let want = !(n + 1 == last && *invariant == "Refinement");
                    assert_eq!(ok, want, "{}: step {} ({a})", m.name, n + 1);
                }
                s = t.clone();
            }
            if *invariant != "Refinement" {
                assert_eq!(
                    s.violated(c, &cfg.invariants),
                    Some(*invariant),
                    "{}",
                    m.name
                );
            }
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
    for cfg in [
        xsk_rx::Config::driver(),
        xsk_rx::Config::generic(),
        xsk_rx::Config::fast(),
    ] {
        let init = State::init(&cfg);
        let acts = init.enabled(&cfg);
        assert!(!acts.is_empty());
        for a in &acts {
            let t = init.step(&cfg, a).unwrap();
            assert_eq!(t == init, matches!(a, xsk_rx::Action::Done), "{a}");
        }
    }
}
