//! `ringlab check --distributed WORKERS MODEL...`: each model on TLC's
//! TLCServer with WORKERS TLCWorker JVMs over loopback, then on one
//! single-process TLC, the two held to each other and to the manifest.

use std::time::Duration;

use ringlab_tlc::distributed::{self, DistOpts};
use ringlab_tlc::manifest::Model;
use ringlab_tlc::{Outcome, RunOpts, Tlc, TlcResult};

use crate::table;

/// Runs `models` (at least one) both ways; false if any differs.
pub fn run(root: &std::path::Path, models: &[&Model], workers: usize, timeout: u64, quiet: bool) -> Result<bool, String> {
    if models.is_empty() {
        return Err("--distributed: name the models to check (e.g. xsk-ring-fill4)".into());
    }
    let specs = root.join("specs");
    for m in models {
        if let Some(why) = distributed::refusal(m, &specs.join(&m.config)) {
            return Err(why);
        }
    }
    println!("distributed TLC checks safety only (invariants, deadlock): no temporal PROPERTY is checked");
    let tlc = Tlc::locate()?;
    let opts = DistOpts { workers, timeout: Duration::from_secs(timeout) };
    let mut t = table::new(&["model", "expected", "run", "outcome", "states", "manifest", "seconds", ""], &[4, 5, 6]);
    let mut flags = Vec::new();
    let mut notes = Vec::new();
    for m in models {
        let (spec, cfg) = (specs.join(&m.spec), specs.join(&m.config));
        if !quiet {
            eprintln!("  {:<34} TLCServer + {workers} TLCWorkers", m.name);
        }
        let dist = distributed::run(&tlc, &spec, &cfg, &opts, &mut |_| {}).map_err(|e| format!("{}: {e}", m.name))?;
        if !quiet {
            eprintln!("  {:<34} single-process TLC", m.name);
        }
        let metadir = std::env::temp_dir().join(format!("ringlab-dist-single-{}-{}", std::process::id(), m.name));
        let ropts = RunOpts { workers: 1, metadir, library: None, extra: Vec::new() };
        let single = ringlab_tlc::run(&tlc, &spec, &cfg, &[], &ropts, &mut |_| {}).map_err(|e| format!("{}: {e}", m.name))?;
        let why = disagreement(m, &dist, &single, workers);
        flags.push(why.is_none());
        for (label, r) in [(format!("{workers} workers"), &dist), ("1 process".to_string(), &single)] {
            t.add_row(vec![
                m.name.clone(),
                m.expected.clone(),
                label,
                r.outcome.label(),
                r.distinct_states.map_or_else(|| "-".into(), |d| d.to_string()),
                m.distinct_states.map_or_else(|| "-".into(), |d| d.to_string()),
                format!("{:.1}", r.seconds),
                if why.is_none() { "ok" } else { "FAIL" }.to_string(),
            ]);
        }
        if let Some(w) = why {
            notes.push(format!("{}: {w}", m.name));
        }
        for r in [&dist, &single] {
            if let Outcome::Error(e) = &r.outcome {
                notes.push(format!("{}: TLC did not finish:\n{e}", m.name));
            }
        }
    }
    println!("{}", table::render(&t));
    for n in &notes {
        println!("{n}");
    }
    println!("{}", table::closing("check --distributed", &flags));
    Ok(flags.iter().all(|f| *f))
}

/// How the distributed run differs from the expected outcome, the
/// single-process run or the manifest, if it does. A violation stops
/// wherever a worker found it, so only a pass's state counts compare.
fn disagreement(m: &Model, dist: &TlcResult, single: &TlcResult, workers: usize) -> Option<String> {
    let (d, s) = (dist.outcome.label(), single.outcome.label());
    if d != m.expected || s != m.expected {
        return Some(format!("expected {}, distributed TLC found {d}, single-process TLC {s}", m.expected));
    }
    if m.expected != "pass" {
        return None;
    }
    let mut differ = Vec::new();
    if dist.distinct_states != single.distinct_states {
        differ.push(format!("single-process TLC: {:?}", single.distinct_states));
    }
    if let Some(want) = m.distinct_states.filter(|w| Some(*w) != dist.distinct_states) {
        differ.push(format!("manifest: {want}"));
    }
    (!differ.is_empty()).then(|| {
        format!(
            "{:?} distinct states on {workers} workers ({})",
            dist.distinct_states,
            differ.join(", ")
        )
    })
}
