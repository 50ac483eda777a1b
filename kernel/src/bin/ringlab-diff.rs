//! ringlab-diff: the differential campaign under a chosen profile, the
//! fault campaign, and a probe of the running kernel, in one binary that
//! needs only the model, the simulator and the harness (it runs inside
//! the kernel/vm guests). Each command prints one JSON object on stdout;
//! progress and errors go to stderr. Exit codes: 0 pass, 1 divergences or
//! a broken check, 2 error, 3 skipped.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use ringlab_kernel::campaign::{self, Opts};
use ringlab_kernel::env::{release, skip_reason};
use ringlab_kernel::failnth;
use ringlab_kernel::faults::{self, FaultOpts};
use ringlab_kernel::flags::Flags;
use ringlab_kernel::probe::probe;
use ringlab_kernel::txopts::TX_BATCH_SIZE;
use ringlab_model::afxdp::Profile;

const USAGE: &str = "usage:
  ringlab-diff campaign --profile 6.12|6.18|batch [--batch N] [--budget B] [--scenarios K] [--seed S] [--out DIR]
  ringlab-diff faults [--batch N] [--budget B] [--rounds R] [--seed S]
  ringlab-diff probe";

/// XSK_MAX_GENERIC_XMIT_BATCH in the series.
const MAX_BATCH: u32 = 1024;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match command(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ringlab-diff: {e}");
            2
        }
    };
    std::process::exit(code);
}

fn command(args: &[String]) -> Result<i32, String> {
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("campaign") => diff(&Flags::parse(rest, &["profile", "batch", "budget", "scenarios", "seed", "out"])?),
        Some("faults") => fault_campaign(&Flags::parse(rest, &["batch", "budget", "rounds", "seed"])?),
        Some("probe") => {
            Flags::parse(rest, &[])?;
            print(&serde_json::to_value(probe().map_err(|e| format!("probe: {e}"))?).map_err(|e| e.to_string())?);
            Ok(0)
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(0)
        }
        Some(other) => Err(format!("unknown command `{other}`\n{USAGE}")),
        None => Err(USAGE.into()),
    }
}

fn print(v: &Value) {
    println!("{v}");
}

/// --seed, else one from the clock; printed either way.
fn seed(f: &Flags) -> Result<u64, String> {
    let clock = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let s = f.num("seed", Some(clock))?;
    eprintln!("ringlab-diff: seed {s}");
    Ok(s)
}

/// --batch and --budget within what the series accepts.
fn batch_budget(f: &Flags) -> Result<(u32, u32), String> {
    let (batch, budget) = (f.num("batch", Some(0))?, f.num("budget", Some(TX_BATCH_SIZE))?);
    if batch > MAX_BATCH {
        return Err(format!("--batch {batch}: at most {MAX_BATCH}"));
    }
    if !(TX_BATCH_SIZE..=1 << 16).contains(&budget) {
        return Err(format!(
            "--budget {budget}: {TX_BATCH_SIZE} ..= 65536 (XDP_MAX_TX_SKB_BUDGET's floor is {TX_BATCH_SIZE})"
        ));
    }
    Ok((batch, budget))
}

fn root() -> Result<(), String> {
    match skip_reason() {
        Some(why) => Err(format!("cannot run on this machine: {why}")),
        None => Ok(()),
    }
}

fn profile(f: &Flags, batch: u32, budget: u32) -> Result<Profile, String> {
    let name = f.get("profile").ok_or("--profile is required (6.12, 6.18 or batch)")?;
    let mut p = match name {
        "6.12" => Profile::for_release("6.12"),
        "6.18" => Profile::for_release("6.18"),
        "batch" => return Ok(Profile::batch(batch, budget)),
        _ => return Err(format!("--profile `{name}`: one of 6.12, 6.18, batch")),
    };
    if batch > 0 {
        return Err(format!("--batch {batch} needs --profile batch"));
    }
    p.tx_budget = budget;
    Ok(p)
}

fn diff(f: &Flags) -> Result<i32, String> {
    let (batch, budget) = batch_budget(f)?;
    let p = profile(f, batch, budget)?;
    let scenarios = f.num("scenarios", Some(200))?;
    let seed = seed(f)?;
    root()?;
    // Batch 0 sets no batch option: make sure the series is there all the same.
    if f.get("profile") == Some("batch") && !probe().map_err(|e| format!("probe: {e}"))?.xmit_batch_supported {
        return Err("the running kernel has no XDP_GENERIC_XMIT_BATCH (is the series applied?)".into());
    }
    eprintln!(
        "ringlab-diff: kernel {}, profile {} (batch {batch}, budget {budget}), {scenarios} scenarios",
        release(),
        p.name
    );
    let opts = Opts { scenarios, seed, progress: true, out: f.get("out").map(Into::into), stop_after: None };
    let sum = campaign::run_with(opts, p, 1).map_err(|e| format!("campaign: {e}"))?;
    print(&json!({
        "kernel": sum.kernel, "profile": sum.profile, "batch": batch, "budget": budget, "seed": seed,
        "scenarios": sum.scenarios, "operations": sum.operations, "divergences": sum.divergences.len(),
        "first_divergence": sum.divergences.first(), "replay_files": sum.replay_files, "seconds": sum.seconds,
    }));
    Ok(if sum.divergences.is_empty() { 0 } else { 1 })
}

fn fault_campaign(f: &Flags) -> Result<i32, String> {
    let (batch, budget) = batch_budget(f)?;
    let rounds = f.num("rounds", Some(1000))?;
    let seed = seed(f)?;
    root()?;
    if let Some(why) = failnth::unavailable() {
        eprintln!("ringlab-diff: faults skipped: {why}");
        print(
            &json!({"kernel": release(), "batch": batch, "budget": budget, "rounds": rounds, "seed": seed, "skipped": why}),
        );
        return Ok(3);
    }
    let o = FaultOpts { batch, budget, rounds, seed, inject: true, progress: true };
    let rep = faults::run(o).map_err(|e| format!("faults: {e}"))?;
    print(&serde_json::to_value(&rep).map_err(|e| e.to_string())?);
    Ok(if rep.ok() { 0 } else { 1 })
}
