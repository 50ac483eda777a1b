//! `ringlab sim copy-tx` (and `ringlab sim` alone): copy-mode transmit on
//! the simulator's real rings, under the harness's seeded deterministic
//! scheduler (every invariant checked after every step) or on real
//! threads, then the cost table: per packet, what 6.12.117's
//! per-descriptor loop and seed 000's batch do.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::json;

use ringlab_sim::copy_tx::cost;
use ringlab_sim::copy_tx::{threads, CopyTx, CopyTxConfig, Design, DropFrags, PublishFrags, Report};

use super::{clock_seed, print_outcome, run_json, simulate};
use ringlab_kernel::empty::AllowEmpty;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DesignArg {
    /// 6.12.117: the address stored at reservation, published by count
    A,
    /// The 2025 fix: the skb carries its addresses
    B,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DropArg {
    /// Their completions are published (what af_xdp.rst promises)
    Complete,
    /// Their completion slots are cancelled (6.12.117's xsk_drop_skb)
    Cancel,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PublishArg {
    /// The tx consumer is published only up to the packet being built
    Packet,
    /// Past every consumed descriptor (6.12.117's refresh)
    All,
}

#[derive(Args, Debug)]
pub struct CopyTxArgs {
    /// The seed (default: drawn from the clock, and printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Scheduler steps before the drain (with --threads: completions)
    #[arg(long, default_value_t = 10_000)]
    steps: u64,
    #[command(flatten)]
    empty: AllowEmpty,
    /// Completion design
    #[arg(long, value_enum, default_value = "b")]
    design: DesignArg,
    /// 0: the per-descriptor loop; n: seed 000's batch of n (design b)
    #[arg(long, default_value_t = 0)]
    batch: u32,
    /// Sockets sharing the completion queue
    #[arg(long, default_value_t = 2)]
    sockets: usize,
    /// Multi-buffer packets (XDP_PKT_CONTD), with the per-descriptor loop
    #[arg(long)]
    multi_buf: bool,
    /// With --multi-buf: descriptors in one packet at most (MAX_SKB_FRAGS + 1)
    #[arg(long, default_value_t = 3)]
    max_frags: i64,
    /// With --multi-buf: what happens to a dropped packet's built fragments
    #[arg(long, value_enum, default_value = "complete")]
    drop_frags: DropArg,
    /// With --multi-buf: how far a refresh publishes the tx consumer
    #[arg(long, value_enum, default_value = "packet")]
    publish_frags: PublishArg,
    /// Run on real threads (a thread per socket, the driver, the application)
    #[arg(long)]
    threads: bool,
    /// Print the cost table only, without a run
    #[arg(long)]
    costs: bool,
    /// One JSON document on stdout
    #[arg(long)]
    json: bool,
    /// Record the deterministic run's trace into FILE (a failing run
    /// leaves one in target/ringlab/sim/copy_tx/ anyway)
    #[arg(long, value_name = "FILE", conflicts_with = "threads")]
    trace: Option<PathBuf>,
}

/// Packets each cost-table row sends.
const COST_PACKETS: u64 = 4096;

fn config(a: &CopyTxArgs, seed: u64) -> Result<CopyTxConfig, String> {
    let design = match a.design {
        DesignArg::A => Design::A,
        DesignArg::B => Design::B,
    };
    if a.batch > 0 && design == Design::A {
        return Err("--batch needs --design b (6.12.117 has no batch)".into());
    }
    if !(1..=64).contains(&a.sockets) {
        return Err(format!("--sockets {}: 1 to 64", a.sockets));
    }
    let frames = (2 * a.sockets + 2).max(a.batch as usize + 2).min(256);
    let mut cfg = CopyTxConfig::new(design, a.batch as i64, a.sockets, frames);
    if a.multi_buf {
        if a.batch > 0 {
            return Err("--multi-buf needs --batch 0 (the per-descriptor loop)".into());
        }
        let drop = match a.drop_frags {
            DropArg::Complete => DropFrags::Complete,
            DropArg::Cancel => DropFrags::Cancel,
        };
        let publish = match a.publish_frags {
            PublishArg::Packet => PublishFrags::Packet,
            PublishArg::All => PublishFrags::All,
        };
        cfg = cfg.multi_buf(a.max_frags, drop, publish);
    }
    let ring = (frames as u32).next_power_of_two().clamp(4, 256) as usize;
    cfg.spec.tx_size = ring;
    cfg.spec.cq_size = ring;
    cfg.spec.budget = (a.batch as i64).max(4);
    cfg.seed = seed;
    cfg.validate()?;
    Ok(cfg)
}

/// Runs `ringlab sim copy-tx`: Ok(true) clean, Ok(false) a failure
/// found, Err bad input.
pub fn run(a: &CopyTxArgs) -> Result<bool, String> {
    if !a.costs {
        a.empty.count("--steps", a.steps)?;
    }
    let seed = a.seed.unwrap_or_else(clock_seed);
    let cfg = config(a, seed)?;
    let (outcome, trace) = if a.costs {
        (None, None)
    } else {
        let (o, t) = simulate::<CopyTx, _, _>(
            "copy_tx",
            seed,
            a.threads,
            a.steps,
            a.trace.as_deref(),
            cfg.clone(),
            threads::run,
            |r: Report| r,
            |r| r,
        )?;
        (Some(o), t)
    };
    let rows = cost::table(COST_PACKETS, seed);
    let mode = if a.threads { "threads" } else { "deterministic" };
    let multi = if a.multi_buf {
        format!(
            " --multi-buf --max-frags {} --drop-frags {} --publish-frags {}",
            a.max_frags,
            a.drop_frags.to_possible_value().expect("no skipped value").get_name(),
            a.publish_frags.to_possible_value().expect("no skipped value").get_name()
        )
    } else {
        String::new()
    };
    let replay = format!(
        "ringlab sim copy-tx --seed {seed} --steps {} --design {} --batch {} --sockets {}{multi}{}",
        a.steps,
        if cfg.spec.design == Design::A { "a" } else { "b" },
        a.batch,
        a.sockets,
        if a.threads { " --threads" } else { "" }
    );
    if a.json {
        let run = run_json(outcome.as_ref(), &replay);
        let doc = json!({ "mode": mode, "seed": seed, "run": run, "trace": trace, "costs": rows });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    } else {
        let summary = |r: &Report| if a.threads {
            format!(
                "copy-tx sim (threads, seed {seed}): {} packets completed, {} invalid descriptors; then a drain of {} steps, {} invariant checks; every frame came back",
                r.completed, r.invalid_descs, r.steps, r.checks
            )
        } else {
            format!(
                "copy-tx sim (deterministic, seed {seed}): {} steps, {} packets completed, {} invariant checks, {} invalid descriptors; every frame came back",
                r.steps, r.completed, r.checks, r.invalid_descs
            )
        };
        let what = format!("copy-tx sim ({mode})");
        print_outcome(&outcome, &what, summary, &replay, trace.as_deref());
        println!(
            "== cost per packet ({COST_PACKETS} packets a row, seed {seed}; one socket, 256 frames, tx 512, cq 1024; ratios to 6.12.117)"
        );
        print!("{}", cost::render(&rows));
    }
    Ok(!matches!(outcome, Some(Err(_))))
}
