//! How a run ends, for every protocol: a broken invariant, a failure
//! (the seed, step and action that replay it), or a run that could not
//! be made at all.

use std::fmt;
use std::io;

/// A broken property of the state a step left: the spec invariant, if it
/// is one (a check of what only the concrete state shows has no spec
/// name), and what broke it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: Option<&'static str>,
    pub detail: String,
}

impl Violation {
    /// The spec's invariant `name` is broken.
    pub fn of(name: &'static str, detail: impl Into<String>) -> Violation {
        Violation {
            invariant: Some(name),
            detail: detail.into(),
        }
    }

    /// A property of the concrete state the spec does not show.
    pub fn concrete(detail: impl Into<String>) -> Violation {
        Violation {
            invariant: None,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.invariant {
            Some(i) => write!(f, "{i}: {}", self.detail),
            None => f.write_str(&self.detail),
        }
    }
}

impl std::error::Error for Violation {}

/// A run that broke: its seed, the step (counted from 1; 0 before the
/// first) and its action replay it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub seed: u64,
    pub step: u64,
    /// The failing step's action (None: a check outside a step, or the drain).
    pub action: Option<String>,
    /// The spec invariant broken, if it was one (else a panic, a disabled
    /// step, a concrete check or a drain that did not finish).
    pub invariant: Option<&'static str>,
    pub message: String,
}

impl Failure {
    /// A failure outside any step (before the first, or after threads).
    pub fn at_start(seed: u64, message: impl Into<String>) -> Failure {
        Failure {
            seed,
            step: 0,
            action: None,
            invariant: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seed {} step {}", self.seed, self.step)?;
        if let Some(a) = &self.action {
            write!(f, " ({a})")?;
        }
        match self.invariant {
            Some(i) => write!(f, ": invariant {i} violated: {}", self.message),
            None => write!(f, ": {}", self.message),
        }
    }
}

impl std::error::Error for Failure {}

/// Why a run did not complete.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The config cannot be run (bad input).
    #[error("{0}")]
    Config(String),
    /// The trace could not be written.
    #[error("writing the trace: {0}")]
    Io(#[from] io::Error),
    /// A property broke.
    #[error("{0}")]
    Failed(Failure),
}

impl RunError {
    /// The failure, if a property broke.
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            RunError::Failed(f) => Some(f),
            _ => None,
        }
    }

    /// The failure, if a property broke; the other errors as a failure
    /// before the first step (for tests that only want a verdict).
    pub fn into_failure(self, seed: u64) -> Failure {
        match self {
            RunError::Failed(f) => f,
            e => Failure::at_start(seed, e.to_string()),
        }
    }
}

impl From<Failure> for RunError {
    fn from(f: Failure) -> Self {
        RunError::Failed(f)
    }
}

/// The message of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_seed_step_action_and_invariant() {
        let mut f = Failure {
            seed: 7,
            step: 12,
            action: Some("ConsRead".into()),
            invariant: Some("FifoOrder"),
            message: "loaded 3, expected 2".into(),
        };
        assert_eq!(
            f.to_string(),
            "seed 7 step 12 (ConsRead): invariant FifoOrder violated: loaded 3, expected 2"
        );
        f.invariant = None;
        f.action = None;
        assert_eq!(f.to_string(), "seed 7 step 12: loaded 3, expected 2");
        let p = std::panic::catch_unwind(|| panic!("at {}", 3)).unwrap_err();
        assert_eq!(panic_message(&*p), "at 3");
    }

    #[test]
    fn run_errors_say_what_went_wrong() {
        let e = RunError::Config("ring size 3 is not a power of two".into());
        assert_eq!(e.to_string(), "ring size 3 is not a power of two");
        assert!(e.failure().is_none());
        assert_eq!(e.into_failure(4).step, 0);
        let io = RunError::from(io::Error::other("disk full"));
        assert_eq!(io.to_string(), "writing the trace: disk full");
    }
}
