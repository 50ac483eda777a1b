//! The mutation campaign's results: per mutant, every check the manifest
//! names and what it did.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Kill {
    Killed,
    Survived,
    Error,
    /// Not run: a cheaper Rust check already killed the mutant and the
    /// run asked for the first kill only (`--first-kill`, make test).
    Skipped,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckRun {
    pub check: String,
    pub result: Kill,
    pub detail: String,
    pub seconds: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutantResult {
    pub id: String,
    pub kind: String,
    pub bug: String,
    #[serde(default)]
    pub year: Option<u32>,
    #[serde(default)]
    pub what: String,
    #[serde(default)]
    pub link: Option<String>,
    pub killed_by: Vec<String>,
    pub checks: Vec<CheckRun>,
}

impl MutantResult {
    /// Killed, and by every check that ran; a skipped check stands for
    /// one of its layer (spec or Rust) that killed it.
    pub fn ok(&self) -> bool {
        !self.killed_by.is_empty() && self.checks.iter().all(|c| matches!(c.result, Kill::Killed | Kill::Skipped))
    }
}


/// A mutant's row in verify.json: its result and whether every check
/// killed it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutantDoc {
    #[serde(flatten)]
    pub result: MutantResult,
    pub ok: bool,
}

impl From<&MutantResult> for MutantDoc {
    fn from(r: &MutantResult) -> MutantDoc {
        MutantDoc { result: r.clone(), ok: r.ok() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mutant(checks: &[Kill]) -> MutantResult {
        let checks: Vec<CheckRun> = checks
            .iter()
            .enumerate()
            .map(|(i, k)| CheckRun { check: format!("check{i}"), result: k.clone(), detail: String::new(), seconds: 0.0 })
            .collect();
        MutantResult {
            id: "m".into(),
            kind: "k".into(),
            bug: "b".into(),
            year: None,
            what: String::new(),
            link: None,
            killed_by: checks.iter().filter(|c| c.result == Kill::Killed).map(|c| c.check.clone()).collect(),
            checks,
        }
    }

    #[test]
    fn a_skipped_check_beside_a_kill_holds_nothing_else_does() {
        assert!(mutant(&[Kill::Killed, Kill::Skipped]).ok());
        assert!(!mutant(&[Kill::Skipped]).ok(), "nothing killed it");
        assert!(!mutant(&[Kill::Killed, Kill::Skipped, Kill::Survived]).ok());
        assert!(!mutant(&[Kill::Killed, Kill::Error]).ok());
    }
}
