//! `ringlab sim napi-cache`: the per-CPU NAPI skb cache, the defer lists
//! and tun's batched allocation (specs/NapiSkbCache.tla) on the
//! simulator's atomics, under the harness's seeded deterministic
//! scheduler (every invariant checked after every step) or on real
//! threads (a thread per CPU polling and answering IPIs, vhost-net's tun
//! batches on CPU 1, a receiver on the last CPU freeing every skb).

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use ringlab_model::napi_cache::{Config, Path};
use ringlab_sim::protocols::napi_cache::{threads, NapiCacheConfig, NapiSkbCache};

use super::{clock_seed, print_outcome, run_json, simulate, to_json};
use ringlab_kernel::empty::AllowEmpty;

#[derive(Args, Debug)]
pub struct NapiCacheArgs {
    /// The seed (default: drawn from the clock, and printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Scheduler steps before the drain (with --threads: rounds, NFrames frames each)
    #[arg(long, default_value_t = 10_000)]
    steps: u64,
    #[command(flatten)]
    empty: AllowEmpty,
    /// CPUs (NCpu; --threads needs two)
    #[arg(long, default_value_t = 2)]
    cpus: u8,
    /// skb heads the slab holds (NSkb, 1 to 64)
    #[arg(long, default_value_t = 16)]
    skbs: u8,
    /// Heads a CPU's cache holds (CacheSize, at least 2)
    #[arg(long, default_value_t = 8)]
    cache: u32,
    /// Heads one refill takes from the slab (Bulk, at most --cache)
    #[arg(long, default_value_t = 4)]
    bulk: u32,
    /// A defer list's length (DeferMax; the IPI goes at half)
    #[arg(long, default_value_t = 4)]
    defer_max: u32,
    /// Frames one tun_sendmsg(TUN_MSG_PTR) carries (Batch)
    #[arg(long, default_value_t = 4)]
    batch: u32,
    /// Frames that arrive (NFrames)
    #[arg(long, default_value_t = 200)]
    frames: u32,
    /// tun's allocation: slab (6.12), bulk, or flush (the defer list first)
    #[arg(long, default_value = "flush")]
    path: String,
    /// skbs gain references, frag lists and copies (Clone)
    #[arg(long)]
    clone: bool,
    /// The slab never fails (SlabFail FALSE)
    #[arg(long)]
    no_slab_fail: bool,
    /// Run on real threads (a thread per CPU, a receiver)
    #[arg(long)]
    threads: bool,
    /// One JSON document on stdout
    #[arg(long)]
    json: bool,
    /// Record the deterministic run's trace into FILE (a failing run
    /// leaves one in target/ringlab/sim/napi-cache/ anyway)
    #[arg(long, value_name = "FILE", conflicts_with = "threads")]
    trace: Option<PathBuf>,
}

fn config(a: &NapiCacheArgs, seed: u64) -> Result<NapiCacheConfig, String> {
    let path = Path::from_id(&a.path)
        .ok_or_else(|| format!("--path {:?}: one of slab, bulk, flush", a.path))?;
    if !(1..=64).contains(&a.skbs) {
        return Err(format!("--skbs {}: 1 to 64 skb heads", a.skbs));
    }
    if a.threads && a.cpus < 2 {
        return Err(format!("--cpus {} with --threads: two CPUs at least, one freeing the other's skbs", a.cpus));
    }
    let spec = Config {
        ncpu: a.cpus,
        nskb: a.skbs,
        cache_size: a.cache,
        bulk: a.bulk,
        defer_max: a.defer_max,
        batch: a.batch,
        nframes: a.frames,
        path,
        clone: a.clone,
        slab_fail: !a.no_slab_fail,
        ..Config::small()
    };
    let cfg = NapiCacheConfig::from_spec(spec).seed(seed);
    cfg.validate()?;
    Ok(cfg)
}

