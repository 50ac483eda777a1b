//! The receive chain of a diff campaign: the agreed scenarios with an RX
//! socket, their receive projected onto specs/XskRx.tla and validated by
//! TLC (ringlab-tlc's trace::rx_chain); the scenarios the spec cannot
//! express refused, counted by reason.

use ringlab_kernel::campaign::Summary;
use ringlab_kernel::diff_doc::ChainDoc;
use ringlab_model::afxdp::{Profile, Scenario};
use ringlab_tlc::trace::rx_chain::{validate_rx_scenarios, RxChainReport};

use super::chain::counts_doc;

const SPEC: &str = "XskRx";

/// Validates the receive of `cands`, run under `profile`.
pub fn validate(cands: &[(u64, Scenario)], profile: &Profile) -> ChainDoc {
    doc(validate_rx_scenarios(cands, profile).map_err(|e| e.to_string()).as_ref().map_err(Clone::clone))
}

/// The receive chain of a campaign that ran on this machine.
pub fn of_summary(sum: &Summary) -> ChainDoc {
    match sum.chain_profile {
        Some(p) => validate(&sum.chain_scenarios(), &p),
        None => ChainDoc { spec: SPEC.into(), error: Some("the campaign recorded no profile".into()), ..Default::default() },
    }
}

/// The document of a validation (or of the error that stopped it).
pub fn doc(r: Result<&RxChainReport, String>) -> ChainDoc {
    match r {
        Ok(r) => ChainDoc {
            refused_by: r.refused_by.iter().map(|(k, n)| (k.clone(), *n as u64)).collect(),
            ..counts_doc(SPEC, r.validated, &r.rejected, &r.refused, r.steps, r.tlc_runs, r.seconds)
        },
        Err(e) => ChainDoc { spec: SPEC.into(), error: Some(e), ..Default::default() },
    }
}
