//! reviewed.json: what a reviewer decided about mutants no check kills.
//! `equivalent` lists mutants that change no behaviour a check could
//! observe, each with a one-line reason; `skip` lists definitions the
//! TLA+ mutator leaves alone, each with a reason.

use std::path::Path;

use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
pub struct Reviewed {
    #[serde(default)]
    pub skip: Vec<Skip>,
    #[serde(default)]
    pub equivalent: Vec<Equivalent>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Skip {
    pub spec: String,
    pub def: String,
    pub reason: String,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Equivalent {
    pub id: String,
    pub reason: String,
}

impl Reviewed {
    pub const FILE: &'static str = "verify/mutate/reviewed.json";

    /// Reads `root/verify/mutate/reviewed.json`; every entry must give a
    /// reason.
    pub fn load(root: &Path) -> Result<Reviewed, String> {
        let path = root.join(Self::FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Reviewed, String> {
        let r: Reviewed = serde_json::from_str(text).map_err(|e| e.to_string())?;
        for s in &r.skip {
            if s.reason.trim().is_empty() {
                return Err(format!("skip {}/{}: no reason", s.spec, s.def));
            }
        }
        for e in &r.equivalent {
            if e.reason.trim().is_empty() {
                return Err(format!("equivalent {}: no reason", e.id));
            }
        }
        let mut ids: Vec<&str> = r.equivalent.iter().map(|e| e.id.as_str()).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("equivalent {}: listed twice", w[0]));
        }
        Ok(r)
    }

    pub fn skipped(&self, spec: &str, def: &str) -> bool {
        self.skip.iter().any(|s| s.spec == spec && s.def == def)
    }

    pub fn equivalent(&self, id: &str) -> Option<&str> {
        self.equivalent.iter().find(|e| e.id == id).map(|e| e.reason.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_needs_a_reason_and_one_entry() {
        assert!(Reviewed::parse(r#"{"equivalent": [{"id": "a", "reason": " "}]}"#).is_err());
        let twice = r#"{"equivalent": [{"id": "a", "reason": "x"}, {"id": "a", "reason": "y"}]}"#;
        assert!(Reviewed::parse(twice).unwrap_err().contains("twice"));
        let r = Reviewed::parse(r#"{"skip": [{"spec": "S.tla", "def": "TypeOK", "reason": "types"}]}"#).unwrap();
        assert!(r.skipped("S.tla", "TypeOK") && !r.skipped("S.tla", "Next"));
    }

    #[test]
    fn the_repository_file_reads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        Reviewed::load(&root).unwrap();
    }
}
