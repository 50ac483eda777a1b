//! Scenarios in, counts out: each scenario's receive projected
//! (`afxdp::rx_spec_trace`) and its trace checked by TLC; a refusal
//! counted by its reason, a rejection named by its scenario's seed,
//! operation and step.

use std::collections::BTreeMap;

use serde::Serialize;

use ringlab_model::afxdp::{rx_spec_trace, Profile, Refusal, RxTrace, Scenario};

use super::super::kernel_chain::report::{tally, Rejection, Unprojected};
use super::super::kernel_chain::timed;
use super::check;
use crate::trace::TraceError;

/// What validating a campaign's receive traces found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RxChainReport {
    /// Traces TLC accepted: every step a step of XskRx.
    pub validated: usize,
    pub rejected: Vec<Rejection>,
    /// Scenarios refused, by reason (Refusal::id), and each with why.
    pub refused_by: BTreeMap<String, usize>,
    pub refused: Vec<Unprojected>,
    /// Steps in the traces checked.
    pub steps: usize,
    pub tlc_runs: usize,
    pub seconds: f64,
}

impl RxChainReport {
    pub fn ok(&self) -> bool {
        self.rejected.is_empty() && !self.refused_by.contains_key(Refusal::Internal.id())
    }
}

/// Projects the receive of each scenario with an RX socket under `p` and
/// checks the traces with TLC (the others have nothing of XskRx).
pub fn validate_rx_scenarios(scenarios: &[(u64, Scenario)], p: &Profile) -> Result<RxChainReport, TraceError> {
    let (r, seconds) = timed(|| {
        let mut rep = RxChainReport::default();
        let mut traces: Vec<(u64, RxTrace)> = Vec::new();
        for (seed, s) in scenarios.iter().filter(|(_, s)| s.setup.rx_socket) {
            match rx_spec_trace(s, p) {
                Ok(t) => traces.push((*seed, t)),
                Err(e) => {
                    *rep.refused_by.entry(e.kind.id().to_string()).or_default() += 1;
                    rep.refused.push(Unprojected { seed: *seed, why: e.to_string() });
                }
            }
        }
        if traces.is_empty() {
            return Ok(rep);
        }
        let only: Vec<RxTrace> = traces.iter().map(|(_, t)| t.clone()).collect();
        let checked = check(&only)?;
        rep.tlc_runs = checked.tlc_runs;
        rep.steps = only.iter().map(|t| t.steps.len()).sum();
        let named = |t: &RxTrace, k: usize| t.steps.get(k).map(|s| (s.op, s.action.to_string()));
        tally("XskRx", &traces, checked.verdicts, named, &mut rep.validated, &mut rep.rejected);
        Ok::<_, TraceError>(rep)
    });
    Ok(RxChainReport { seconds, ..r? })
}
