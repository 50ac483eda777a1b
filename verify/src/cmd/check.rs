//! `ringlab check`: TLC on the manifest's models, each against its
//! expected outcome.

use std::path::Path;

use clap::Args;
use serde::Serialize;

use ringlab_model::schema::Header;
use ringlab_tlc::check::{self, CheckOpts, ModelResult};
use ringlab_tlc::manifest::Model;
use ringlab_tlc::Tlc;

use super::args::{load, to_json, Common, TlcArgs};
use crate::table;

#[derive(Args)]
pub struct CheckArgs {
    /// Model names (default: every ci-tier model)
    models: Vec<String>,
    #[command(flatten)]
    tlc: TlcArgs,
    #[command(flatten)]
    common: Common,
    /// Write the measured state counts, depths and times into the manifest
    #[arg(long)]
    record: bool,
}

/// `ringlab check --json`.
#[derive(Serialize)]
struct CheckDoc<'a> {
    #[serde(flatten)]
    header: Header,
    models: &'a [ModelResult],
    ok: bool,
}

pub fn run(a: &CheckArgs) -> Result<bool, String> {
    let (root, man) = load()?;
    let models = check::select(&man, &a.models, a.tlc.deep)?;
    let results = run_models(&root, &models, &a.tlc, &a.common)?;
    if a.record {
        check::record(&root.join("specs/manifest.json"), &results)?;
    }
    let ok = results.iter().all(ModelResult::ok);
    if a.common.json {
        println!("{}", to_json(&CheckDoc { header: Header::new("check"), models: &results, ok })?);
    } else {
        print_table(&results);
        println!("{}", table::closing("models", &results.iter().map(ModelResult::ok).collect::<Vec<_>>()));
    }
    Ok(ok)
}

pub fn run_models(root: &Path, models: &[&Model], t: &TlcArgs, c: &Common) -> Result<Vec<ModelResult>, String> {
    if models.is_empty() {
        return Ok(Vec::new());
    }
    let tlc = Tlc::locate()?;
    let opts = CheckOpts { workers: t.workers.max(1), progress: !c.quiet, show_traces: !c.json && !c.quiet };
    Ok(models.iter().map(|m| check::run_model(&tlc, root, m, &opts)).collect())
}

pub fn print_table(results: &[ModelResult]) {
    let mut t = table::new(&["model", "expected", "outcome", "states", "depth", "seconds", ""], &[3, 4, 5]);
    let dash = |x: Option<u64>| x.map_or_else(|| "-".to_string(), |d| d.to_string());
    for r in results {
        t.add_row(vec![
            r.name.clone(),
            r.expected.clone(),
            r.outcome.clone(),
            dash(r.distinct_states),
            dash(r.depth),
            format!("{:.1}", r.seconds),
            if r.ok() { "ok" } else { "FAIL" }.to_string(),
        ]);
    }
    println!("{}", table::render(&t));
    for r in results {
        if let Some(e) = &r.error {
            println!("\n{}: TLC did not finish:\n{e}", r.name);
        }
        if let Some(d) = &r.drift {
            println!("note: {}: {d}", r.name);
        }
    }
}
