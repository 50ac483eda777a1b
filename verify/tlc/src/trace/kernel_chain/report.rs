//! Scenarios in, counts out: each scenario's run projected
//! (`afxdp::spec_trace`) and its trace checked by TLC; a rejection named
//! by its scenario's seed, operation and step.

use serde::Serialize;

use ringlab_model::afxdp::{spec_trace, Profile, Scenario, SpecTrace};

use super::{check, timed, Verdict};
use crate::trace::TraceError;

/// A trace TLC rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejection {
    /// The spec that rejected it.
    pub spec: &'static str,
    /// The scenario's seed (`gen::scenario_for`).
    pub seed: u64,
    /// The step no spec step leads to (from state step - 1 to state
    /// step; 0: state 0 is not Init).
    pub step: usize,
    /// The scenario's operation the step belongs to.
    pub op: Option<usize>,
    /// The action the projection named it.
    pub action: Option<String>,
    /// The actions the spec enabled before it.
    pub enabled: Vec<String>,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "scenario seed {:#x}: ", self.seed)?;
        if self.step == 0 {
            return write!(f, "state 0 is not Init");
        }
        write!(f, "no step of {} leads to state {}", self.spec, self.step)?;
        if let (Some(a), Some(op)) = (&self.action, self.op) {
            write!(f, " ({a}, in operation {op})")?;
        }
        write!(f, "; enabled before it: {}", self.enabled.join(", "))
    }
}

/// A scenario the projection could not write as a trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unprojected {
    pub seed: u64,
    pub why: String,
}

/// What validating a campaign's traces found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ChainReport {
    /// Traces TLC accepted: every step a step of XskCopyTx.
    pub validated: usize,
    pub rejected: Vec<Rejection>,
    pub unprojected: Vec<Unprojected>,
    /// Steps in the traces checked.
    pub steps: usize,
    pub tlc_runs: usize,
    pub seconds: f64,
}

impl ChainReport {
    pub fn ok(&self) -> bool {
        self.rejected.is_empty()
    }
}

/// Counts each trace's verdict: accepted in `validated`, rejected in
/// `rejected`, named by its seed and by `named(trace, k)`, the operation
/// and action of its step k + 1.
pub(crate) fn tally<T>(
    spec: &'static str,
    traces: &[(u64, T)],
    verdicts: Vec<Verdict>,
    named: impl Fn(&T, usize) -> Option<(usize, String)>,
    validated: &mut usize,
    rejected: &mut Vec<Rejection>,
) {
    for ((seed, t), v) in traces.iter().zip(verdicts) {
        match v {
            Verdict::Accepted => *validated += 1,
            Verdict::Rejected { step, enabled } => {
                let (op, action) = step.checked_sub(1).and_then(|k| named(t, k)).unzip();
                rejected.push(Rejection { spec, seed: *seed, step, op, action, enabled });
            }
        }
    }
}

/// Projects each scenario under `p` and checks the traces with TLC.
pub fn validate_scenarios(scenarios: &[(u64, Scenario)], p: &Profile) -> Result<ChainReport, TraceError> {
    let (r, seconds) = timed(|| {
        let mut rep = ChainReport::default();
        let mut traces: Vec<(u64, SpecTrace)> = Vec::new();
        for (seed, s) in scenarios {
            match spec_trace(s, p) {
                Ok(t) => traces.push((*seed, t)),
                Err(e) => rep.unprojected.push(Unprojected { seed: *seed, why: e.to_string() }),
            }
        }
        let only: Vec<SpecTrace> = traces.iter().map(|(_, t)| t.clone()).collect();
        let checked = check(&only)?;
        rep.tlc_runs = checked.tlc_runs;
        rep.steps = only.iter().map(|t| t.steps.len()).sum();
        let named = |t: &SpecTrace, k: usize| t.steps.get(k).map(|s| (s.op, s.action.to_string()));
        tally("XskCopyTx", &traces, checked.verdicts, named, &mut rep.validated, &mut rep.rejected);
        Ok::<_, TraceError>(rep)
    });
    Ok(ChainReport { seconds, ..r? })
}
