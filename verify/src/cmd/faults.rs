//! `ringlab faults`: fail-nth allocation faults injected into sendto on
//! the running kernel, then frame conservation and no completion slot
//! leaked. Prints `SKIP:` and why when the kernel cannot inject faults.

use clap::Args;
use serde::Serialize;

use ringlab_kernel::env::{release, skip_reason};
use ringlab_kernel::failnth;
use ringlab_kernel::faults::{self, FaultOpts, FaultReport};
use ringlab_model::schema::Header;

use super::diff::{seed_or_clock, TxArgs};
use ringlab_kernel::empty::AllowEmpty;

#[derive(Args)]
pub struct FaultArgs {
    #[command(flatten)]
    tx: TxArgs,
    /// Rounds: each one sendto with a fault armed
    #[arg(long, default_value_t = 1000)]
    rounds: u64,
    /// Seed (default: from the clock; always printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON document on stdout
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    empty: AllowEmpty,
}

/// `ringlab faults --json`: the report, or why there is none.
#[derive(Serialize)]
struct FaultOut<'a> {
    #[serde(flatten)]
    header: Header,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    report: Option<&'a FaultReport>,
}

pub fn run(a: &FaultArgs) -> Result<bool, String> {
    a.empty.count("--rounds", a.rounds)?;
    let seed = seed_or_clock(a.seed);
    let TxArgs { batch, budget } = a.tx;
    if let Some(why) = skip_reason().or_else(failnth::unavailable) {
        let allowed = a.empty.skip(&why);
        if a.json {
            let skipped = FaultReport { kernel: release(), batch, budget, rounds: a.rounds, seed, ..Default::default() };
            print(&FaultOut { header: Header::new("faults"), skipped: Some(why), report: Some(&skipped) })?;
        }
        return Ok(allowed);
    }
    let o = FaultOpts { batch, budget, rounds: a.rounds, seed, inject: true, progress: true };
    let rep = faults::run(o).map_err(|e| format!("faults: {e}"))?;
    if a.json {
        print(&FaultOut { header: Header::new("faults"), skipped: None, report: Some(&rep) })?;
    } else {
        println!(
            "kernel {} (batch {batch}, budget {budget}), seed {seed}: {} rounds, {} faults injected, {} frames submitted, {} completed, {} lost, {} completed twice, {} CQ slots leaked",
            rep.kernel, rep.rounds, rep.injected, rep.submitted, rep.completed, rep.lost, rep.double, rep.leaks
        );
    }
    Ok(rep.ok())
}

fn print(v: &impl Serialize) -> Result<(), String> {
    println!("{}", serde_json::to_string(v).map_err(|e| e.to_string())?);
    Ok(())
}
