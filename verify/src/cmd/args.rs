//! Arguments several subcommands share.

use std::path::PathBuf;

use clap::Args;

use ringlab_tlc::manifest::{find_root, Manifest};
use ringlab_tlc::Tlc;

#[derive(Args, Clone, Debug)]
pub struct Common {
    /// Print one JSON document on stdout instead of tables
    #[arg(long)]
    pub json: bool,
    /// No progress lines on stderr
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Clone, Debug)]
pub struct TlcArgs {
    /// TLC worker threads. On one, TLC's search is breadth-first and its
    /// depth exact; on more it is breadth-first only roughly, its depth can
    /// change from run to run, and depths are then neither compared with
    /// the manifest nor recorded
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// Models checked at once, each its own TLC (0: one per core). A JVM
    /// starting up is most of a small model's time; two cores run two.
    /// The mutants' Rust checks run this many test binaries at once too
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Include the deep tier (bigger rings; minutes, not seconds)
    #[arg(long)]
    pub deep: bool,
    /// Start a JVM for each model, as TLC is usually run. By default each
    /// of --jobs JVMs checks one model after another, each model's TLC
    /// loaded afresh in it, which saves a JVM start and warm-up per model
    #[arg(long)]
    pub jvm_per_model: bool,
}

impl TlcArgs {
    /// TLC, pooled unless --jvm-per-model.
    pub fn tlc(&self) -> Result<Tlc, String> {
        let tlc = Tlc::locate()?;
        if self.jvm_per_model {
            Ok(tlc)
        } else {
            tlc.pooled()
        }
    }
}

/// The repository root and its manifest of models and mutants.
pub fn load() -> Result<(PathBuf, Manifest), String> {
    let root = find_root()?;
    let man = Manifest::load(&root.join("specs/manifest.json"))?;
    Ok((root, man))
}

/// A document as pretty JSON, or why it could not be written.
pub fn to_json(v: &impl serde::Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(v).map_err(|e| format!("cannot write the JSON document: {e}"))
}
