//! The spec actions the simulator performs, and how a step can end.

use std::fmt;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::harness::Violation;

/// One action of `specs/XskRing.tla` that a simulator step performs.
/// ProdWriteAhead and ConsReadAhead are spec-only: they model a missing
/// barrier, which a step on one thread cannot show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    ProdReserve,
    ProdWrite,
    ProdSubmit,
    ProdCancel,
    ConsPeek,
    ConsPeekBatch,
    ConsRead,
    ConsRelease,
    ConsPublish,
}

impl Action {
    pub const ALL: [Action; 9] = [
        Action::ProdReserve,
        Action::ProdWrite,
        Action::ProdSubmit,
        Action::ProdCancel,
        Action::ConsPeek,
        Action::ConsPeekBatch,
        Action::ConsRead,
        Action::ConsRelease,
        Action::ConsPublish,
    ];

    /// The action's name in the spec (and in traces).
    pub fn spec_name(self) -> &'static str {
        match self {
            Action::ProdReserve => "ProdReserve",
            Action::ProdWrite => "ProdWrite",
            Action::ProdSubmit => "ProdSubmit",
            Action::ProdCancel => "ProdCancel",
            Action::ConsPeek => "ConsPeek",
            Action::ConsPeekBatch => "ConsPeekBatch",
            Action::ConsRead => "ConsRead",
            Action::ConsRelease => "ConsRelease",
            Action::ConsPublish => "ConsPublish",
        }
    }

    pub fn from_spec_name(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.spec_name() == name)
    }

    pub fn is_producer(self) -> bool {
        matches!(
            self,
            Action::ProdReserve | Action::ProdWrite | Action::ProdSubmit | Action::ProdCancel
        )
    }

    fn index(self) -> usize {
        Action::ALL.iter().position(|a| *a == self).unwrap()
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spec_name())
    }
}

/// An action with its parameter, as the scheduler picks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    ProdReserve(u32),
    /// The entry's validity (tx descriptors only may be invalid).
    ProdWrite(bool),
    ProdSubmit(u32),
    ProdCancel(u32),
    ConsPeek(u32),
    ConsPeekBatch(u32),
    ConsRead,
    /// The user side releases n; the kernel side releases its whole peek.
    ConsRelease(u32),
    ConsPublish,
}

/// As the spec names the action (the trace's action).
impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.action().spec_name())
    }
}

impl Choice {
    pub fn action(self) -> Action {
        match self {
            Choice::ProdReserve(_) => Action::ProdReserve,
            Choice::ProdWrite(_) => Action::ProdWrite,
            Choice::ProdSubmit(_) => Action::ProdSubmit,
            Choice::ProdCancel(_) => Action::ProdCancel,
            Choice::ConsPeek(_) => Action::ConsPeek,
            Choice::ConsPeekBatch(_) => Action::ConsPeekBatch,
            Choice::ConsRead => Action::ConsRead,
            Choice::ConsRelease(_) => Action::ConsRelease,
            Choice::ConsPublish => Action::ConsPublish,
        }
    }
}

/// A step that did not happen, or happened and broke a property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepError {
    /// The spec's guard is false (or a parameter is out of its range):
    /// nothing changed.
    Disabled,
    /// The step ran and the state it left breaks a property.
    Violation(Violation),
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Disabled => f.write_str("action not enabled"),
            StepError::Violation(v) => v.fmt(f),
        }
    }
}

impl std::error::Error for StepError {}

/// Steps taken, per action.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts([u64; 9]);

impl Counts {
    pub fn add(&mut self, a: Action) {
        self.0[a.index()] += 1;
    }
    pub fn get(&self, a: Action) -> u64 {
        self.0[a.index()]
    }
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    pub fn merge(&mut self, other: &Counts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
    /// Actions taken at least once, with their counts.
    pub fn nonzero(&self) -> impl Iterator<Item = (Action, u64)> + '_ {
        Action::ALL
            .into_iter()
            .map(|a| (a, self.get(a)))
            .filter(|(_, n)| *n > 0)
    }
}

/// The actions taken at least once, by spec name.
impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (a, n) in self.nonzero() {
            m.serialize_entry(a.spec_name(), &n)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Action::ALL {
            assert_eq!(Action::from_spec_name(a.spec_name()), Some(a));
        }
        assert_eq!(Action::from_spec_name("ProdWriteAhead"), None);
    }

    #[test]
    fn counts_merge() {
        let mut a = Counts::default();
        a.add(Action::ConsRead);
        let mut b = Counts::default();
        b.add(Action::ConsRead);
        b.add(Action::ProdWrite);
        a.merge(&b);
        assert_eq!(a.get(Action::ConsRead), 2);
        assert_eq!(a.total(), 3);
        assert_eq!(a.nonzero().count(), 2);
    }
}
