//! `ringlab sim iouring-zc`: io_uring zero-copy send and its
//! notifications (specs/IoUringZcNotif.tla) on the simulator's atomics,
//! under the harness's seeded deterministic scheduler (every invariant
//! checked after every step) or on real threads (a submitter, a network
//! stack freeing skbs in any order, a reaper).

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use ringlab_model::iouring_zc::{Config, Fail};
use ringlab_sim::protocols::iouring_zc::{threads, IoUringZc, IoUringZcConfig};

use super::{clock_seed, print_outcome, run_json, simulate, to_json};
use ringlab_kernel::empty::AllowEmpty;

#[derive(Args, Debug)]
pub struct IoUringZcArgs {
    /// The seed (default: drawn from the clock, and printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Scheduler steps before the drain (with --threads: requests, NReqs a round)
    #[arg(long, default_value_t = 10_000)]
    steps: u64,
    #[command(flatten)]
    empty: AllowEmpty,
    /// SEND_ZC requests (NReqs, 1 to 32)
    #[arg(long, default_value_t = 4)]
    reqs: u8,
    /// Units each request sends (ReqLen)
    #[arg(long, default_value_t = 3)]
    len: u32,
    /// skbs the socket holds at once (MaxSkbs, 1 to 64)
    #[arg(long, default_value_t = 3)]
    skbs: u8,
    /// SQ entries (a power of two)
    #[arg(long, default_value_t = 2)]
    sq: u32,
    /// CQ entries (a power of two; small, so that CQEs overflow)
    #[arg(long, default_value_t = 2)]
    cq: u32,
    /// SQEs one io_uring_enter() submits at most
    #[arg(long, default_value_t = 2)]
    batch: u32,
    /// Send from an ordinary buffer, not a registered one
    #[arg(long)]
    no_fixed: bool,
    /// No io_link_skb(): a send never appends to another request's skb
    #[arg(long)]
    no_link: bool,
    /// Run on real threads (submitter, network stack, reaper)
    #[arg(long)]
    threads: bool,
    /// One JSON document on stdout
    #[arg(long)]
    json: bool,
    /// Record the deterministic run's trace into FILE (a failing run
    /// leaves one in target/ringlab/sim/iouring-zc/ anyway)
    #[arg(long, value_name = "FILE", conflicts_with = "threads")]
    trace: Option<PathBuf>,
}

fn config(a: &IoUringZcArgs, seed: u64) -> Result<IoUringZcConfig, String> {
    if !(1..=32).contains(&a.reqs) {
        return Err(format!("--reqs {}: 1 to 32 requests", a.reqs));
    }
    if !(1..=64).contains(&a.skbs) {
        return Err(format!("--skbs {}: 1 to 64 skbs", a.skbs));
    }
    for (flag, n) in [("--len", a.len), ("--batch", a.batch)] {
        if n == 0 {
            return Err(format!("{flag} 0: at least 1"));
        }
    }
    let spec = Config {
        n_reqs: a.reqs,
        req_len: a.len,
        max_skbs: a.skbs,
        sq_size: a.sq,
        cq_size: a.cq,
        batch: a.batch,
        fixed: !a.no_fixed,
        link: !a.no_link,
        fails: Fail::ALL.to_vec(),
        ..Config::zc_notif()
    };
    let cfg = IoUringZcConfig::from_spec(spec).seed(seed);
    cfg.validate()?;
    Ok(cfg)
}

/// Runs `ringlab sim iouring-zc`: Ok(true) clean, Ok(false) a failure
/// found, Err bad input.
pub fn run(a: &IoUringZcArgs) -> Result<bool, String> {
    a.empty.count("--steps", a.steps)?;
    let seed = a.seed.unwrap_or_else(clock_seed);
    let cfg = config(a, seed)?;
    let how = if a.threads { "threads" } else { "deterministic" };
    let (outcome, trace) = simulate::<IoUringZc, _, _>(
        "iouring-zc",
        seed,
        a.threads,
        a.steps,
        a.trace.as_deref(),
        cfg,
        threads::run,
        |r| to_json(&r),
        |r| to_json(&r),
    )?;
    let replay = format!(
        "ringlab sim iouring-zc --seed {seed} --steps {} --reqs {} --len {} --skbs {} --sq {} --cq {} --batch {}{}{}{}",
        a.steps,
        a.reqs,
        a.len,
        a.skbs,
        a.sq,
        a.cq,
        a.batch,
        if a.no_fixed { " --no-fixed" } else { "" },
        if a.no_link { " --no-link" } else { "" },
        if a.threads { " --threads" } else { "" }
    );
    let ok = outcome.is_ok();
    if a.json {
        let run = run_json(Some(&outcome), &replay);
        let doc = json!({ "how": how, "seed": seed, "run": run, "trace": trace });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    } else {
        let what = format!("io_uring zc sim ({how})");
        let summary = |r: &serde_json::Value| summary(a.threads, seed, r);
        print_outcome(&Some(outcome), &what, summary, &replay, trace.as_deref());
    }
    Ok(ok)
}

/// One line on a clean run, from its report.
fn summary(threads: bool, seed: u64, r: &serde_json::Value) -> String {
    if threads {
        return format!(
            "io_uring zc sim (threads, seed {seed}): {} rounds, {} requests, {} skbs freed by the stack, {} CQEs reaped ({} notifications), {} buffers written again; no notification came before its request CQE, no freed or pinned page was touched; at the joins every invariant held, and after a drain of {} steps every notification was posted once",
            r["rounds"], r["requests"], r["skbs_freed"], r["reaped"], r["notifs"], r["reused"], r["drain_steps"]
        );
    }
    format!(
        "io_uring zc sim (deterministic, seed {seed}): {} steps, {} invariant checks, {} request CQEs, {} notifications, {} CQEs overflowed, {} notifications linked; every notification posted once, after its request CQE",
        r["steps"], r["checks"], r["request_cqes"], r["notif_cqes"], r["overflowed"], r["linked"]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: IoUringZcArgs,
    }

    fn config_of(args: &[&str]) -> Result<IoUringZcConfig, String> {
        let cli = Cli::try_parse_from(std::iter::once("iouring-zc").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        config(&cli.a, 1)
    }

    #[test]
    fn bad_values_are_clear_errors() {
        for (args, want) in [
            (&["--reqs", "0"][..], "--reqs 0: 1 to 32 requests"),
            (&["--reqs", "33"], "--reqs 33: 1 to 32 requests"),
            (&["--skbs", "0"], "--skbs 0: 1 to 64 skbs"),
            (&["--len", "0"], "--len 0: at least 1"),
            (&["--sq", "3"], "SqSize = 3: a ring's size is a power of two"),
            (&["--cq", "0"], "CqSize = 0 is not in Nat"),
        ] {
            let e = config_of(args).unwrap_err();
            assert!(e.contains(want), "{args:?}: {e}");
        }
    }

    #[test]
    fn the_defaults_are_a_registered_buffer_that_links_and_overflows() {
        let c = config_of(&[]).unwrap();
        let s = &c.spec;
        assert_eq!((s.n_reqs, s.req_len, s.max_skbs, s.sq_size, s.cq_size), (4, 3, 3, 2, 2));
        assert!(s.fixed && s.link && s.fails == Fail::ALL);
        let c = config_of(&["--no-fixed", "--no-link"]).unwrap();
        assert!(!c.spec.fixed && !c.spec.link);
    }
}
