//! `ringlab faults`: fail-nth allocation faults injected into sendto on
//! the running kernel, then frame conservation and no completion slot
//! leaked; with `--rx`, atomic allocations failed on the receive path
//! (failslab, fail_page_alloc) while frames are redirected to an AF_XDP
//! socket, then every frame and fill-ring buffer accounted for. Prints
//! `SKIP:` and why when the kernel cannot inject faults.

use clap::Args;
use serde::Serialize;

use ringlab_kernel::env::{release, skip_reason};
use ringlab_kernel::failnth;
use ringlab_kernel::faults::rx::{self as faults_rx, FaultRxOpts, FaultRxReport};
use ringlab_kernel::bpf::Redirect;
use ringlab_kernel::faults::{self, FaultOpts, FaultReport};
use ringlab_model::schema::Header;

use super::diff::{seed_or_clock, TxArgs};
use ringlab_kernel::empty::AllowEmpty;

#[derive(Args)]
pub struct FaultArgs {
    #[command(flatten)]
    tx: TxArgs,
    /// Rounds: each one sendto with a fault armed (with --rx: one burst of frames)
    #[arg(long, default_value_t = 1000)]
    rounds: u64,
    /// The receive path instead: frames from the peer redirected to an
    /// AF_XDP socket by an XDP program in native mode, atomic allocations
    /// failed by failslab and fail_page_alloc (--batch and --budget unused)
    #[arg(long)]
    rx: bool,
    /// With --rx: the program's helper; xsk (bpf_redirect_xsk(), a kernel
    /// with kernel/patches/xsk-redirect-xsk) sends the frames through the
    /// driver's XDP_REDIRECT_XSK path
    #[arg(long, value_enum, default_value = "map", requires = "rx")]
    redirect: Redirect,
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

/// `ringlab faults --rx --json`: the report, or why there is none.
#[derive(Serialize)]
struct FaultRxOut<'a> {
    #[serde(flatten)]
    header: Header,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    report: Option<&'a FaultRxReport>,
}

pub fn run(a: &FaultArgs) -> Result<bool, String> {
    a.empty.count("--rounds", a.rounds)?;
    let seed = seed_or_clock(a.seed);
    if a.rx {
        return run_rx(a, seed);
    }
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

fn run_rx(a: &FaultArgs, seed: u64) -> Result<bool, String> {
    if let Some(why) = skip_reason().or_else(failnth::unavailable) {
        let allowed = a.empty.skip(&why);
        if a.json {
            let skipped = FaultRxReport { kernel: release(), rounds: a.rounds, seed, ..Default::default() };
            print(&FaultRxOut { header: Header::new("faults-rx"), skipped: Some(why), report: Some(&skipped) })?;
        }
        return Ok(allowed);
    }
    let rep = faults_rx::run(FaultRxOpts { rounds: a.rounds, seed, inject: true, progress: true, redirect: a.redirect })
        .map_err(|e| format!("faults --rx: {e}"))?;
    if a.json {
        print(&FaultRxOut { header: Header::new("faults-rx"), skipped: None, report: Some(&rep) })?;
    } else {
        let l = &rep.ledger;
        println!(
            "kernel {}, seed {seed}: {} rounds, {} faults injected ({} slab, {} page), {} frames sent, {} refused by sendto, {} dropped before the XDP program, {} redirected ({} on the RX ring, {} rx_dropped, {} rx_ring_full), {} dropped or passed by the program; {} buffers given, {} lost",
            rep.kernel,
            rep.rounds,
            rep.injected,
            rep.injected_slab,
            rep.injected_page,
            l.sent,
            l.send_errors.values().sum::<u64>(),
            rep.dropped_before_program,
            l.redirected,
            l.on_rx_ring,
            l.rx_dropped,
            l.rx_ring_full,
            l.not_redirected,
            l.buffers_given,
            l.buffers_lost.len()
        );
        if a.redirect == Redirect::Xsk {
            println!("  bpf_redirect_xsk(): {} frames XDP_REDIRECT_XSK (the driver's fast path), {} XDP_REDIRECT", rep.fast_path, rep.fallback);
        }
        for p in &rep.problems {
            println!("  problem: {p}");
        }
    }
    Ok(rep.ok() && rep.injected > 0)
}

fn print(v: &impl Serialize) -> Result<(), String> {
    println!("{}", serde_json::to_string(v).map_err(|e| e.to_string())?);
    Ok(())
}