/// Runs `ringlab sim napi-cache`: Ok(true) clean, Ok(false) a failure
/// found, Err bad input.
pub fn run(a: &NapiCacheArgs) -> Result<bool, String> {
    a.empty.count("--steps", a.steps)?;
    let seed = a.seed.unwrap_or_else(clock_seed);
    let cfg = config(a, seed)?;
    let how = if a.threads { "threads" } else { "deterministic" };
    let (outcome, trace) = simulate::<NapiSkbCache, _, _>(
        "napi-cache",
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
        "ringlab sim napi-cache --seed {seed} --steps {} --cpus {} --skbs {} --cache {} --bulk {} --defer-max {} --batch {} --frames {} --path {}{}{}{}",
        a.steps,
        a.cpus,
        a.skbs,
        a.cache,
        a.bulk,
        a.defer_max,
        a.batch,
        a.frames,
        a.path,
        if a.clone { " --clone" } else { "" },
        if a.no_slab_fail { " --no-slab-fail" } else { "" },
        if a.threads { " --threads" } else { "" }
    );
    let ok = outcome.is_ok();
    if a.json {
        let run = run_json(Some(&outcome), &replay);
        let doc = json!({ "how": how, "seed": seed, "run": run, "trace": trace });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    } else {
        let what = format!("napi cache sim ({how})");
        let summary = |r: &serde_json::Value| summary(a.threads, &a.path, seed, r);
        print_outcome(&Some(outcome), &what, summary, &replay, trace.as_deref());
    }
    Ok(ok)
}

/// One line on a clean run, from its report.
fn summary(threads: bool, path: &str, seed: u64, r: &serde_json::Value) -> String {
    if threads {
        return format!(
            "napi cache sim (threads, path {path}, seed {seed}): {} rounds, {} frames ({} delivered, {} dropped), {} polls, {} tun batches, {} skbs freed by the receiver ({} onto another CPU's defer list), {} flushes, {} IPIs; every cache touched only by its CPU with BH off, at the joins every invariant held, and after drains of {} steps every head was back in the slab or one cache",
            r["rounds"], r["frames"], r["rcvd"], r["dropped"], r["polls"], r["batches"], r["freed"], r["deferred"], r["flushes"], r["kicks"], r["drain_steps"]
        );
    }
    let c = &r["slab_calls"];
    format!(
        "napi cache sim (deterministic, path {path}, seed {seed}): {} steps, {} invariant checks, {} frames delivered, {} dropped, {} heads from the caches, slab calls: {} alloc, {} alloc_bulk, {} free, {} free_bulk; {} flushes, {} IPIs; every head in one place",
        r["steps"], r["checks"], r["rcvd"], r["dropped"], r["cache_hits"], c[0], c[1], c[2], c[3], r["flushes"], r["kicks"]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: NapiCacheArgs,
    }

    fn config_of(args: &[&str]) -> Result<NapiCacheConfig, String> {
        let cli = Cli::try_parse_from(std::iter::once("napi-cache").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        config(&cli.a, 1)
    }

    #[test]
    fn bad_values_are_clear_errors() {
        for (args, want) in [
            (&["--path", "fast"][..], "--path \"fast\": one of slab, bulk, flush"),
            (&["--skbs", "0"], "--skbs 0: 1 to 64 skb heads"),
            (&["--skbs", "65"], "--skbs 65: 1 to 64 skb heads"),
            (&["--cpus", "1", "--threads"], "--cpus 1 with --threads: two CPUs at least"),
            (&["--cache", "1"], "CacheSize = 1 is below 2"),
            (&["--bulk", "9"], "Bulk = 9 is above CacheSize = 8"),
            (&["--batch", "0"], "Batch = 0 is not in Nat"),
        ] {
            let e = config_of(args).unwrap_err();
            assert!(e.contains(want), "{args:?}: {e}");
        }
    }

    #[test]
    fn the_defaults_are_two_cpus_flushing_first_with_a_failing_slab() {
        let c = config_of(&[]).unwrap();
        let s = &c.spec;
        assert_eq!((s.ncpu, s.nskb, s.cache_size, s.bulk, s.defer_max, s.batch, s.nframes), (2, 16, 8, 4, 4, 4, 200));
        assert!(s.path == Path::Flush && s.slab_fail && !s.clone);
        let c = config_of(&["--path", "slab", "--clone", "--no-slab-fail"]).unwrap();
        assert!(c.spec.path == Path::Slab && c.spec.clone && !c.spec.slab_fail);
    }
}
