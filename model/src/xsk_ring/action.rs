//! One step of the spec: an action of Next with the values its \E chose.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    ProdReserve {
        n: u64,
    },
    ProdWrite {
        ok: bool,
    },
    ProdWriteAhead {
        ok: bool,
    },
    ProdSubmit {
        n: u64,
    },
    ProdCancel {
        n: u64,
    },
    /// `nb` is None on the kernel side (KernelConsPeek picks no n).
    ConsPeek {
        nb: Option<u64>,
    },
    ConsPeekBatch {
        max: u64,
    },
    ConsRead,
    ConsReadAhead,
    /// `nb` is None on the kernel side (it releases the whole peek).
    ConsRelease {
        nb: Option<u64>,
    },
    ConsPublish,
    /// UNCHANGED vars: a step of [Next]_vars that is no action.
    Stutter,
}

impl Action {
    /// The spec's name of the action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::ProdReserve { .. } => "ProdReserve",
            Action::ProdWrite { .. } => "ProdWrite",
            Action::ProdWriteAhead { .. } => "ProdWriteAhead",
            Action::ProdSubmit { .. } => "ProdSubmit",
            Action::ProdCancel { .. } => "ProdCancel",
            Action::ConsPeek { .. } => "ConsPeek",
            Action::ConsPeekBatch { .. } => "ConsPeekBatch",
            Action::ConsRead => "ConsRead",
            Action::ConsReadAhead => "ConsReadAhead",
            Action::ConsRelease { .. } => "ConsRelease",
            Action::ConsPublish => "ConsPublish",
            Action::Stutter => "Stutter",
        }
    }

    /// True for the producer's actions (ProdStep).
    pub fn is_producer(&self) -> bool {
        self.name().starts_with("Prod")
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name();
        match *self {
            Action::ProdReserve { n } | Action::ProdSubmit { n } | Action::ProdCancel { n } => {
                write!(f, "{name}(n={n})")
            }
            Action::ProdWrite { ok } | Action::ProdWriteAhead { ok } => {
                write!(f, "{name}(ok={ok})")
            }
            Action::ConsPeek { nb: Some(nb) } | Action::ConsRelease { nb: Some(nb) } => {
                write!(f, "{name}(nb={nb})")
            }
            Action::ConsPeekBatch { max } => write!(f, "{name}(max={max})"),
            _ => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_shows_the_choice() {
        assert_eq!(Action::ProdReserve { n: 2 }.to_string(), "ProdReserve(n=2)");
        assert_eq!(Action::ConsPeek { nb: None }.to_string(), "ConsPeek");
        assert_eq!(
            Action::ConsRelease { nb: Some(1) }.to_string(),
            "ConsRelease(nb=1)"
        );
        assert!(Action::ProdCancel { n: 1 }.is_producer());
        assert!(!Action::ConsPublish.is_producer());
    }
}
