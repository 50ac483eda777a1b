//! A plain spec's reference model (ringlab_model::explore::PlainSpec:
//! devmem, iouring_zc, napi_cache) against specs/manifest.json: for every
//! model of a tier, the outcome it must have (the first invariant
//! violated, checked in the .cfg's order as TLC does; a liveness model's
//! safety part passes) and TLC's `distinct_states` and `depth`, for a
//! violation too (the model takes successors in TLC's order and TLC
//! checks those models on one worker). A violation's trace replays from
//! Init through steps of Next, every state TypeOK, only its last bad. A
//! liveness model's count is where TLC stopped once it found the cycle,
//! a part of the space the model searches whole.

use std::fmt::Display;

use ringlab_model::explore::{bfs, Machine, PlainSpec, SpecMachine};
use ringlab_model::Outcome;

/// Checks the `tier` models of `spec` (their configs `mc/<prefix>*.cfg`),
/// printing each and, for a violation, its trace and last state
/// (`print`); the counts of violating models too when `violation_counts`;
/// the models checked.
pub fn matches_manifest<S: PlainSpec>(
    spec: &str,
    prefix: &str,
    tier: &str,
    violation_counts: bool,
    print: fn(&S::Config, &S) -> String,
) -> Vec<super::ManifestModel>
where
    S::Action: Display + PartialEq,
    S::Config: ringlab_model::cfg::Constants,
{
    let models: Vec<_> = super::manifest_models_with_prefix(spec, prefix)
        .expect("specs/manifest.json")
        .into_iter()
        .filter(|m| m.tier == tier)
        .collect();
    assert!(!models.is_empty(), "no {tier} {spec} models");
    let mut bad = Vec::new();
    for m in &models {
        let path = super::specs_dir().join(format!("mc/{prefix}{}.cfg", m.cfg));
        let cfg = ringlab_model::cfg::ModelCfg::<S::Config>::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let machine = Machine::<S>::from_model_cfg(&cfg).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let r = bfs(&machine, cfg.check_deadlock, None);
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
        bad.extend(super::outcome_mismatch(m, &r.outcome.summary()));
        let c = &cfg.config;
        if let Outcome::Violation { invariant, trace } = &r.outcome {
            let mut s = trace.init.clone();
            assert!(s == S::init(c), "{}: the trace does not start at Init", m.name);
            for (a, t) in &trace.steps {
                assert_eq!(machine.first_violated(&s), None, "{}: {a}", m.name);
                let next = s.successors(c).into_iter().find(|(b, _)| b == a);
                let (_, u) = next.unwrap_or_else(|| panic!("{}: {a} not enabled", m.name));
                assert!(&u == t, "{}: {a} reaches another state", m.name);
                assert!(u.type_ok(c), "{}: {a}", m.name);
                s = u;
                println!("  {a}");
            }
            assert_eq!(machine.first_violated(&s), Some(*invariant), "{}", m.name);
            println!("{}", print(c, &s));
        }
        if m.expected.starts_with("liveness:") {
            if m.distinct_states.is_some_and(|d| d > r.distinct) {
                bad.push(format!("{}: TLC saw {:?} states of {} the model finds", m.name, m.distinct_states, r.distinct));
            }
            continue;
        }
        if violation_counts || r.outcome == Outcome::Pass {
            bad.extend(super::count_mismatches(m, r.distinct, r.depth));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    models
}
