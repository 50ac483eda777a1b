//! One differential campaign's result as a document: what `ringlab diff
//! --json` prints (in the test VM's guests too) and what `ringlab verify`
//! and `ringlab kernel-test` keep of it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::bpf::{Paths, Redirect};
use crate::campaign::{Example, Replay, Summary};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DiffDoc {
    /// `uname -r` of the kernel the scenarios ran on.
    pub kernel: String,
    /// The model's profile the kernel was held against.
    pub profile: String,
    /// XDP_GENERIC_XMIT_BATCH and XDP_MAX_TX_SKB_BUDGET set on the sockets.
    #[serde(default)]
    pub batch: u32,
    #[serde(default = "default_budget")]
    pub budget: u32,
    pub seed: u64,
    pub scenarios: u64,
    pub operations: u64,
    pub divergences: u64,
    /// The first divergence, shrunk, as its replay file holds it.
    #[serde(default)]
    pub first_divergence: Option<Replay>,
    #[serde(default)]
    pub replay_files: Vec<PathBuf>,
    #[serde(default)]
    pub seconds: f64,
    /// Scenarios the kernel and the model agreed on: the chain's traces.
    #[serde(default)]
    pub chain_candidates: u64,
    /// The seeds of the scenarios that diverged (all of them, shrunk or
    /// not), so that a host can derive the chain's scenarios again.
    #[serde(default)]
    pub diverged_seeds: Vec<u64>,
    /// The agreed scenarios' traces validated against the spec, once the
    /// host (which has TLC) has done it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<ChainDoc>,
    /// The agreed scenarios' receive traces validated against XskRx.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_chain: Option<ChainDoc>,
    /// One agreed scenario with both sides' observations, to show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<Example>,
    /// The helper the XDP program redirected with; `xsk` campaigns ran
    /// receive scenarios only.
    #[serde(default)]
    pub redirect: Redirect,
    /// With `xsk`: frames bpf_redirect_xsk() sent by its fast path and by
    /// its fallback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Paths>,
}

/// The chain from the live kernel to the spec for one campaign: how many
/// of its kernel traces, projected onto specs/XskCopyTx.tla, TLC
/// accepted (docs/src/chain.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChainDoc {
    pub spec: String,
    /// TLC could not validate at all, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub validated: u64,
    #[serde(default)]
    pub rejected: u64,
    /// Scenarios the projection cannot write as a trace of the spec.
    #[serde(default)]
    pub unprojected: u64,
    #[serde(default)]
    pub steps: u64,
    #[serde(default)]
    pub tlc_runs: u64,
    #[serde(default)]
    pub seconds: f64,
    /// The first rejections, each naming its scenario, operation and step.
    #[serde(default)]
    pub rejections: Vec<String>,
    /// The first unprojected scenarios and why.
    #[serde(default)]
    pub unprojected_why: Vec<String>,
    /// Unprojected scenarios by reason (the receive chain's refusals).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub refused_by: BTreeMap<String, u64>,
    /// One scenario whole: what the kernel did, what the model did, and
    /// the spec's steps that are that run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<ChainExample>,
}

/// One scenario shown as kernel -> model -> spec.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChainExample {
    pub seed: u64,
    pub profile: String,
    /// Every step below is a step of the spec (TLC accepted the trace).
    pub accepted: bool,
    pub ops: Vec<ExampleOp>,
}

/// One operation of the example: what it was, what each side observed,
/// and the spec's steps it made.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExampleOp {
    pub op: String,
    pub kernel: String,
    pub model: String,
    pub steps: Vec<ExampleStep>,
}

/// A spec step: its action and the variables it changed, as TLA+.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExampleStep {
    pub action: String,
    pub changed: Vec<String>,
}

impl DiffDoc {
    /// No divergence, the chain (where it ran) accepted every trace, and
    /// a bpf_redirect_xsk() campaign took the fast path.
    pub fn ok(&self) -> bool {
        self.divergences == 0 && [&self.chain, &self.rx_chain].iter().all(|c| c.as_ref().map_or(true, ChainDoc::ok)) && !self.fast_path_never_taken()
    }

    /// Only receive scenarios ran (the seeds campaign::scenario_seed_rx
    /// draws).
    pub fn receive_only(&self) -> bool {
        self.redirect == Redirect::Xsk
    }

