//! A TLC counterexample as a ringlab-trace/1: TLC's printed values parsed
//! and turned into JSON, the ring read from the model's cfg.

use std::path::Path;

use ringlab_model::tla::{parse_value, Value as Tla};
use ringlab_model::ModelCfg;
use crate::{LoopEnd as TlcLoopEnd, TlcResult};
use serde_json::{Map, Value};

use super::{LoopEnd, Ring, RingTrace, Step, FORMAT};

/// `title` names the model, `source` its cfg as shown, `cfg` the file read
/// for the ring (none if it is not an xsk ring cfg).
pub fn from_tlc(title: &str, source: &str, expected: &str, cfg: &Path, r: &TlcResult) -> RingTrace {
    let states = r
        .trace
        .iter()
        .map(|s| Step {
            num: s.num as u64,
            action: if s.action == "Initial predicate" { "Init".into() } else { s.action.clone() },
            vars: s
                .vars
                .iter()
                .map(|(n, text)| (n.clone(), parse_value(text).map(|v| tla_to_json(&v)).unwrap_or_else(|_| text.clone().into())))
                .collect(),
            actor: None,
        })
        .collect();
    RingTrace {
        format: FORMAT.into(),
        kind: "tlc-counterexample".into(),
        title: title.into(),
        source: source.into(),
        outcome: Some(r.outcome.label()),
        expected: Some(expected.into()),
        ring: ring_of_cfg(cfg),
        loop_end: r.loop_end.as_ref().map(|l| match l {
            TlcLoopEnd::Stuttering => LoopEnd::Stuttering,
            TlcLoopEnd::BackTo(n) => LoopEnd::BackTo(*n as u64),
        }),
        states,
    }
}

/// The ring an XskRing cfg describes; None for any other cfg.
pub fn ring_of_cfg(cfg: &Path) -> Option<Ring> {
    let c = ModelCfg::from_file(cfg).ok()?.config;
    Some(Ring {
        size: c.size,
        never: c.m(),
        prod_side: c.prod_side.id().into(),
        cons_side: c.cons_side.id().into(),
        extra: Map::new(),
    })
}

/// Functions over 0..n-1 and sequences become arrays, records objects,
/// sets arrays; any other function an object keyed by its printed domain.
pub fn tla_to_json(v: &Tla) -> Value {
    match v {
        Tla::Bool(b) => Value::Bool(*b),
        Tla::Int(i) => Value::from(*i),
        Tla::Str(s) => Value::from(s.as_str()),
        Tla::Record(r) => Value::Object(r.iter().map(|(k, v)| (k.clone(), tla_to_json(v))).collect()),
        Tla::Seq(s) => Value::Array(s.iter().map(tla_to_json).collect()),
        Tla::Set(s) => Value::Array(s.iter().map(tla_to_json).collect()),
        Tla::Func(f) => {
            let dense = f.keys().enumerate().all(|(i, k)| k.as_int() == Some(i as i64));
            if dense {
                Value::Array(f.values().map(tla_to_json).collect())
            } else {
                Value::Object(
                    f.iter()
                        .map(|(k, v)| (k.as_str().map(str::to_string).unwrap_or_else(|| k.to_string()), tla_to_json(v)))
                        .collect(),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Outcome, TraceState};
    use serde_json::json;

    fn specs() -> std::path::PathBuf {
        ringlab_model::paths::specs_dir()
    }

    fn result(vars: &[(&str, &str)]) -> TlcResult {
        TlcResult {
            outcome: Outcome::Violation("ReadsPublished".into()),
            distinct_states: Some(1),
            states_generated: None,
            depth: None,
            seconds: 0.0,
            trace: vec![TraceState {
                num: 1,
                action: "Initial predicate".into(),
                vars: vars.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
            }],
            loop_end: Some(TlcLoopEnd::Stuttering),
            exit_code: Some(12),
            actions: Vec::new(),
        }
    }

    #[test]
    fn values_become_json() {
        let r = result(&[
            ("slot", "(0 :> [idx |-> 8, ok |-> TRUE] @@ 1 :> [idx |-> 3, ok |-> FALSE])"),
            ("own", "(0 :> \"free\" @@ 1 :> \"written\")"),
            ("prod", "2"),
            ("odd", "(1 :> 5 @@ 3 :> 6)"),
            ("s", "{1, 2}"),
            ("bad", "(unparsable"),
        ]);
        let cfg = specs().join("mc/MCXskRing_NoD.cfg");
        let t = from_tlc("xsk-ring-no-d", "specs/mc/MCXskRing_NoD.cfg", "violation:ReadsPublished", &cfg, &r);
        let v = &t.states[0].vars;
        assert_eq!(t.states[0].action, "Init");
        assert_eq!(v["slot"], json!([{"idx": 8, "ok": true}, {"idx": 3, "ok": false}]));
        assert_eq!(v["own"], json!(["free", "written"]));
        assert_eq!(v["prod"], json!(2));
        assert_eq!(v["odd"], json!({"1": 5, "3": 6}));
        assert_eq!(v["s"], json!([1, 2]));
        assert_eq!(v["bad"], json!("(unparsable"));
        let ring = t.ring.unwrap();
        assert_eq!((ring.size, ring.never, ring.prod_side.as_str(), ring.cons_side.as_str()), (2, 8, "user", "kernel"));
        assert_eq!(t.loop_end, Some(LoopEnd::Stuttering));
        assert_eq!(t.outcome.as_deref(), Some("violation:ReadsPublished"));
    }

    #[test]
    fn a_cfg_without_a_ring_gives_no_ring() {
        let dir = std::env::temp_dir().join(format!("ringlab-noring-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = dir.join("Other.cfg");
        std::fs::write(&cfg, "CONSTANTS\n    N = 3\nSPECIFICATION Spec\n").unwrap();
        let t = from_tlc("other", "specs/mc/Other.cfg", "deadlock", &cfg, &result(&[("x", "<<1, 2>>")]));
        assert_eq!(t.ring, None);
        assert_eq!(t.states[0].vars["x"], json!([1, 2]));
        assert!(t.to_json_text().contains("\"ring\": null,"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
