//! `ringlab mutants`: each known bug put back, and the checks the
//! manifest says must catch it run against it.

use std::collections::HashMap;
use std::path::Path;

use clap::Args;
use serde::Serialize;

use ringlab_model::schema::Header;
use ringlab_results::{MutantDoc, MutantResult};
use ringlab_tlc::check::ModelResult;
use ringlab_tlc::manifest::{Killer, Manifest, Model, Mutant};

use super::args::{load, to_json, Common, TlcArgs};
use super::check::run_models;
use crate::mutants::{self, RustChecks};
use crate::table;

#[derive(Args)]
pub struct MutantArgs {
    /// Mutant ids (default: all)
    ids: Vec<String>,
    /// Print, as cargo arguments (`--features ... --test NAME ...`), the
    /// workspace's test targets no mutant's killer runs, and run nothing:
    /// `plain` the others, `loom` the loom ones (named loom*), `features`
    /// only the features. `make test` runs these with cargo and leaves
    /// every killer's target to `ringlab verify`, which runs it without a
    /// mutant first, so each test runs once; the features are those
    /// verify builds the killers with, so both builds share their libraries.
    #[arg(long, value_name = "KIND", conflicts_with = "ids")]
    other_tests: Option<OtherTests>,
    #[command(flatten)]
    first_kill: FirstKill,
    #[command(flatten)]
    tlc: TlcArgs,
    #[command(flatten)]
    common: Common,
}

/// How many of a mutant's Rust checks run.
#[derive(Args)]
pub struct FirstKill {
    /// Run each mutant's Rust checks cheapest first and stop at the first
    /// that kills it; the rest show as skipped. Every test target still
    /// runs once without a mutant, and every TLC model and proof runs.
    /// make test uses it; make verify runs every check
    #[arg(long)]
    pub first_kill: bool,
}

#[derive(Serialize)]
struct MutantsDoc {
    #[serde(flatten)]
    header: Header,
    mutants: Vec<MutantDoc>,
    ok: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OtherTests {
    Plain,
    Loom,
    Features,
}

pub fn run(a: &MutantArgs) -> Result<bool, String> {
    let (root, man) = load()?;
    if let Some(kind) = a.other_tests {
        let features = if kind == OtherTests::Loom { "mutants" } else { crate::test_bins::MUTANT_FEATURES };
        let mut args = vec![format!("--features {features}")];
        if kind != OtherTests::Features {
            let all = mutants::test_targets(&root)?;
            let tests = mutants::other_tests(&man, &all, kind == OtherTests::Loom);
            // None: print nothing, so that the caller runs nothing.
            if tests.is_empty() {
                args.clear();
            }
            args.extend(tests.iter().map(|t| format!("--test {t}")));
        }
        println!("{}", args.join(" "));
        return Ok(true);
    }
    let chosen = mutants::select(&man, &a.ids)?;
    let models = run_models(&root, &man, &models_for(&man, &chosen), &a.tlc, &a.common)?;
    let results = run_mutants(&root, &chosen, &models, a.tlc.jobs, a.first_kill.first_kill, &a.common);
    let ok = results.iter().all(MutantResult::ok);
    if a.common.json {
        let mutants = results.iter().map(MutantDoc::from).collect();
        println!("{}", to_json(&MutantsDoc { header: Header::new("mutants"), mutants, ok })?);
    } else {
        mutants::print_table(&results);
        println!("{}", table::closing("mutants", &results.iter().map(MutantResult::ok).collect::<Vec<_>>()));
    }
    Ok(ok)
}

/// The TLC models the chosen mutants' killers name, each once.
fn models_for<'a>(man: &'a Manifest, chosen: &[&Mutant]) -> Vec<&'a Model> {
    let mut needed: Vec<&Model> = Vec::new();
    for k in chosen.iter().flat_map(|m| &m.killers) {
        if let Killer::Tlc { model } = k {
            if let Some(m) = man.model(model) {
                if !needed.iter().any(|n| n.name == m.name) {
                    needed.push(m);
                }
            }
        }
    }
    needed
}

/// Every chosen mutant against its killers: the TLC models already run,
/// the proofs, and the Rust checks, `jobs` test runs at once (0: one per core).
pub fn run_mutants(
    root: &Path,
    chosen: &[&Mutant],
    models: &[ModelResult],
    jobs: usize,
    first_kill: bool,
    c: &Common,
) -> Vec<MutantResult> {
    let by_name: HashMap<String, ModelResult> = models.iter().map(|m| (m.name.clone(), m.clone())).collect();
    let rust = RustChecks::run(root, chosen, ringlab_tlc::parallel::jobs(jobs), first_kill, !c.quiet);
    chosen.iter().map(|mu| mutants::run_mutant(mu, &by_name, &rust, !c.quiet)).collect()
}
