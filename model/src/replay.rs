//! Replay of TLC behaviours in the model: every state must be reachable
//! from the previous one by one model action (or equal it: a stutter) and
//! satisfy the invariants.

use std::fmt;

use crate::tla::{parse_trace_module, ParseError};
use crate::xsk_ring::{init_states, Action, Config, FromTlaError, Invariant, State, INVARIANTS};

/// A variable's value before and after, in TLC syntax.
pub type VarDiff = (&'static str, String, String);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayErrorKind {
    /// The behaviour has no state.
    Empty,
    /// The first state is not an initial state; `diff` is against the
    /// closest one.
    NotInitial { diff: Vec<VarDiff> },
    /// No action leads from the previous state to this one. `changed` is
    /// what the behaviour changed; `closest` the successor nearest to the
    /// state, and where it differs.
    NoAction {
        changed: Vec<VarDiff>,
        closest: Option<(Action, Vec<VarDiff>)>,
    },
    /// The state violates this invariant.
    Invariant { name: &'static str },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// 1-based number of the offending state (TLC's STATE_n).
    pub state: usize,
    pub kind: ReplayErrorKind,
}

fn write_diff(
    f: &mut fmt::Formatter<'_>,
    title: &str,
    diff: &[VarDiff],
    arrow: &str,
) -> fmt::Result {
    writeln!(f, "  {title}:")?;
    for (var, a, b) in diff {
        writeln!(f, "    {var}: {a} {arrow} {b}")?;
    }
    Ok(())
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.state;
        match &self.kind {
            ReplayErrorKind::Empty => write!(f, "the behaviour has no state"),
            ReplayErrorKind::NotInitial { diff } => {
                writeln!(f, "state {n} is not an initial state of the model")?;
                write_diff(
                    f,
                    "differs from the closest initial state in (init vs trace)",
                    diff,
                    "vs",
                )
            }
            ReplayErrorKind::NoAction { changed, closest } => {
                writeln!(
                    f,
                    "step {} -> {n}: no action of the model makes this step",
                    n - 1
                )?;
                write_diff(f, "variables the step changes", changed, "->")?;
                match closest {
                    Some((a, d)) => write_diff(
                        f,
                        &format!("closest successor, by {a} (model vs trace)"),
                        d,
                        "vs",
                    ),
                    None => writeln!(f, "  no action is enabled in state {}", n - 1),
                }
            }
            ReplayErrorKind::Invariant { name } => write!(f, "state {n} violates {name}"),
        }
    }
}

impl std::error::Error for ReplayError {}

fn closest<'a>(
    target: &State,
    candidates: impl Iterator<Item = (Action, &'a State)>,
) -> Option<(Action, Vec<VarDiff>)> {
    candidates
        .map(|(a, s)| (a, s.diff(target)))
        .min_by_key(|(_, d)| d.len())
}

/// Replay a behaviour, checking every invariant of the model; returns the
/// action of each step: the first action, in Next's order, that makes it,
/// or Stutter for a repeated state no action leaves unchanged.
pub fn replay(cfg: &Config, states: &[State]) -> Result<Vec<Action>, ReplayError> {
    replay_checking(cfg, states, &INVARIANTS)
}

/// Replay checking only the given invariants.
pub fn replay_checking(
    cfg: &Config,
    states: &[State],
    invariants: &[Invariant],
) -> Result<Vec<Action>, ReplayError> {
    let check = |i: usize, s: &State| match invariants.iter().find(|(_, holds)| !holds(s, cfg)) {
        Some((name, _)) => Err(ReplayError {
            state: i + 1,
            kind: ReplayErrorKind::Invariant { name },
        }),
        None => Ok(()),
    };
    let first = states.first().ok_or(ReplayError {
        state: 0,
        kind: ReplayErrorKind::Empty,
    })?;
    let inits = init_states(cfg);
    if !inits.contains(first) {
        let diff = closest(first, inits.iter().map(|s| (Action::Stutter, s)))
            .map(|(_, d)| d)
            .unwrap_or_default();
        return Err(ReplayError {
            state: 1,
            kind: ReplayErrorKind::NotInitial { diff },
        });
    }
    check(0, first)?;
    let mut actions = Vec::with_capacity(states.len().saturating_sub(1));
    for (i, pair) in states.windows(2).enumerate() {
        let (prev, next) = (&pair[0], &pair[1]);
        let succ = prev.successors(cfg);
        let action = match succ.iter().find(|(_, s)| s == next) {
            Some((a, _)) => *a,
            None if prev == next => Action::Stutter,
            None => {
                let closest = closest(next, succ.iter().map(|(a, s)| (*a, s)));
                let kind = ReplayErrorKind::NoAction {
                    changed: prev.diff(next),
                    closest,
                };
                return Err(ReplayError { state: i + 2, kind });
            }
        };
        check(i + 1, next)?;
        actions.push(action);
    }
    Ok(actions)
}

