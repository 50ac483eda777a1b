//! A Z3 proof's row in verify.json.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use ringlab_prove::{Expect, Outcome, ProofResult};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProofDoc {
    pub name: String,
    #[serde(default)]
    pub about: String,
    /// `proved` or `refuted`.
    pub expected: String,
    /// `proved`, `refuted` or `unknown`.
    pub outcome: String,
    /// The mutant whose arithmetic a refuted proof stands for.
    #[serde(default)]
    pub mutant: Option<String>,
    #[serde(default)]
    pub seconds: f64,
    /// A refutation's values, by variable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<BTreeMap<String, u64>>,
}

impl ProofDoc {
    pub fn ok(&self) -> bool {
        self.outcome == self.expected
    }
}

pub fn outcome_label(o: &Outcome) -> &'static str {
    match o {
        Outcome::Proved => "proved",
        Outcome::Refuted { .. } => "refuted",
        Outcome::Unknown(_) => "unknown",
    }
}

impl From<&ProofResult> for ProofDoc {
    fn from(r: &ProofResult) -> ProofDoc {
        ProofDoc {
            name: r.name.clone(),
            about: r.about.clone(),
            expected: match r.expect {
                Expect::Proved => "proved",
                Expect::Refuted => "refuted",
            }
            .into(),
            outcome: outcome_label(&r.outcome).into(),
            mutant: r.mutant.clone(),
            seconds: r.seconds,
            counterexample: match &r.outcome {
                Outcome::Refuted { counterexample } => Some(counterexample.iter().cloned().collect()),
                _ => None,
            },
        }
    }
}
