//! `ringlab sim devmem`: devmem TCP receive tokens (specs/DevmemTokens.tla)
//! on the simulator's atomics, under the harness's seeded deterministic
//! scheduler (every invariant checked after every step) or on real
//! threads, then the
//! cost table: per token, what 6.12.117's xarray mode and seed 004's array
//! mode do, beside the figure seed 004 measured.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::json;

use ringlab_sim::devmem::cost::{self, SEED_FIGURE};
use ringlab_sim::devmem::{threads, Devmem, DevmemConfig, Mode};

use super::{clock_seed, print_outcome, run_json, simulate, to_json};
use ringlab_kernel::empty::AllowEmpty;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// 6.12.117: per-socket sk_user_frags ids, released at close
    Xarray,
    /// Seed 004: the net_iov's index, an atomic uref per net_iov, unbind cleans up
    Array,
    /// Each bind asks for either mode (the single-mode rule decides; not with --threads)
    Both,
}

#[derive(Args, Debug)]
pub struct DevmemArgs {
    /// The seed (default: drawn from the clock, and printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Scheduler steps before the drain (with --threads: receives and releases per user thread)
    #[arg(long, default_value_t = 10_000)]
    steps: u64,
    #[command(flatten)]
    empty: AllowEmpty,
    /// Token mode
    #[arg(long, value_enum, default_value = "xarray")]
    mode: ModeArg,
    /// dmabuf bindings
    #[arg(long, default_value_t = 1)]
    bindings: usize,
    /// TCP sockets steered to each binding
    #[arg(long, default_value_t = 2)]
    sockets: usize,
    /// net_iovs in each binding
    #[arg(long, default_value_t = 4)]
    niovs: usize,
    /// recvmsg calls a frag is read in
    #[arg(long, default_value_t = 2)]
    parts: u32,
    /// MAX_DONTNEED_FRAGS (the kernel's: 1024); token counts go up to twice it
    #[arg(long, default_value_t = 1024)]
    limit: u32,
    /// Run on real threads (RX, a user thread per socket, an unbind racing them)
    #[arg(long)]
    threads: bool,
    /// Print the cost table only, without a run
    #[arg(long)]
    costs: bool,
    /// One JSON document on stdout
    #[arg(long)]
    json: bool,
    /// Record the deterministic run's trace into FILE (a failing run
    /// leaves one in target/ringlab/sim/devmem/ anyway)
    #[arg(long, value_name = "FILE", conflicts_with = "threads")]
    trace: Option<PathBuf>,
}

/// Tokens each cost-table row hands out at least.
const COST_TOKENS: u64 = 16_384;

/// `--what n`, a count of 1 to 255 (the model numbers sockets, net_iovs
/// and bindings in a u8); `rule` says so in words.
fn count(what: &str, n: usize, rule: &str) -> Result<u8, String> {
    match u8::try_from(n) {
        Ok(k) if k > 0 => Ok(k),
        _ => Err(format!("--{what} {n}: {rule}")),
    }
}

fn config(a: &DevmemArgs, seed: u64) -> Result<DevmemConfig, String> {
    let sockets = count("sockets", a.sockets, "a binding needs 1 to 255 sockets")?;
    let niovs = count("niovs", a.niovs, "a binding has 1 to 255 net_iovs")?;
    count("bindings", a.bindings, "1 to 255 bindings")?;
    if !(1..=64).contains(&a.parts) {
        return Err(format!(
            "--parts {}: a frag is read in 1 to 64 pieces",
            a.parts
        ));
    }
    if a.limit == 0 {
        return Err("--limit 0: SO_DEVMEM_DONTNEED must examine at least one token".into());
    }
    if a.threads && (a.mode == ModeArg::Both || a.bindings != 1) {
        return Err(
            "--threads runs one binding (--bindings 1) in one mode (xarray or array)".into(),
        );
    }
    let modes: &[Mode] = match a.mode {
        ModeArg::Xarray => &[Mode::Xarray],
        ModeArg::Array => &[Mode::Array],
        ModeArg::Both => &Mode::ALL,
    };
    let cfg = DevmemConfig::new(modes, a.bindings, sockets, niovs, a.parts)
        .limit(a.limit, a.limit.saturating_mul(2))
        .seed(seed);
    cfg.validate()?;
    Ok(cfg)
}

fn mode_name(m: ModeArg) -> &'static str {
    match m {
        ModeArg::Xarray => "xarray",
        ModeArg::Array => "array",
        ModeArg::Both => "both",
    }
}

