//! What an io_uring SEND_ZC simulation runs: the spec's constants (the
//! model's [`Config`]), where the rings' counters start, and the seed.
//! `spec.mutant` is set from the run (a mutant is put back by
//! ringlab-mutant's switch), so the projection is compared with the model
//! of the same mutant.

use serde::{Deserialize, Serialize};

use ringlab_model::iouring_zc::Config;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoUringZcConfig {
    pub spec: Config,
    /// Where both counters of the SQ start.
    pub sq_start: u32,
    /// Where both counters of the CQ start.
    pub cq_start: u32,
    pub seed: u64,
}

impl IoUringZcConfig {
    /// The spec's constants as they are, the mutant the build's; the
    /// counters start just below u32::MAX, so that a run wraps them.
    pub fn from_spec(spec: Config) -> Self {
        IoUringZcConfig {
            spec: Config {
                mutant: super::mutant(),
                ..spec
            },
            sq_start: u32::MAX - 1,
            cq_start: u32::MAX - 2,
            seed: 0,
        }
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Where the rings' counters start.
    pub fn starts(mut self, sq: u32, cq: u32) -> Self {
        self.sq_start = sq;
        self.cq_start = cq;
        self
    }

    /// The spec's ASSUMEs, and what the simulator needs besides: rings
    /// whose sizes are powers of two (the free-running indices wrap by
    /// the mask), requests that fit a u32 mask of pins and rsrc holders.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.spec;
        s.validate()?;
        for (what, n) in [("SqSize", s.sq_size), ("CqSize", s.cq_size)] {
            if !n.is_power_of_two() || n > 1 << 16 {
                return Err(format!("{what} = {n}: a ring's size is a power of two up to 65536"));
            }
        }
        if s.n_reqs > 32 {
            return Err(format!("NReqs = {}: at most 32 requests", s.n_reqs));
        }
        if s.max_skbs > 64 {
            return Err(format!("MaxSkbs = {}: at most 64 skbs", s.max_skbs));
        }
        if s.mutant != super::mutant() {
            return Err(format!(
                "the config names mutant {} but this run puts back {}",
                s.mutant.id(),
                super::mutant().id()
            ));
        }
        Ok(())
    }
}
