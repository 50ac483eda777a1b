//! A step that is not enabled. Every protocol's objects return it, under
//! loom too, so it lives outside the (std-only) harness.

use std::fmt;

/// A step that is not enabled: which action, and why. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disabled {
    pub action: &'static str,
    pub why: String,
}

impl Disabled {
    pub fn new(action: &'static str, why: impl Into<String>) -> Disabled {
        Disabled {
            action,
            why: why.into(),
        }
    }
}

impl fmt::Display for Disabled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is not enabled: {}", self.action, self.why)
    }
}

impl std::error::Error for Disabled {}

/// A step's result: done, or not enabled (nothing changed).
pub type Step = Result<(), Disabled>;
