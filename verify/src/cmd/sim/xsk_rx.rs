//! `ringlab sim xsk-rx`: AF_XDP receive (specs/XskRx.tla) on the
//! simulator's atomics under the harness's seeded deterministic scheduler
//! (every invariant checked after every step) or on real threads, then
//! the cost table: per
//! packet, what 6.12.117's XSKMAP path and seed 002's XDP_REDIRECT_XSK
//! fast path do, beside the figure seed 002 measured.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::json;

use ringlab_model::xsk_rx::{Config, Redirect, RxPath};
use ringlab_sim::xsk_rx::cost::{self, SEED_FIGURE};
use ringlab_sim::xsk_rx::{threads, XskRx, XskRxConfig};

use super::{clock_seed, print_outcome, run_json, simulate, to_json};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PathArg {
    /// Native XDP in the queue's NAPI poll, xdp_do_flush() at its end
    Driver,
    /// Generic XDP: xsk_generic_rcv() under pool->rx_lock on any CPU
    Generic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RedirectArg {
    /// 6.12.117: bpf_redirect_map() into the XSKMAP only
    Map,
    /// Seed 002's XDP_REDIRECT_XSK fast path beside it (driver path only)
    Xsk,
}

#[derive(Args, Debug)]
pub struct XskRxArgs {
    /// The seed (default: drawn from the clock, and printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Scheduler steps before the drain (with --threads: packets, in rounds of --packets)
    #[arg(long, default_value_t = 10_000)]
    steps: u64,
    #[arg(long, value_enum, default_value = "driver")]
    path: PathArg,
    #[arg(long, value_enum, default_value = "map")]
    redirect: RedirectArg,
    /// Sockets on the queue's umem (1 to 64)
    #[arg(long, default_value_t = 2)]
    sockets: u8,
    /// Umem chunks (1 to 64)
    #[arg(long, default_value_t = 4)]
    bufs: u8,
    /// CPUs receiving (1 to 8)
    #[arg(long, default_value_t = 2)]
    cpus: u8,
    /// Packets that arrive (1 to 200)
    #[arg(long, default_value_t = 200)]
    packets: u8,
    /// Chunks a packet may need (with more than 1, sockets bind with XDP_USE_SG)
    #[arg(long, default_value_t = 2)]
    max_len: u8,
    /// Fill ring entries (a power of two)
    #[arg(long, default_value_t = 4)]
    fq_size: u32,
    /// Rx ring entries of each socket (a power of two)
    #[arg(long, default_value_t = 2)]
    rx_size: u32,
    /// Packets a NAPI poll handles
    #[arg(long, default_value_t = 8)]
    budget: u32,
    /// XDP_REDIRECT_XSK packets the driver keeps and receives together
    /// with xsk_rcv_batch() (1: each as its program returns; more needs
    /// --redirect xsk)
    #[arg(long, default_value_t = 1)]
    batch: u8,
    /// Run on real threads (a thread per CPU, the application)
    #[arg(long)]
    threads: bool,
    /// Print the cost table only, without a run
    #[arg(long)]
    costs: bool,
    /// One JSON document on stdout
    #[arg(long)]
    json: bool,
    /// Record the deterministic run's trace into FILE (a failing run
    /// leaves one in target/ringlab/sim/xsk_rx/ anyway)
    #[arg(long, value_name = "FILE", conflicts_with = "threads")]
    trace: Option<PathBuf>,
}

/// Packets each cost-table row receives.
const COST_PACKETS: u8 = 192;

fn config(a: &XskRxArgs, seed: u64) -> Result<XskRxConfig, String> {
    if a.cpus == 0 || a.cpus > 8 {
        return Err(format!("--cpus {}: 1 to 8 CPUs", a.cpus));
    }
    if a.packets == 0 || a.packets > 200 {
        return Err(format!("--packets {}: 1 to 200 packets", a.packets));
    }
    if a.threads && a.steps == 0 {
        return Err("--threads --steps 0: the threads run at least one packet".into());
    }
    let spec = Config {
        cpus: (1..=a.cpus).map(|c| format!("c{c}")).collect(),
        n_sockets: a.sockets,
        n_bufs: a.bufs,
        max_pkts: a.packets,
        max_len: a.max_len,
        sg: a.max_len > 1,
        fq_size: a.fq_size,
        rx_size: a.rx_size,
        poll_budget: a.budget,
        path: match a.path {
            PathArg::Driver => RxPath::Driver,
            PathArg::Generic => RxPath::Generic,
        },
        redirect: match a.redirect {
            RedirectArg::Map => Redirect::Map,
            RedirectArg::Xsk => Redirect::Xsk,
        },
        batch: a.batch,
        ..Config::driver()
    };
    let cfg = XskRxConfig::from_spec(spec).seed(seed);
    cfg.validate()?;
    Ok(cfg)
}

/// Runs `ringlab sim xsk_rx`: Ok(true) clean, Ok(false) a failure found,
/// Err bad input.
pub fn run(a: &XskRxArgs) -> Result<bool, String> {
    let seed = a.seed.unwrap_or_else(clock_seed);
    let cfg = config(a, seed)?;
    let (outcome, trace) = if a.costs {
        (None, None)
    } else {
        let (o, t) = simulate::<XskRx, _, _>(
            "xsk_rx",
            seed,
            a.threads,
            a.steps,
            a.trace.as_deref(),
            cfg.clone(),
            threads::run,
            |r| to_json(&r),
            |r| to_json(&r),
        )?;
        (Some(o), t)
    };
    let rows = cost::table(COST_PACKETS)?;
    let how = if a.threads { "threads" } else { "deterministic" };
    let replay = format!(
        "ringlab sim xsk-rx --seed {seed} --steps {} --path {} --redirect {} --sockets {} --bufs {} --cpus {} --packets {} --max-len {} --fq-size {} --rx-size {} --budget {} --batch {}{}",
        a.steps,
        cfg.spec.path.id(),
        cfg.spec.redirect.id(),
        a.sockets,
        a.bufs,
        a.cpus,
        a.packets,
        a.max_len,
        a.fq_size,
        a.rx_size,
        a.budget,
        a.batch,
        if a.threads { " --threads" } else { "" }
    );
    if a.json {
        let run = run_json(outcome.as_ref(), &replay);
        let doc = json!({
            "how": how, "seed": seed, "run": run, "trace": trace, "costs": rows, "seed_figure": SEED_FIGURE,
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    } else {
        let summary = |r: &serde_json::Value| if a.threads {
            format!(
                "xsk_rx sim (threads, {} path, redirect {}, seed {seed}): {} CPU threads, {} rounds of {} packets, {} received, {} thread checks; packets {}; at each round's joins every invariant held, and after drains of {} steps ({} invariant checks) every buffer was in one place",
                cfg.spec.path.id(),
                cfg.spec.redirect.id(),
                r["cpus"],
                r["rounds"],
                a.packets,
                r["fates"]["rx"].as_u64().unwrap_or(0),
                r["thread_checks"],
                r["fates"],
                r["drain_steps"],
                r["checks"]
            )
        } else {
            format!(
                "xsk_rx sim ({} path, redirect {}, seed {seed}): {} steps, {} invariant checks, packets {}; drained with every buffer in one place",
                cfg.spec.path.id(),
                cfg.spec.redirect.id(),
                r["steps"],
                r["checks"],
                r["fates"]
            )
        };
        let what = format!("xsk_rx sim ({how})");
        print_outcome(&outcome, &what, summary, &replay, trace.as_deref());
        println!(
            "== cost per packet ({COST_PACKETS} packets a row; one socket, polls of {})",
            cost::table_budget()
        );
        print!("{}", cost::render(&rows));
        println!("{SEED_FIGURE}");
    }
    Ok(!matches!(outcome, Some(Err(_))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: XskRxArgs,
    }

    fn config_of(args: &[&str]) -> Result<XskRxConfig, String> {
        let cli = Cli::try_parse_from(std::iter::once("xsk_rx").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        config(&cli.a, 1)
    }

    #[test]
    fn bad_values_are_clear_errors() {
        for (args, want) in [
            (&["--fq-size", "3"][..], "FqSize = 3"),
            (&["--cpus", "0"], "--cpus 0"),
            (&["--packets", "0"], "--packets 0"),
            (&["--sockets", "0"], "NSockets = 0"),
            (&["--path", "generic", "--redirect", "xsk"], "needs Path = \"driver\""),
            (&["--threads", "--steps", "0"], "--threads --steps 0"),
            (&["--threads", "--trace", "t.jsonl"], "cannot be used with"),
        ] {
            let e = config_of(args).unwrap_err();
            assert!(e.contains(want), "{args:?}: {e}");
        }
        assert!(config_of(&[]).is_ok());
    }
}