    /// A bpf_redirect_xsk() campaign in which no frame took the fast path:
    /// it compared only what the XSKMAP path does, so it could not fail.
    pub fn fast_path_never_taken(&self) -> bool {
        self.redirect == Redirect::Xsk && self.paths.map_or(true, |p| p.fast_path == 0)
    }

    /// A bpf_redirect_xsk() campaign in which no frame took the fallback.
    pub fn fallback_never_taken(&self) -> bool {
        self.redirect == Redirect::Xsk && self.paths.map_or(true, |p| p.fallback == 0)
    }

    /// For people: ", fast path N frames, fallback M" (bpf_redirect_xsk()
    /// campaigns only).
    pub fn paths_words(&self) -> String {
        match (self.redirect, self.paths) {
            (Redirect::Xsk, Some(p)) => format!(", bpf_redirect_xsk: fast path {} frames, fallback {}", p.fast_path, p.fallback),
            (Redirect::Xsk, None) => ", bpf_redirect_xsk: no path counts".into(),
            (Redirect::Map, _) => String::new(),
        }
    }
}

impl ChainDoc {
    /// Every trace checked was accepted.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.rejected == 0 && !self.refused_by.contains_key("internal")
    }

    /// For people: ", N kernel traces validated against XskCopyTx" (the
    /// receive chain's: "receive traces", refusals by reason).
    pub fn words(&self) -> String {
        let what = if self.spec == "XskRx" { "receive" } else { "kernel" };
        if let Some(e) = &self.error {
            return format!("{what} traces NOT validated against {} ({e})", self.spec);
        }
        let mut out = format!("{} {what} traces validated against {}", self.validated, self.spec);
        if self.rejected > 0 {
            out += &format!(", {} REJECTED", self.rejected);
        }
        if !self.refused_by.is_empty() {
            let by: Vec<String> = self.refused_by.iter().map(|(k, n)| format!("{k} {n}")).collect();
            out += &format!(", {} refused ({})", self.unprojected, by.join(", "));
        } else if self.unprojected > 0 {
            out += &format!(", {} not projected", self.unprojected);
        }
        out
    }
}

fn default_budget() -> u32 {
    crate::txopts::TX_BATCH_SIZE
}

impl DiffDoc {
    pub fn of(s: &Summary, batch: u32, budget: u32) -> DiffDoc {
        DiffDoc {
            kernel: s.kernel.clone(),
            profile: s.profile.clone(),
            batch,
            budget,
            seed: s.seed,
            scenarios: s.scenarios,
            operations: s.operations,
            divergences: s.divergences.len() as u64,
            first_divergence: s.divergences.first().cloned(),
            replay_files: s.replay_files.clone(),
            seconds: s.seconds,
            chain_candidates: s.chain.len() as u64,
            diverged_seeds: s.divergences.iter().map(|d| d.seed).collect(),
            chain: None,
            rx_chain: None,
            example: s.example.clone(),
            redirect: s.redirect,
            paths: (s.redirect == Redirect::Xsk).then_some(s.paths),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_xsk_campaign_must_take_the_fast_path() {
        let mut d = DiffDoc { scenarios: 5, ..Default::default() };
        assert!(d.ok() && !d.fast_path_never_taken() && d.paths_words().is_empty());
        d.redirect = Redirect::Xsk;
        assert!(!d.ok() && d.fast_path_never_taken() && d.receive_only());
        d.paths = Some(Paths { fast_path: 0, fallback: 4 });
        assert!(!d.ok());
        d.paths = Some(Paths { fast_path: 3, fallback: 0 });
        assert!(d.ok() && d.fallback_never_taken());
        assert_eq!(d.paths_words(), ", bpf_redirect_xsk: fast path 3 frames, fallback 0");
        // documents written before the field read as bpf_redirect_map()
        let mut v = serde_json::to_value(&d).unwrap();
        v.as_object_mut().unwrap().retain(|k, _| k != "redirect" && k != "paths");
        let old: DiffDoc = serde_json::from_value(v).unwrap();
        assert_eq!((old.redirect, old.paths), (Redirect::Map, None));
        assert!(old.ok());
    }
}
