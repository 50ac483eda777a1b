//! `ringlab diff`: the model of AF_XDP copy mode against the running
//! kernel (ringlab-kernel), then every scenario they agreed on validated
//! against specs/XskCopyTx.tla (cmd::chain). Prints `SKIP: <reason>` and
//! succeeds only when this process cannot reach the kernel's AF_XDP at
//! all.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use ringlab_kernel::campaign::{self, Opts, Summary};
use ringlab_kernel::env::{release, skip_reason};

use super::chain;

#[derive(Args)]
pub struct DiffArgs {
    /// Scenarios to generate
    #[arg(long, default_value_t = 200)]
    scenarios: u64,
    /// Campaign seed (default: from the clock; always printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Re-run one replay file (written by an earlier divergence) instead
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Print one JSON document on stdout
    #[arg(long)]
    json: bool,
    /// Do not validate the kernel traces against XskCopyTx with TLC
    #[arg(long)]
    no_chain: bool,
    /// Also write each kernel trace as an Apalache ITF file under
    /// target/ringlab/diff/traces/
    #[arg(long)]
    itf: bool,
}

pub fn run(a: &DiffArgs) -> Result<bool, String> {
    if let Some(why) = skip_reason() {
        println!("SKIP: {why}");
        return Ok(true);
    }
    if let Some(file) = &a.replay {
        let (r, m) = campaign::replay(file).map_err(|e| e.to_string())?;
        println!("replay {} (recorded on {}, profile {}; now {})", file.display(), r.kernel, r.profile, release());
        return Ok(match m {
            None => {
                println!("kernel and model agree on all {} operations", r.scenario.ops.len());
                true
            }
            Some(m) => {
                println!("diverges at operation {}:\n  model:  {:?}\n  kernel: {:?}", m.at, m.model, m.kernel);
                false
            }
        });
    }
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    });
    eprintln!("diff: seed {seed} (rerun with --seed {seed})");
    let out = ringlab_model::paths::find_root().ok().map(|r| r.join("target/ringlab/diff"));
    let itf = a.itf.then(|| out.as_ref().map(|o| o.join("traces"))).flatten();
    let sum = campaign::run(Opts { scenarios: a.scenarios, seed, progress: true, out, stop_after: None }).map_err(|e| e.to_string())?;
    let chain = (!a.no_chain).then(|| chain_of(&sum, itf.as_deref(), true));
    if a.json {
        println!(
            "{}",
            json!({"scenarios": sum.scenarios, "operations": sum.operations, "divergences": sum.divergences.len(),
                   "kernel": sum.kernel, "seed": sum.seed, "chain": chain})
        );
    } else {
        print_summary(&sum);
        if let Some(c) = &chain {
            println!("{}", chain_line(c));
        }
    }
    Ok(sum.divergences.is_empty() && chain.as_ref().map_or(true, chain::ok))
}

/// Validates the campaign's kernel traces against the spec (stderr says
/// how it went); its `"chain"` JSON.
fn chain_of(sum: &Summary, itf: Option<&std::path::Path>, progress: bool) -> serde_json::Value {
    if progress {
        eprintln!("diff: validating {} kernel traces against XskCopyTx with TLC", sum.chain.len());
    }
    let r = chain::of_summary(sum, itf);
    if let Ok(r) = &r {
        for x in &r.rejected {
            eprintln!("diff: chain: {x}");
        }
    }
    let c = chain::section(&r);
    if progress {
        eprintln!("diff: {}", chain_line(&c));
    }
    c
}

/// How many kernel traces the spec accepted, for people.
pub fn chain_line(c: &serde_json::Value) -> String {
    if let Some(e) = c["error"].as_str() {
        return format!("kernel traces not validated against XskCopyTx: {e}");
    }
    let mut out = format!(
        "{} kernel traces validated against XskCopyTx, {} rejected ({} steps, {} TLC runs, {}s)",
        c["validated"], c["rejected"], c["steps"], c["tlc_runs"], c["seconds"]
    );
    if c["unprojected"].as_u64().unwrap_or(0) > 0 {
        out += &format!(", {} not projected", c["unprojected"]);
    }
    out
}

/// The chain's part of `ringlab verify`'s closing line, from the diff
/// section: ", N kernel traces validated against XskCopyTx".
pub fn chain_words(d: &serde_json::Value) -> String {
    let c = &d["chain"];
    if c.is_null() {
        return String::new();
    }
    if c["error"].is_string() {
        return ", kernel traces NOT validated against XskCopyTx".into();
    }
    let rejected = c["rejected"].as_u64().unwrap_or(0);
    let mut out = format!(", {} kernel traces validated against XskCopyTx", c["validated"]);
    if rejected > 0 {
        out += &format!(", {rejected} REJECTED");
    }
    out
}

/// The campaign `ringlab verify` runs: its `"diff"` section, and whether
/// it found no divergence (a skip is not a failure; it says why).
pub fn verify_section(scenarios: u64, seed: u64, progress: bool) -> (serde_json::Value, bool) {
    if let Some(why) = skip_reason() {
        eprintln!("diff: SKIP: {why}");
        return (json!({"skipped": why, "kernel": release()}), true);
    }
    if progress {
        eprintln!("diff: {scenarios} scenarios, seed {seed} (rerun with ringlab diff --scenarios {scenarios} --seed {seed})");
    }
    let out = ringlab_model::paths::find_root().ok().map(|r| r.join("target/ringlab/diff"));
    match campaign::run(Opts { scenarios, seed, progress, out, stop_after: None }) {
        Ok(sum) => {
            // stderr: verify --json keeps stdout for its document.
            for f in &sum.replay_files {
                eprintln!("diff: divergence, replay: ringlab diff --replay {}", f.display());
            }
            eprintln!(
                "diff: kernel {} (profile {}): {} scenarios, {} operations, {} divergences",
                sum.kernel,
                sum.profile,
                sum.scenarios,
                sum.operations,
                sum.divergences.len()
            );
            let chain = chain_of(&sum, None, progress);
            let ok = sum.divergences.is_empty() && chain::ok(&chain);
            (
                json!({"scenarios": sum.scenarios, "operations": sum.operations, "divergences": sum.divergences.len(),
                       "kernel": sum.kernel, "profile": sum.profile, "seed": sum.seed,
                       "replay_files": sum.replay_files, "chain": chain}),
                ok,
            )
        }
        Err(e) => {
            eprintln!("diff: error: {e}");
            (json!({"error": e.to_string(), "kernel": release(), "seed": seed}), false)
        }
    }
}

fn print_summary(s: &Summary) {
    for (d, f) in s.divergences.iter().zip(s.replay_files.iter().map(Some).chain(std::iter::repeat(None))) {
        if let Some(m) = &d.mismatch {
            println!("divergence (scenario seed {:#x}, {} ops after shrinking) at op {}:", d.seed, d.scenario.ops.len(), m.at);
            println!("  model:  {:?}\n  kernel: {:?}", m.model, m.kernel);
        }
        if let Some(f) = f {
            println!("  replay: ringlab diff --replay {}", f.display());
        }
    }
    let rate = if s.seconds > 0.0 { s.operations as f64 / s.seconds } else { 0.0 };
    println!(
        "kernel {} (profile {}), seed {}: {} scenarios, {} operations, {} divergences, {:.0} operations/s",
        s.kernel,
        s.profile,
        s.seed,
        s.scenarios,
        s.operations,
        s.divergences.len(),
        rate
    );
}
