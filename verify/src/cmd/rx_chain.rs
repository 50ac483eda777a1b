//! The receive chain of a diff campaign: the agreed scenarios with an RX
//! socket, their receive projected onto specs/XskRx.tla and validated by
//! TLC (ringlab-tlc's trace::rx_chain); the scenarios the spec cannot
//! express refused, counted by reason.

use ringlab_kernel::campaign::Summary;
use ringlab_kernel::diff_doc::ChainDoc;
use ringlab_model::afxdp::{Profile, Scenario};
use ringlab_tlc::trace::rx_chain::{validate_rx_scenarios, RxChainReport};

use super::chain::LISTED;

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
            spec: SPEC.into(),
            error: None,
            validated: r.validated as u64,
            rejected: r.rejected.len() as u64,
            unprojected: r.refused.len() as u64,
            steps: r.steps as u64,
            tlc_runs: r.tlc_runs as u64,
            seconds: (r.seconds * 10.0).round() / 10.0,
            rejections: r.rejected.iter().take(LISTED).map(|x| x.to_string()).collect(),
            unprojected_why: r.refused.iter().take(LISTED).map(|u| format!("seed {:#x}: {}", u.seed, u.why)).collect(),
            refused_by: r.refused_by.iter().map(|(k, n)| (k.clone(), *n as u64)).collect(),
            example: None,
        },
        Err(e) => ChainDoc { spec: SPEC.into(), error: Some(e), ..Default::default() },
    }
}
