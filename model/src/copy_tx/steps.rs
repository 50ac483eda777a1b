//! A trace of states checked step by step against the Rust model of the
//! spec, without TLC: the first state must be Init, and each next one a
//! successor of the one before (`State::successors`) or the same state.

use std::fmt;

use super::action::Action;
use super::config::Config;
use super::state::State;
use super::tla::variables;
use crate::tla::differing;

/// The first step of a trace the spec does not take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// Step k goes from state k - 1 to state k; 0: state 0 is not Init.
    pub step: usize,
    /// The variables in which the recorded state differs from the
    /// nearest state the spec reaches (Init, for step 0).
    pub differ: Vec<&'static str>,
    /// The action of that nearest successor, if any is enabled.
    pub nearest: Option<String>,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.step == 0 {
            return write!(f, "state 0 is not Init (it differs in {})", self.differ.join(", "));
        }
        write!(f, "no step of XskCopyTx leads from state {} to state {}", self.step - 1, self.step)?;
        match &self.nearest {
            Some(a) => write!(f, "; nearest: {a}, which differs in {}", self.differ.join(", ")),
            None => write!(f, "; no action is enabled there"),
        }
    }
}

/// The variables of `a` and `b` that differ.
pub fn differ(cfg: &Config, a: &State, b: &State) -> Vec<&'static str> {
    differing(&variables(cfg, a), &variables(cfg, b))
}

/// The first step of `states` that is neither a step of the spec nor a
/// stutter, if any.
pub fn first_rejected(cfg: &Config, states: &[State]) -> Option<Rejected> {
    first_rejected_with(cfg, states, |_, _| Vec::new())
}

/// The same, trying first for step k + 1 the actions `likely(k, from)`
/// names (each still a step of Next only if `State::step` takes it), and
/// every successor only when none of them leads to the next state.
pub fn first_rejected_with(
    cfg: &Config,
    states: &[State],
    likely: impl Fn(usize, &State) -> Vec<Action>,
) -> Option<Rejected> {
    let init = State::init(cfg);
    if let Some(s0) = states.first() {
        if *s0 != init {
            return Some(Rejected { step: 0, differ: differ(cfg, &init, s0), nearest: None });
        }
    }
    for (k, w) in states.windows(2).enumerate() {
        let (from, to) = (&w[0], &w[1]);
        if from == to || likely(k, from).iter().any(|a| from.step(cfg, a).as_ref() == Some(to)) {
            continue;
        }
        let next = from.successors(cfg);
        if next.iter().any(|(_, t)| t == to) {
            continue;
        }
        let nearest = next
            .iter()
            .map(|(a, t)| (differ(cfg, t, to), a))
            .min_by_key(|(d, _)| d.len());
        let (differ, nearest) = match nearest {
            Some((d, a)) => (d, Some(a.spec_text(cfg))),
            None => (differ(cfg, from, to), None),
        };
        return Some(Rejected { step: k + 1, differ, nearest });
    }
    None
}
