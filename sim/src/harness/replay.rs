//! Replay of a recorded trace: the protocol rebuilt from the header's
//! config (its seed with it), run again for the header's steps under the
//! scheduler, recording; then the two traces compared line by line. A
//! seed is a run, so a trace of this build replays exactly; a difference
//! names the first step whose action or projected state is not the
//! recorded one (a fixed bug, another build's mutant, or a change of the
//! protocol's choices).

use std::fmt;

use serde_json::Value;

use super::protocol::Protocol;
use super::sched::Sched;
use super::trace::{Line, RawTrace, SharedBuf};
use super::verdict::{Failure, RunError};

/// What a replay found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub protocol: String,
    pub seed: u64,
    /// Lines of the recorded trace.
    pub lines: usize,
    pub outcome: Outcome,
    /// How the replayed run ended: Err the failure it stopped at.
    pub run: Result<(), Failure>,
    /// The recording run's mutants, if not this run's.
    pub other_mutants: Option<Vec<String>>,
}

/// The comparison of the two traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every line is the recorded one.
    Exact,
    /// The first line that differs; an action is None where that trace
    /// has already ended.
    Differs {
        step: u64,
        recorded: Option<String>,
        replayed: Option<String>,
        /// The spec variables whose values differ.
        fields: Vec<String>,
    },
}

/// Replay `trace` as a run of `P`.
pub fn replay<P: Protocol>(trace: &RawTrace) -> Result<Replayed, RunError> {
    let h = &trace.header;
    let cfg: P::Config = serde_json::from_value(h.config.clone())
        .map_err(|e| RunError::Config(format!("the trace's config: {e}")))?;
    let buf = SharedBuf::default();
    let mut s = Sched::<P>::new(cfg)?;
    s.record(Box::new(buf.clone()), h.steps)?;
    let run = match s.run(h.steps) {
        Ok(_) => Ok(()),
        Err(RunError::Failed(f)) => Err(f),
        Err(e) => return Err(e),
    };
    let again = RawTrace::parse(&buf.bytes()[..])
        .map_err(|e| RunError::Config(format!("the replay's own trace: {e}")))?;
    let now: Vec<String> = crate::mutants().into_iter().map(String::from).collect();
    Ok(Replayed {
        protocol: h.protocol.clone(),
        seed: h.seed,
        lines: trace.lines.len(),
        outcome: compare(&trace.lines, &again.lines),
        run,
        other_mutants: (h.mutants != now).then(|| h.mutants.clone()),
    })
}

/// The first line at which `b` is not `a`.
fn compare(a: &[Line<Value>], b: &[Line<Value>]) -> Outcome {
    for k in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(k), b.get(k));
        if let (Some(x), Some(y)) = (x, y) {
            if x.action == y.action && x.state == y.state {
                continue;
            }
        }
        let fields = match (x, y) {
            (Some(x), Some(y)) => differing(&x.state, &y.state),
            _ => Vec::new(),
        };
        return Outcome::Differs {
            step: x.or(y).map_or(k as u64, |l| l.step),
            recorded: x.map(|l| l.action.clone()),
            replayed: y.map(|l| l.action.clone()),
            fields,
        };
    }
    Outcome::Exact
}

/// The keys of two JSON objects whose values differ ("state" if either
/// is not an object).
fn differing(a: &Value, b: &Value) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .filter(|k| x.get(*k) != y.get(*k))
                .cloned()
                .collect()
        }
        _ if a == b => Vec::new(),
        _ => vec!["state".into()],
    }
}

impl Replayed {
    /// The trace replays exactly and its run passes.
    pub fn ok(&self) -> bool {
        self.outcome == Outcome::Exact && self.run.is_ok()
    }
}

impl fmt::Display for Replayed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} trace, seed {}: ", self.protocol, self.seed)?;
        match &self.outcome {
            Outcome::Exact => write!(f, "replays exactly ({} lines)", self.lines)?,
            Outcome::Differs {
                step,
                recorded,
                replayed,
                fields,
            } => {
                let or_end = |a: &Option<String>| a.clone().unwrap_or_else(|| "the end".into());
                if recorded == replayed {
                    write!(f, "differs at step {step} ({})", or_end(recorded))?;
                } else {
                    write!(
                        f,
                        "differs at step {step}: recorded {}, replayed {}",
                        or_end(recorded),
                        or_end(replayed)
                    )?;
                }
                if !fields.is_empty() {
                    write!(f, "; the state differs in {}", fields.join(", "))?;
                }
            }
        }
        match &self.run {
            Ok(()) => write!(f, "; the replayed run passes")?,
            Err(e) => write!(f, "; the replayed run fails: {e}")?,
        }
        if let Some(m) = &self.other_mutants {
            write!(
                f,
                " (recorded with mutants [{}], this run has [{}])",
                m.join(", "),
                crate::mutants().join(", ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(step: u64, action: &str, state: Value) -> Line<Value> {
        Line {
            step,
            action: action.into(),
            state,
        }
    }

    #[test]
    fn the_first_difference_is_named_with_its_fields() {
        let a = vec![
            line(0, "Init", json!({"x": 1, "y": 2})),
            line(1, "Inc", json!({"x": 2, "y": 2})),
        ];
        assert_eq!(compare(&a, &a), Outcome::Exact);
        let mut b = a.clone();
        b[1].state = json!({"x": 2, "y": 3});
        assert_eq!(
            compare(&a, &b),
            Outcome::Differs {
                step: 1,
                recorded: Some("Inc".into()),
                replayed: Some("Inc".into()),
                fields: vec!["y".into()],
            }
        );
        b.truncate(1);
        let Outcome::Differs { replayed, step, .. } = compare(&a, &b) else {
            panic!("a shorter replay is a difference");
        };
        assert_eq!((step, replayed), (1, None));
    }
}
