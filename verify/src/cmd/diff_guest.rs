//! ringlab-diff: the differential campaign under a chosen profile, the
//! fault campaign, and a probe of the running kernel, in one binary that
//! needs only the model, the simulator and the harness (it runs inside
//! the kernel/vm guests). Each command prints one JSON object on stdout;
//! progress and errors go to stderr. Exit codes: 0 pass, 1 divergences or
//! a broken check, 2 error or bad usage, 3 skipped.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::{json, Value};

use ringlab_kernel::campaign::{self, Opts};
use ringlab_kernel::env::{release, skip_reason};
use ringlab_kernel::failnth;
use ringlab_kernel::faults::{self, FaultOpts};
use ringlab_kernel::probe::probe;
use ringlab_kernel::txopts::TX_BATCH_SIZE;
use ringlab_model::afxdp::Profile;

/// XSK_MAX_GENERIC_XMIT_BATCH in the series.
const MAX_BATCH: u32 = 1024;

#[derive(Parser)]
#[command(name = "ringlab-diff", about = "ringlab's differential harness for the test VM")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Scenarios on the running kernel, each compared with the model under --profile
    Campaign {
        #[arg(long, value_enum)]
        profile: ProfileName,
        #[command(flatten)]
        tx: TxArgs,
        #[arg(long, default_value_t = 200)]
        scenarios: u64,
        /// Seed (default: from the clock; always printed)
        #[arg(long)]
        seed: Option<u64>,
        /// Where replay files of divergences go
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Allocation faults injected into sendto, then frame conservation and no CQ leak
    Faults {
        #[command(flatten)]
        tx: TxArgs,
        #[arg(long, default_value_t = 1000)]
        rounds: u64,
        /// Seed (default: from the clock; always printed)
        #[arg(long)]
        seed: Option<u64>,
    },
    /// What the running kernel supports
    Probe,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum ProfileName {
    #[value(name = "6.12")]
    V6_12,
    #[value(name = "6.18")]
    V6_18,
    /// the series (XDP_GENERIC_XMIT_BATCH)
    Batch,
}

#[derive(Args, Clone, Copy)]
struct TxArgs {
    /// XDP_GENERIC_XMIT_BATCH (0: the per-descriptor loop)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=MAX_BATCH as i64))]
    batch: u32,
    /// XDP_MAX_TX_SKB_BUDGET (its floor is TX_BATCH_SIZE)
    #[arg(long, default_value_t = TX_BATCH_SIZE, value_parser = clap::value_parser!(u32).range(TX_BATCH_SIZE as i64..=1 << 16))]
    budget: u32,
}

fn main() {
    let code = match command(Cli::parse().cmd) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ringlab-diff: {e}");
            2
        }
    };
    std::process::exit(code);
}

fn command(cmd: Cmd) -> Result<i32, String> {
    match cmd {
        Cmd::Campaign { profile, tx, scenarios, seed, out } => diff(profile, tx, scenarios, seed, out),
        Cmd::Faults { tx, rounds, seed } => fault_campaign(tx, rounds, seed),
        Cmd::Probe => {
            print(&serde_json::to_value(probe().map_err(|e| format!("probe: {e}"))?).map_err(|e| e.to_string())?);
            Ok(0)
        }
    }
}

fn print(v: &Value) {
    println!("{v}");
}

/// The seed given, else one from the clock; printed either way.
fn seed(given: Option<u64>) -> u64 {
    let s = given.unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1));
    eprintln!("ringlab-diff: seed {s}");
    s
}

fn root() -> Result<(), String> {
    match skip_reason() {
        Some(why) => Err(format!("cannot run on this machine: {why}")),
        None => Ok(()),
    }
}

fn profile(name: ProfileName, tx: TxArgs) -> Result<Profile, String> {
    let mut p = match name {
        ProfileName::V6_12 => Profile::for_release("6.12"),
        ProfileName::V6_18 => Profile::for_release("6.18"),
        ProfileName::Batch => return Ok(Profile::batch(tx.batch, tx.budget)),
    };
    if tx.batch > 0 {
        return Err(format!("--batch {} needs --profile batch", tx.batch));
    }
    p.tx_budget = tx.budget;
    Ok(p)
}

fn diff(name: ProfileName, tx: TxArgs, scenarios: u64, seed_arg: Option<u64>, out: Option<PathBuf>) -> Result<i32, String> {
    let p = profile(name, tx)?;
    let seed = seed(seed_arg);
    root()?;
    // Batch 0 sets no batch option: make sure the series is there all the same.
    if name == ProfileName::Batch && !probe().map_err(|e| format!("probe: {e}"))?.xmit_batch_supported {
        return Err("the running kernel has no XDP_GENERIC_XMIT_BATCH (is the series applied?)".into());
    }
    let TxArgs { batch, budget } = tx;
    eprintln!(
        "ringlab-diff: kernel {}, profile {} (batch {batch}, budget {budget}), {scenarios} scenarios",
        release(),
        p.name
    );
    let opts = Opts { scenarios, seed, progress: true, out, stop_after: None };
    let sum = campaign::run_with(opts, p, 1).map_err(|e| format!("campaign: {e}"))?;
    print(&json!({
        "kernel": sum.kernel, "profile": sum.profile, "batch": batch, "budget": budget, "seed": seed,
        "scenarios": sum.scenarios, "operations": sum.operations, "divergences": sum.divergences.len(),
        "first_divergence": sum.divergences.first(), "replay_files": sum.replay_files, "seconds": sum.seconds,
        // For the host's chain check (ringlab::cmd::chain::vm_campaign).
        "chain_candidates": sum.chain.len(),
        "diverged_seeds": sum.divergences.iter().map(|d| d.seed).collect::<Vec<_>>(),
    }));
    Ok(if sum.divergences.is_empty() { 0 } else { 1 })
}

fn fault_campaign(tx: TxArgs, rounds: u64, seed_arg: Option<u64>) -> Result<i32, String> {
    let TxArgs { batch, budget } = tx;
    let seed = seed(seed_arg);
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
