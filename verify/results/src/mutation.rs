//! The automatic mutation campaign's results (`ringlab mutate`, and the
//! fixed sample `ringlab verify` runs): per spec and per crate, how many
//! mutants the checks killed, and every mutant with its verdict.

use serde::{Deserialize, Serialize};

/// The share of non-equivalent, viable mutants a spec or crate must kill.
pub const GOAL: f64 = 0.90;

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// A check's outcome changed.
    Killed,
    /// A check did not finish within its limit (counted as killed: the
    /// mutant changed what the check explores).
    Timeout,
    /// Every check kept its outcome.
    Survived,
    /// The mutant does not parse or build: not counted.
    Unviable,
    /// Listed in reviewed.json as equivalent, with its reason: not counted.
    Equivalent,
}

impl Verdict {
    pub fn caught(self) -> bool {
        matches!(self, Verdict::Killed | Verdict::Timeout)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MutationRun {
    /// `Spec.tla/Definition/operator/k`, or cargo-mutants' name.
    pub id: String,
    /// The spec file or crate it belongs to.
    pub group: String,
    /// The operator (TLA+) or cargo-mutants' genre.
    pub op: String,
    /// File and line of the change.
    pub at: String,
    pub what: String,
    pub verdict: Verdict,
    /// The check that killed it and how, the unviable one's error, or the
    /// equivalent one's reason.
    pub detail: String,
    pub seconds: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Score {
    pub group: String,
    /// `spec` or `crate`.
    pub kind: String,
    pub total: usize,
    pub killed: usize,
    pub timeout: usize,
    pub survived: usize,
    pub unviable: usize,
    pub equivalent: usize,
}

impl Score {
    /// Killed (or timed out) over the mutants that count.
    pub fn ratio(&self) -> Option<f64> {
        let counted = self.killed + self.timeout + self.survived;
        (counted > 0).then(|| (self.killed + self.timeout) as f64 / counted as f64)
    }

    pub fn meets_goal(&self) -> bool {
        self.ratio().is_none_or(|r| r >= GOAL)
    }

    pub fn add(&mut self, v: Verdict) {
        self.total += 1;
        match v {
            Verdict::Killed => self.killed += 1,
            Verdict::Timeout => self.timeout += 1,
            Verdict::Survived => self.survived += 1,
            Verdict::Unviable => self.unviable += 1,
            Verdict::Equivalent => self.equivalent += 1,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MutationDoc {
    /// `sample` (a fixed few per spec and crate) or `full`.
    pub scope: String,
    pub scores: Vec<Score>,
    pub runs: Vec<MutationRun>,
    /// Entries of reviewed.json that matched no mutant or whose mutant a
    /// check now kills: to be removed.
    #[serde(default)]
    pub stale_reviews: Vec<String>,
    /// Why the campaign could not run, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl MutationDoc {
    /// Scores per group from the runs, in the order groups first appear.
    pub fn tally(runs: &[MutationRun], kind_of: impl Fn(&str) -> &'static str) -> Vec<Score> {
        let mut scores: Vec<Score> = Vec::new();
        for r in runs {
            let i = match scores.iter().position(|s| s.group == r.group) {
                Some(i) => i,
                None => {
                    scores.push(Score {
                        group: r.group.clone(),
                        kind: kind_of(&r.group).to_string(),
                        ..Score::default()
                    });
                    scores.len() - 1
                }
            };
            scores[i].add(r.verdict);
        }
        scores
    }

    /// Every mutant killed, timed out, unviable or reviewed as
    /// equivalent, and no review stale: what a sample must show.
    pub fn sample_ok(&self) -> bool {
        self.error.is_none() && self.survivors().next().is_none() && self.stale_reviews.is_empty()
    }

    /// The survivors: what a reviewer reads first.
    pub fn survivors(&self) -> impl Iterator<Item = &MutationRun> {
        self.runs.iter().filter(|r| r.verdict == Verdict::Survived)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(group: &str, verdict: Verdict) -> MutationRun {
        MutationRun {
            id: format!("{group}/x"),
            group: group.into(),
            op: "flip-compare".into(),
            at: "X.tla:1".into(),
            what: String::new(),
            verdict,
            detail: String::new(),
            seconds: 0.0,
        }
    }

    #[test]
    fn unviable_and_equivalent_do_not_count() {
        use Verdict::*;
        let runs: Vec<_> = [Killed, Timeout, Survived, Unviable, Equivalent, Killed]
            .into_iter()
            .map(|v| run("A.tla", v))
            .collect();
        let s = MutationDoc::tally(&runs, |_| "spec");
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].total, s[0].killed, s[0].timeout, s[0].survived), (6, 2, 1, 1));
        assert_eq!(s[0].ratio(), Some(0.75));
        assert!(!s[0].meets_goal());
    }
}