/// Runs `ringlab sim devmem`: Ok(true) clean, Ok(false) a failure found,
/// Err bad input.
pub fn run(a: &DevmemArgs) -> Result<bool, String> {
    if !a.costs {
        a.empty.count("--steps", a.steps)?;
    }
    let seed = a.seed.unwrap_or_else(clock_seed);
    let cfg = config(a, seed)?;
    let how = if a.threads {
        "threads"
    } else {
        "deterministic"
    };
    let mode = mode_name(a.mode);
    let (outcome, trace) = if a.costs {
        (None, None)
    } else {
        let (o, t) = simulate::<Devmem, _, _>(
            "devmem",
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
    let rows = cost::table(COST_TOKENS);
    let replay = format!(
        "ringlab sim devmem --seed {seed} --steps {} --mode {mode} --bindings {} --sockets {} --niovs {} --parts {} --limit {}{}",
        a.steps,
        a.bindings,
        a.sockets,
        a.niovs,
        a.parts,
        a.limit,
        if a.threads { " --threads" } else { "" }
    );
    if a.json {
        let run = run_json(outcome.as_ref(), &replay);
        let doc = json!({
            "how": how, "mode": mode, "seed": seed, "run": run, "trace": trace,
            "costs": rows, "seed_figure": SEED_FIGURE,
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    } else {
        let what = format!("devmem sim ({how}, {mode})");
        print_outcome(&outcome, &what, |r| summary(a, seed, r), &replay, trace.as_deref());
        println!(
            "== cost per token ({COST_TOKENS} tokens a row at least; one binding of 255 net_iovs, 4 sockets, frags read whole; ratios: array mode to the xarray row above)"
        );
        print!("{}", cost::render(&rows));
        println!("{SEED_FIGURE}");
    }
    Ok(!matches!(outcome, Some(Err(_))))
}

/// One line on a clean run, from its report.
fn summary(a: &DevmemArgs, seed: u64, r: &serde_json::Value) -> String {
    let n = |k: &str| r["cost"][k].as_u64().unwrap_or(0);
    let mode = mode_name(a.mode);
    if a.threads {
        let unbound = match r["unbound_after"].as_u64() {
            Some(k) => format!("unbound after {k} user rounds"),
            None => "unbound at the end".into(),
        };
        return format!(
            "devmem sim (threads, {mode}, seed {seed}): {} user threads, {} frags, {} tokens, {} released, {} sockets closed mid-run, {unbound}; at the joins every reference was accounted and every net_iov in the pool or referenced; after a drain of {} steps every net_iov came back",
            r["users"], n("frags"), n("tokens"), n("released"), r["closed"], r["drain_steps"]
        );
    }
    let own = match r["own_tokens_broken_at"].as_u64() {
        Some(k) => format!("OwnTokensOnly broke at step {k} (a token returned through another socket: array mode's trade-off)"),
        None => "OwnTokensOnly held".into(),
    };
    format!(
        "devmem sim (deterministic, {mode}, seed {seed}): {} steps, {} frags, {} tokens, {} released, {} invariant checks; {own}; every net_iov came back to its pool",
        r["steps"], n("frags"), n("tokens"), n("released"), r["checks"]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: DevmemArgs,
    }

    fn config_of(args: &[&str]) -> Result<DevmemConfig, String> {
        let cli = Cli::try_parse_from(std::iter::once("devmem").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        config(&cli.a, 1)
    }

    #[test]
    fn bad_values_are_clear_errors() {
        for (args, want) in [
            (
                &["--sockets", "0"][..],
                "--sockets 0: a binding needs 1 to 255 sockets",
            ),
            (
                &["--niovs", "256"],
                "--niovs 256: a binding has 1 to 255 net_iovs",
            ),
            (&["--bindings", "0"], "--bindings 0: 1 to 255 bindings"),
            (
                &["--parts", "0"],
                "--parts 0: a frag is read in 1 to 64 pieces",
            ),
            (&["--limit", "0"], "--limit 0"),
            (
                &["--threads", "--mode", "both"],
                "--threads runs one binding",
            ),
            (&["--mode", "hash"], "invalid value 'hash'"),
        ] {
            let e = config_of(args).unwrap_err();
            assert!(e.contains(want), "{args:?}: {e}");
        }
    }

    #[test]
    fn the_defaults_are_the_kernel_s_limit_and_one_xarray_binding() {
        let c = config_of(&[]).unwrap();
        assert_eq!(c.spec.modes, [Mode::Xarray]);
        assert_eq!(
            (
                c.bindings(),
                c.spec.socks_per,
                c.spec.niovs_per,
                c.spec.parts
            ),
            (1, 2, 4, 2)
        );
        assert_eq!(c.spec.dontneed_limit, 1024);
        let c = config_of(&["--mode", "both", "--bindings", "2"]).unwrap();
        assert_eq!(c.spec.modes, Mode::ALL);
    }
}
