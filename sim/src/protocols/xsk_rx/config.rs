//! What an XskRx simulation runs: the spec's constants (the model's
//! [`Config`]) and the seed. `spec.mutant` is the run's (a mutant is put
//! back by ringlab-mutant's switch), so the projection is compared with the
//! model of the same mutant.

use serde::{Deserialize, Serialize};

use ringlab_model::xsk_rx::Config;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct XskRxConfig {
    pub spec: Config,
    pub seed: u64,
}

impl XskRxConfig {
    /// The spec's constants as they are, the mutant the build's.
    pub fn from_spec(spec: Config) -> Self {
        XskRxConfig {
            spec: Config {
                mutant: super::mutant(),
                ..spec
            },
            seed: 0,
        }
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The spec's ASSUMEs, and what the simulator's rings need: sizes
    /// that are powers of two (as the kernel's), the build's mutant.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.spec;
        s.validate()?;
        for (name, v) in [("FqSize", s.fq_size), ("RxSize", s.rx_size)] {
            if !v.is_power_of_two() || v > 1 << 16 {
                return Err(format!(
                    "{name} = {v}: a ring's size is a power of two up to 65536"
                ));
            }
        }
        if s.max_len > 16 {
            return Err(format!(
                "MaxLen = {}: at most 16 chunks a packet",
                s.max_len
            ));
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
