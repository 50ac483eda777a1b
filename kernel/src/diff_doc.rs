//! One differential campaign's result as a document: what `ringlab diff
//! --json` prints (in the test VM's guests too) and what `ringlab verify`
//! and `ringlab kernel-test` keep of it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::campaign::{Replay, Summary};

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
        }
    }
}
