//! How a run ends: a summary, or the failure that stopped it.

use std::fmt;
use std::io;

use crate::xsk_ring::action::{Action, Counts};
use crate::xsk_ring::config::ConfigError;

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub seed: u64,
    pub steps: u64,
    /// Entries the producer submitted.
    pub published: u64,
    /// Entries the consumer loaded.
    pub loaded: u64,
    pub counts: Counts,
    /// ->producer and ->consumer at the end.
    pub prod: u32,
    pub cons: u32,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "steps: {}", self.steps)?;
        writeln!(f, "entries produced: {}", self.published)?;
        writeln!(f, "entries consumed: {}", self.loaded)?;
        writeln!(f, "->producer {} ->consumer {}", self.prod, self.cons)?;
        for (a, n) in self.counts.nonzero() {
            writeln!(f, "  {a:<14} {n}")?;
        }
        Ok(())
    }
}

/// A step that broke a property: the seed and step replay it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub seed: u64,
    pub step: u64,
    pub action: Option<Action>,
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = self.action.map_or(String::new(), |a| format!(" ({a})"));
        write!(
            f,
            "seed {}: step {}{action}: {}",
            self.seed, self.step, self.message
        )
    }
}

impl std::error::Error for Failure {}

/// Why a run did not complete.
#[derive(Debug)]
pub enum RunError {
    Config(ConfigError),
    Io(io::Error),
    Failed(Failure),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Config(e) => e.fmt(f),
            RunError::Io(e) => write!(f, "writing the trace: {e}"),
            RunError::Failed(e) => write!(f, "assertion failed: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> Self {
        RunError::Config(e)
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
    fn a_failure_names_seed_step_and_action() {
        let f = Failure {
            seed: 7,
            step: 12,
            action: Some(Action::ConsRead),
            message: "FIFO".into(),
        };
        assert_eq!(f.to_string(), "seed 7: step 12 (ConsRead): FIFO");
        let p = std::panic::catch_unwind(|| panic!("at {}", 3)).unwrap_err();
        assert_eq!(panic_message(&*p), "at 3");
    }
}
