//! `ringlab check`: TLC on the manifest's models, each against its
//! expected outcome and with its action coverage; on the whole tier, each
//! spec's coverage and the thresholds of specs/thresholds.json too.

use std::path::Path;

use clap::Args;
use serde::Serialize;

use ringlab_model::schema::Header;
use ringlab_tlc::check::{self, CheckOpts, ModelResult};
use ringlab_tlc::coverage::SpecCoverage;
use ringlab_tlc::manifest::{Manifest, Model};
use ringlab_tlc::thresholds::{self, Registry, ThresholdResult};

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
    /// Show each counterexample as one actor's steps only (user, kernel,
    /// driver; producer or consumer for XskRing), the others' steps
    /// between two of its rows named on one line
    #[arg(long, value_name = "NAME")]
    actor: Option<String>,
    /// Check the named models on TLC's TLCServer with this many TLCWorker
    /// JVMs over loopback, then on one single-process TLC, and compare
    /// outcomes and distinct states (with the manifest's too). Safety
    /// only: a model with a PROPERTY is refused
    #[arg(long, value_name = "WORKERS")]
    distributed: Option<usize>,
    /// With --distributed: seconds before every JVM is killed
    #[arg(long, value_name = "SECONDS", default_value_t = 900, requires = "distributed")]
    timeout: u64,
}

/// `ringlab check --json`.
#[derive(Serialize)]
struct CheckDoc<'a> {
    #[serde(flatten)]
    header: Header,
    models: &'a [ModelResult],
    coverage: &'a [SpecCoverage],
    thresholds: &'a [ThresholdResult],
    ok: bool,
}

pub fn run(a: &CheckArgs) -> Result<bool, String> {
    if a.record && a.tlc.workers > 1 {
        return Err(format!(
            "--record with --workers {}: on more than one worker TLC's depth is not exact; record on one (the default)",
            a.tlc.workers
        ));
    }
    let (root, man) = load()?;
    if let Some(workers) = a.distributed {
        if a.record || a.common.json || a.actor.is_some() || a.models.is_empty() {
            return Err("--distributed takes model names only (no --record, --json or --actor), e.g. `ringlab check --distributed 2 xsk-ring-fill4`".into());
        }
        let models = check::select(&man, &a.models, a.tlc.deep)?;
        return super::check_distributed::run(&root, &models, workers, a.timeout, a.common.quiet);
    }
    let models = check::select(&man, &a.models, a.tlc.deep)?;
    if let Some(n) = &a.actor {
        if a.common.json || a.common.quiet {
            return Err(format!("--actor {n}: it shapes the printed counterexamples, and --json or --quiet prints none"));
        }
        for m in &models {
            let actors = man.policy(&m.spec).actors;
            if !actors.contains_key(n) {
                let names: Vec<&str> = actors.keys().map(String::as_str).collect();
                return Err(format!(
                    "--actor {n}: model `{}` is of {}, whose actors are {} (specs/manifest.json, specs.{}.actors)",
                    m.name,
                    m.spec,
                    if names.is_empty() { "not listed".to_string() } else { names.join(", ") },
                    m.spec
                ));
            }
        }
    }
    let mut results = run_models_as(&root, &man, &models, &a.tlc, &a.common, a.actor.clone())?;
    if a.record {
        check::record(&root.join("specs/manifest.json"), &results)?;
        // The manifest now holds what was found; a reference model must
        // then be shown to agree by its bfs test.
        for r in &mut results {
            r.drift = None;
        }
    }
    let coverage = check::spec_coverage(&man, &results);
    // Thresholds are the tier's: with models named, only those run.
    let crossed = if a.models.is_empty() { run_thresholds(&root, &man, &a.tlc, &a.common)? } else { Vec::new() };
    let flags: Vec<bool> = results
        .iter()
        .map(ModelResult::ok)
        .chain(coverage.iter().map(SpecCoverage::ok))
        .chain(crossed.iter().map(|t| t.ok))
        .collect();
    let ok = flags.iter().all(|f| *f);
    if a.common.json {
        let doc =
            CheckDoc { header: Header::new("check"), models: &results, coverage: &coverage, thresholds: &crossed, ok };
        println!("{}", to_json(&doc)?);
    } else {
        print_table(&results);
        println!();
        print_coverage(&coverage);
        if !crossed.is_empty() {
            println!();
            print_thresholds(&crossed);
        }
        println!("{}", table::closing("check", &flags));
    }
    Ok(ok)
}

