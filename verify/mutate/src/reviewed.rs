//! reviewed.json: what a reviewer decided about mutants no check kills.
//! `equivalent` lists mutants that change no behaviour a check could
//! observe, each with the edit reviewed (`what`) and a one-line reason;
//! `skip` lists definitions the TLA+ mutator leaves alone, each with a
//! reason.
//!
//! An id is a place in a spec or crate (`Spec.tla/Def/op/k`), and it
//! moves when the text around it changes: the same id can come to name
//! another edit. So a review holds only while the id still makes the edit
//! that was reviewed; otherwise it is stale and the mutant is reported as
//! surviving, with both edits named.

use std::path::Path;

use ringlab_results::mutation::Verdict;
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
    /// The edit reviewed, as the campaign prints it.
    pub what: String,
    pub reason: String,
}

/// What reviewed.json says of one mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Review<'a> {
    /// Reviewed as equivalent, for this reason.
    Equivalent(&'a str),
    /// Reviewed when the id made another edit (`listed`).
    Stale { listed: &'a str },
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
            if e.what.trim().is_empty() {
                return Err(format!("equivalent {}: no `what` (the edit reviewed, as `ringlab mutate --list` prints it)", e.id));
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

    /// The review of the mutant `id` that makes the edit `what`, if any.
    pub fn review(&self, id: &str, what: &str) -> Option<Review<'_>> {
        let e = self.equivalent.iter().find(|e| e.id == id)?;
        Some(if e.what == what { Review::Equivalent(&e.reason) } else { Review::Stale { listed: &e.what } })
    }

    /// Applies the review of one run: a survivor reviewed as equivalent
    /// becomes Equivalent; a killed one keeps its verdict and says it was
    /// listed; a stale review changes nothing but the detail.
    pub fn apply(&self, id: &str, what: &str, verdict: &mut Verdict, detail: &mut String) {
        match self.review(id, what) {
            None => {}
            Some(Review::Equivalent(reason)) if *verdict == Verdict::Survived => {
                *verdict = Verdict::Equivalent;
                *detail = reason.to_string();
            }
            Some(Review::Equivalent(_)) => *detail = format!("listed as equivalent, yet {detail}"),
            Some(Review::Stale { listed }) => {
                *detail = format!("{detail}; the review of {id} is stale: it was of {listed}, this id now makes {what}: review it again")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_needs_a_reason_and_one_entry() {
        assert!(Reviewed::parse(r#"{"equivalent": [{"id": "a", "what": "w", "reason": " "}]}"#).is_err());
        assert!(Reviewed::parse(r#"{"equivalent": [{"id": "a", "what": "", "reason": "r"}]}"#).unwrap_err().contains("what"));
        assert!(Reviewed::parse(r#"{"equivalent": [{"id": "a", "reason": "r"}]}"#).is_err());
        let twice = r#"{"equivalent": [{"id": "a", "what": "w", "reason": "x"}, {"id": "a", "what": "w", "reason": "y"}]}"#;
        assert!(Reviewed::parse(twice).unwrap_err().contains("twice"));
        let r = Reviewed::parse(r#"{"skip": [{"spec": "S.tla", "def": "TypeOK", "reason": "types"}]}"#).unwrap();
        assert!(r.skipped("S.tla", "TypeOK") && !r.skipped("S.tla", "Next"));
    }

    #[test]
    fn a_review_holds_only_for_the_edit_reviewed() {
        let r = Reviewed::parse(r#"{"equivalent": [{"id": "S.tla/D/flip-compare/0", "what": "`<` -> `<=`", "reason": "same pick"}]}"#).unwrap();
        let run = |what: &str, v: Verdict| {
            let (mut v, mut d) = (v, "every model as expected".to_string());
            r.apply("S.tla/D/flip-compare/0", what, &mut v, &mut d);
            (v, d)
        };
        assert_eq!(run("`<` -> `<=`", Verdict::Survived), (Verdict::Equivalent, "same pick".to_string()));
        let (v, d) = run("`=` -> `#`", Verdict::Survived);
        assert_eq!(v, Verdict::Survived);
        assert!(d.contains("stale") && d.contains("`<` -> `<=`") && d.contains("`=` -> `#`"), "{d}");
        let (v, d) = run("`<` -> `<=`", Verdict::Killed);
        assert_eq!(v, Verdict::Killed);
        assert!(d.starts_with("listed as equivalent, yet"), "{d}");
        assert_eq!(r.review("S.tla/D/flip-compare/1", "x"), None);
    }

    #[test]
    fn the_repository_file_reads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        Reviewed::load(&root).unwrap();
    }

    /// A spec edit that moves an id makes its review stale: this names it
    /// when the edit is made, not after hours of campaign.
    #[test]
    fn every_spec_review_names_a_mutant_the_spec_still_makes() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let r = Reviewed::load(&root).unwrap();
        for e in r.equivalent.iter().filter(|e| e.id.contains(".tla/")) {
            let spec = e.id.split('/').next().unwrap();
            let text = std::fs::read_to_string(root.join("specs").join(spec)).unwrap();
            let made = crate::tla::mutants(spec, &text).into_iter().find(|m| m.id == e.id);
            let made = made.unwrap_or_else(|| panic!("{}: {} no longer makes this mutant; remove or move its review", Reviewed::FILE, e.id));
            assert_eq!(made.what, e.what, "{}: the review of {} is stale", Reviewed::FILE, e.id);
        }
    }
}
