//! What a devmem simulation runs: the spec's constants (the model's
//! [`Config`]) and the seed. `spec.mutant` is set from the run (a mutant
//! is put back by ringlab-mutant's switch), so the projection is compared
//! with the model of the same mutant.

use serde::{Deserialize, Serialize};

use ringlab_model::devmem::{Config, Mode};

/// MAX_DONTNEED_FRAGS of net/core/sock.c.
pub const KERNEL_DONTNEED_LIMIT: u32 = 1024;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevmemConfig {
    pub spec: Config,
    pub seed: u64,
}

impl DevmemConfig {
    /// `bindings` bindings of `sockets` sockets and `niovs` net_iovs each,
    /// frags read in `parts` pieces, binds asking for `modes`; the kernel's
    /// MAX_DONTNEED_FRAGS, and token counts up to twice that.
    pub fn new(modes: &[Mode], bindings: usize, sockets: u8, niovs: u8, parts: u32) -> Self {
        let mut modes = modes.to_vec();
        modes.sort();
        modes.dedup();
        DevmemConfig {
            spec: Config {
                bindings: (1..=bindings).map(|i| format!("b{i}")).collect(),
                socks_per: sockets,
                niovs_per: niovs,
                parts,
                modes,
                max_count: 2 * KERNEL_DONTNEED_LIMIT,
                dontneed_limit: KERNEL_DONTNEED_LIMIT,
                lifetime: false,
                mutant: super::mutant(),
            },
            seed: 0,
        }
    }

    /// The spec's constants as they are, the mutant the build's.
    pub fn from_spec(spec: Config) -> Self {
        DevmemConfig {
            spec: Config {
                mutant: super::mutant(),
                ..spec
            },
            seed: 0,
        }
    }

    /// A small MAX_DONTNEED_FRAGS (and token counts just above it), as the
    /// spec's models have it.
    pub fn limit(mut self, dontneed_limit: u32, max_count: u32) -> Self {
        self.spec.dontneed_limit = dontneed_limit;
        self.spec.max_count = max_count;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn bindings(&self) -> usize {
        self.spec.bindings.len()
    }

    /// Sockets of all bindings.
    pub fn sockets(&self) -> usize {
        self.bindings() * usize::from(self.spec.socks_per)
    }

    /// The spec's ASSUMEs, and bounds the simulator keeps: token values
    /// (NiovsPer * Parts of them) fit the model's vectors.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.spec;
        if s.bindings.is_empty() {
            return Err("at least one binding".into());
        }
        if s.socks_per == 0 {
            return Err("0 sockets: a binding needs at least one".into());
        }
        if s.niovs_per == 0 {
            return Err("0 net_iovs: a binding needs at least one".into());
        }
        if s.parts == 0 {
            return Err("0 parts: a frag is read in at least one piece".into());
        }
        if s.parts > 64 {
            return Err(format!("{} parts: at most 64", s.parts));
        }
        if s.dontneed_limit == 0 {
            return Err("MAX_DONTNEED_FRAGS must be at least 1".into());
        }
        if s.mutant != super::mutant() {
            return Err(format!(
                "the config names mutant {} but this run puts back {}",
                s.mutant.id(),
                super::mutant().id()
            ));
        }
        s.validate()
    }
}