pub fn run_models(
    root: &Path,
    man: &Manifest,
    models: &[&Model],
    t: &TlcArgs,
    c: &Common,
) -> Result<Vec<ModelResult>, String> {
    run_models_as(root, man, models, t, c, None)
}

fn run_models_as(
    root: &Path,
    man: &Manifest,
    models: &[&Model],
    t: &TlcArgs,
    c: &Common,
    actor: Option<String>,
) -> Result<Vec<ModelResult>, String> {
    if models.is_empty() {
        return Ok(Vec::new());
    }
    let tlc = t.tlc()?;
    let opts = CheckOpts { workers: t.workers.max(1), progress: !c.quiet, show_traces: !c.json && !c.quiet, actor };
    let jobs = ringlab_tlc::parallel::jobs(t.jobs);
    Ok(ringlab_tlc::parallel::in_parallel(models, jobs, |m| check::run_model(&tlc, root, man, m, &opts)))
}

/// Every threshold of specs/thresholds.json, checked.
pub fn run_thresholds(root: &Path, man: &Manifest, t: &TlcArgs, c: &Common) -> Result<Vec<ThresholdResult>, String> {
    let reg = Registry::load(&root.join("specs/thresholds.json"))?;
    reg.validate(man).map_err(|e| format!("specs/thresholds.json: {e}"))?;
    let tlc = t.tlc()?;
    Ok(thresholds::check(&tlc, root, man, &reg, !c.quiet))
}

pub fn print_table(results: &[ModelResult]) {
    let mut t = table::new(
        &["model", "expected", "outcome", "states", "depth", "seconds", "actions", "redundant", ""],
        &[3, 4, 5, 6],
    );
    let dash = |x: Option<u64>| x.map_or_else(|| "-".to_string(), |d| d.to_string());
    for r in results {
        let cov = r.coverage.as_ref();
        t.add_row(vec![
            r.name.clone(),
            r.expected.clone(),
            r.outcome.clone(),
            dash(r.distinct_states),
            dash(r.depth),
            format!("{:.1}", r.seconds),
            cov.map_or_else(|| "-".to_string(), |c| c.taken_words()),
            cov.map_or_else(|| "-".to_string(), |c| c.redundant_words()),
            if r.ok() { "ok" } else { "FAIL" }.to_string(),
        ]);
    }
    println!("{}", table::render(&t));
    for r in results {
        if let Some(e) = &r.error {
            println!("\n{}: TLC did not finish:\n{e}", r.name);
        }
        for f in r.coverage.iter().flat_map(|c| c.failures()) {
            println!("{}: {f}", r.name);
        }
        match &r.drift {
            Some(d) if r.drift_fails => println!("{}: {d}", r.name),
            Some(d) => println!("note: {}: {d}", r.name),
            None => {}
        }
    }
}

/// One line per spec: its actions, and which no model takes or adds
/// nothing.
pub fn print_coverage(specs: &[SpecCoverage]) {
    let mut t = table::new(&["spec", "actions", "never taken", "redundant", "aliases", "state graphs", ""], &[1]);
    for s in specs {
        t.add_row(vec![
            s.spec.clone(),
            s.actions.len().to_string(),
            s.never_words(),
            s.redundant_words(),
            s.aliases_words(),
            if s.graphs.is_empty() { "-".to_string() } else { s.graphs.join(", ") },
            if s.ok() { "ok" } else { "FAIL" }.to_string(),
        ]);
    }
    println!("{}", table::render(&t));
    for s in specs {
        for f in s.failures() {
            println!("{}: {f}", s.spec);
        }
    }
}

/// One line per threshold: the kernel's value, the models', what crosses
/// it and the verdict.
pub fn print_thresholds(ts: &[ThresholdResult]) {
    let mut t = table::new(&["threshold", "kernel", "model", "crossed by", ""], &[]);
    for r in ts {
        t.add_row(vec![
            r.name.clone(),
            r.kernel.clone(),
            r.model.clone(),
            r.crossed_by(),
            if r.ok { "ok".to_string() } else { format!("FAIL: {}", r.verdict()) },
        ]);
    }
    println!("{}", table::render(&t));
}
