//! `ringlab-trace/1`, the trace format of the report and the ring explorer
//! (verify/report/assets/README.md): TLC counterexamples and simulator runs
//! in one shape, variables as JSON values.

mod sim;
mod tlc;

use std::fmt::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use sim::from_sim;
pub use tlc::{from_tlc, ring_of_cfg, tla_to_json};

pub const FORMAT: &str = "ringlab-trace/1";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RingTrace {
    pub format: String,
    /// `tlc-counterexample`, `sim-trace`, ...
    pub kind: String,
    pub title: String,
    /// Where it came from: the cfg of a model, the simulator's trace file.
    pub source: String,
    pub outcome: Option<String>,
    pub expected: Option<String>,
    /// None for a spec without a ring.
    pub ring: Option<Ring>,
    pub loop_end: Option<LoopEnd>,
    pub states: Vec<Step>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ring {
    pub size: u64,
    /// The idx of a slot never stored into; also the counters' modulus.
    pub never: u64,
    pub prod_side: String,
    pub cons_side: String,
    /// What else the source says about the run (a simulator's seed, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How a liveness counterexample ends: `"stuttering"` or `{"back_to": N}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopEnd {
    Stuttering,
    BackTo(u64),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub num: u64,
    /// The spec action that led to this state (`Init` for the first).
    pub action: String,
    pub vars: Map<String, Value>,
    /// Who took the action (the manifest's `specs.<spec>.actors`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

impl RingTrace {
    /// The JSON text: the header pretty, one line per state.
    pub fn to_json_text(&self) -> String {
        let mut out = String::from("{\n");
        let head: [(&str, String); 8] = [
            ("format", j(&self.format)),
            ("kind", j(&self.kind)),
            ("title", j(&self.title)),
            ("source", j(&self.source)),
            ("outcome", j(&self.outcome)),
            ("expected", j(&self.expected)),
            ("ring", j(&self.ring)),
            ("loop_end", j(&self.loop_end)),
        ];
        for (k, v) in head {
            let _ = writeln!(out, "  \"{k}\": {v},");
        }
        out.push_str("  \"states\": [\n");
        for (i, s) in self.states.iter().enumerate() {
            let line = serde_json::to_string(s).expect("a state is JSON");
            let comma = if i + 1 < self.states.len() { "," } else { "" };
            let _ = writeln!(out, "    {line}{comma}");
        }
        out.push_str("  ]\n}\n");
        out
    }

    /// Reads a saved trace; refuses other formats, saying which.
    pub fn load(path: &Path) -> Result<RingTrace, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        match v.get("format").and_then(Value::as_str) {
            Some(FORMAT) => {}
            Some(other) => return Err(format!("{}: format `{other}`, not {FORMAT}", path.display())),
            None => {
                return Err(format!(
                    "{}: an older trace without \"format\" (rerun `ringlab check` to save it as {FORMAT})",
                    path.display()
                ))
            }
        }
        serde_json::from_value(v).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The counters' modulus: `ring.never`, else 2^32.
    pub fn modulus(&self) -> u64 {
        self.ring.as_ref().map(|r| r.never).filter(|m| *m > 0).unwrap_or(1 << 32)
    }
}

/// A field as compact JSON.
fn j<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializable")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> RingTrace {
        RingTrace {
            format: FORMAT.into(),
            kind: "tlc-counterexample".into(),
            title: "t".into(),
            source: "specs/mc/X.cfg".into(),
            outcome: Some("liveness:P".into()),
            expected: Some("liveness:P".into()),
            ring: Some(Ring { size: 2, never: 8, prod_side: "user".into(), cons_side: "kernel".into(), extra: Map::new() }),
            loop_end: Some(LoopEnd::BackTo(2)),
            states: vec![Step { num: 1, action: "Init".into(), vars: json!({"prod": 0}).as_object().unwrap().clone(), actor: None }],
        }
    }

    #[test]
    fn loop_end_has_the_documented_shape() {
        let v = serde_json::to_value(sample()).unwrap();
        assert_eq!(v["loop_end"], json!({"back_to": 2}));
        assert_eq!(serde_json::to_value(LoopEnd::Stuttering).unwrap(), json!("stuttering"));
        assert_eq!(v["format"], json!("ringlab-trace/1"));
        assert_eq!(v["ring"], json!({"size": 2, "never": 8, "prod_side": "user", "cons_side": "kernel"}));
    }

    #[test]
    fn text_reads_back_one_line_per_state() {
        let t = sample();
        let text = t.to_json_text();
        assert!(text.contains("\n    {\"num\":1,\"action\":\"Init\",\"vars\":{\"prod\":0}}\n"), "{text}");
        let dir = std::env::temp_dir().join(format!("ringlab-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.json");
        std::fs::write(&p, &text).unwrap();
        assert_eq!(RingTrace::load(&p).unwrap(), t);
        std::fs::write(&p, r#"{"states": []}"#).unwrap();
        assert!(RingTrace::load(&p).unwrap_err().contains("older trace"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
