//! What a NAPI skb cache simulation runs: the spec's constants (the
//! model's [`Config`]) and the seed. `spec.mutant` is set from the run (a
//! mutant is put back by ringlab-mutant's switch), so the projection is
//! compared with the model of the same mutant.

use serde::{Deserialize, Serialize};

use ringlab_model::napi_cache::{Config, Path};

use super::net::{Shape, TunPath};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NapiCacheConfig {
    pub spec: Config,
    pub seed: u64,
}

impl NapiCacheConfig {
    /// The spec's constants as they are, the mutant the build's.
    pub fn from_spec(spec: Config) -> Self {
        NapiCacheConfig {
            spec: Config { mutant: super::mutant(), ..spec },
            seed: 0,
        }
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn slab_fail(&self) -> bool {
        self.spec.slab_fail
    }

    pub fn clone_on(&self) -> bool {
        self.spec.clone
    }

    /// The constants the objects are built with.
    pub fn shape(&self) -> Shape {
        let s = &self.spec;
        Shape {
            n_cpu: s.ncpu,
            n_skb: s.nskb,
            cache_size: s.cache_size as usize,
            bulk: s.bulk as usize,
            defer_max: s.defer_max,
            batch: s.batch,
            n_frames: s.nframes,
            path: match s.path {
                Path::Slab => TunPath::Slab,
                Path::Bulk => TunPath::Bulk,
                Path::Flush => TunPath::Flush,
            },
        }
    }

    /// The spec's ASSUMEs, and what the simulator needs besides: at most
    /// 64 heads (the slab's bitmap), CPUs and heads that fit a byte.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.spec;
        s.validate()?;
        if s.nskb > 64 {
            return Err(format!("NSkb = {}: at most 64 skb heads", s.nskb));
        }
        if s.ncpu > 64 {
            return Err(format!("NCpu = {}: at most 64 CPUs", s.ncpu));
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
