//! The reader of NapiSkbCache.tla's TLC model configs
//! (specs/mc/MCNapiSkbCache*.cfg).

use std::path::Path as FsPath;

use crate::cfg::{CfgError, CfgFile, Constants, Rhs};

use super::config::{Config, Mutant, Path};

/// What one MCNapiSkbCache*.cfg file says.
pub type ModelCfg = crate::cfg::ModelCfg<Config>;

const NAMES: [&str; 11] = [
    "NCpu",
    "NSkb",
    "CacheSize",
    "Bulk",
    "DeferMax",
    "Batch",
    "NFrames",
    "Path",
    "Clone",
    "SlabFail",
    "Mutant",
];

impl Constants for Config {
    type Rhs = Rhs;
    fn rhs(name: &str, text: &str) -> Result<Rhs, String> {
        Rhs::named(&NAMES, name, text)
    }
    fn from_constants(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
        config_of(file)
    }
}

impl Config {
    /// The CONSTANTS of an MCNapiSkbCache*.cfg file.
    pub fn from_cfg_file(path: impl AsRef<FsPath>) -> Result<Config, CfgError> {
        Ok(ModelCfg::from_file(path)?.config)
    }
}

fn config_of(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
    let positive = |name: &str, max: i64| file.int_in(name, 1, max);
    let cfg = Config {
        ncpu: positive("NCpu", 64)? as u8,
        nskb: positive("NSkb", 250)? as u8,
        cache_size: positive("CacheSize", 1 << 16)? as u32,
        bulk: positive("Bulk", 1 << 16)? as u32,
        defer_max: positive("DeferMax", 1 << 16)? as u32,
        batch: positive("Batch", 1 << 16)? as u32,
        nframes: file.int_in("NFrames", 0, 1 << 24)? as u32,
        path: file.id("Path", "one of \"slab\", \"bulk\", \"flush\"", Path::from_id)?,
        clone: file.boolean("Clone")?,
        slab_fail: file.boolean("SlabFail")?,
        mutant: file.mutant::<Mutant>()?,
    };
    cfg.validate()
        .map_err(|msg| file.error_at(0, format!("ASSUME fails: {msg}")))?;
    Ok(cfg)
}