/// A `-simulate file=` dump that is not a behaviour of XskRing states.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("{0}")]
    Parse(ParseError),
    #[error("STATE_{state}: {err}")]
    State { state: usize, err: FromTlaError },
}

/// The states of a TLC `-simulate file=` dump.
pub fn states_from_dump(text: &str) -> Result<Vec<State>, DumpError> {
    let vars = parse_trace_module(text).map_err(DumpError::Parse)?;
    vars.iter()
        .enumerate()
        .map(|(i, v)| State::from_tla(v).map_err(|err| DumpError::State { state: i + 1, err }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsk_ring::Mutant;

    fn run(cfg: &Config, start: u64, actions: &[Action]) -> Vec<State> {
        let mut states = vec![State::init(cfg, start)];
        for a in actions {
            let next = states
                .last()
                .unwrap()
                .step(cfg, a)
                .unwrap_or_else(|| panic!("{a} not enabled"));
            states.push(next);
        }
        states
    }

    const STEPS: [Action; 6] = [
        Action::ProdReserve { n: 1 },
        Action::ProdWrite { ok: true },
        Action::ProdSubmit { n: 1 },
        Action::ConsPeek { nb: None },
        Action::ConsRead,
        Action::ConsRelease { nb: None },
    ];

    #[test]
    fn replays_a_behaviour_with_stutters() {
        let cfg = Config::fill();
        let states = run(&cfg, 5, &STEPS);
        assert_eq!(replay(&cfg, &states).unwrap(), STEPS);
        // A store and a load both pending: no action leaves the state as is.
        let mut states = run(&cfg, 5, &[STEPS[0], STEPS[1], STEPS[2], STEPS[3], STEPS[0]]);
        states.push(states[5].clone());
        assert_eq!(replay(&cfg, &states).unwrap()[5], Action::Stutter);
        // An empty kernel peek changes nothing but is an action.
        let idle = [State::init(&cfg, 0), State::init(&cfg, 0)];
        assert_eq!(
            replay(&cfg, &idle).unwrap(),
            [Action::ConsPeek { nb: None }]
        );
    }

    #[test]
    fn reports_a_step_no_action_makes() {
        let cfg = Config::fill();
        let mut states = run(&cfg, 0, &STEPS);
        states[4].p_prod = 2;
        states.truncate(5);
        let e = replay(&cfg, &states).unwrap_err();
        assert_eq!(e.state, 5);
        let text = e.to_string();
        assert!(text.starts_with("step 4 -> 5: no action"), "{text}");
        assert!(text.contains("pProd: 1 -> 2"), "{text}");
        assert!(
            text.contains("closest successor, by ConsPeek (model vs trace)"),
            "{text}"
        );
    }

    #[test]
    fn reports_a_bad_start_and_invariants() {
        let cfg = Config::fill();
        let mut s = State::init(&cfg, 0);
        s.c_exp = 3;
        let e = replay(&cfg, &[s]).unwrap_err();
        assert_eq!(e.state, 1);
        assert!(e.to_string().contains("cExp: 0 vs 3"), "{e}");
        assert_eq!(replay(&cfg, &[]).unwrap_err().kind, ReplayErrorKind::Empty);

        let bug = Config {
            mutant: Mutant::ReservePartial,
            ..cfg
        };
        let states = run(
            &bug,
            0,
            &[
                Action::ProdReserve { n: 1 },
                Action::ProdWrite { ok: true },
                Action::ProdReserve { n: 2 },
            ],
        );
        let e = replay(&bug, &states).unwrap_err();
        assert_eq!(
            (e.state, e.to_string().as_str()),
            (4, "state 4 violates InFlightBounded")
        );
    }

    #[test]
    fn reads_a_dump() {
        let cfg = Config::fill();
        let states = run(&cfg, 2, &STEPS[..3]);
        let mut text = String::from("---- MODULE t ----\n");
        for (i, s) in states.iter().enumerate() {
            text += &format!(
                "STATE_{} ==\n{}\n",
                i + 1,
                crate::tla::format_state(&s.to_tla())
            );
        }
        text += "====\n";
        assert_eq!(states_from_dump(&text).unwrap(), states);
        let e = states_from_dump(&text.replacen("/\\ pWr = 2", "/\\ pWr = TRUE", 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "STATE_1: variable `pWr`: expected a natural number, found TRUE"
        );
    }
}
