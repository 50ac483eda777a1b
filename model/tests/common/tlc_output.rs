//! What TLC's model-checking output says: counts, depth, outcome, trace.

#![allow(dead_code)]

use ringlab_model::tla::parse_tlc_trace;
use ringlab_model::State;

#[derive(Debug, Default)]
pub struct TlcRun {
    pub generated: Option<usize>,
    pub distinct: Option<usize>,
    pub depth: Option<usize>,
    /// "pass", "violation:Inv", "liveness", "deadlock" or "error".
    pub outcome: String,
    /// The error trace, when there is one.
    pub trace: Vec<State>,
}

fn number(s: &str) -> Option<usize> {
    s.replace(',', "").parse().ok()
}

/// Read TLC's plain (not -tool) output.
pub fn parse(out: &str) -> Result<TlcRun, String> {
    let mut run = TlcRun {
        outcome: "error".into(),
        ..Default::default()
    };
    for line in out.lines() {
        if let Some(i) = line.find(" states generated, ") {
            run.generated = number(&line[..i]);
            let rest = &line[i + " states generated, ".len()..];
            run.distinct = rest.split(' ').next().and_then(number);
        } else if let Some(d) =
            line.strip_prefix("The depth of the complete state graph search is ")
        {
            run.depth = number(d.trim_end_matches('.'));
        } else if let Some(inv) = line.strip_prefix("Error: Invariant ") {
            run.outcome = format!("violation:{}", inv.trim_end_matches(" is violated."));
        } else if line.starts_with("Error: Temporal properties were violated") {
            run.outcome = "liveness".into();
        } else if line.starts_with("Error: Deadlock reached") {
            run.outcome = "deadlock".into();
        } else if line.starts_with("Model checking completed. No error has been found.") {
            run.outcome = "pass".into();
        }
    }
    for step in parse_tlc_trace(out).map_err(|e| format!("TLC's trace: {e}"))? {
        if let Some(vars) = step.vars {
            run.trace.push(
                State::from_tla(&vars).map_err(|e| format!("TLC's state {}: {e}", step.number))?,
            );
        }
    }
    Ok(run)
}
