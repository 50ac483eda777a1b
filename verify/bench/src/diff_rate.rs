//! `ringlab bench diff`: the live diff's scenarios per second, two ways in
//! one run: one veth pair, each bind waiting for its queue and each socket
//! closed in line (how every scenario ran before lanes), and on lanes
//! (kernel/src/lanes.rs), one worker per core. For each: scenarios/s, the
//! process's CPU (user and system, over wall time, 100% a core), the share
//! of the workers' time spent waiting for a busy queue, the load average
//! before, and whether both ways observed the same on their common
//! scenarios.

use std::time::Instant;

use clap::Args;
use serde::Serialize;

use ringlab_kernel::campaign::{self, digest, in_sandbox, scenario_seed, Opts};
use ringlab_kernel::compare::compare;
use ringlab_kernel::env::{release, skip_reason};
use ringlab_kernel::gen;
use ringlab_kernel::xsk::bind_waits;
use ringlab_model::afxdp::Profile;

use super::iouring_load;

#[derive(Args, Debug)]
pub struct DiffRateArgs {
    /// Scenarios the lanes run
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    pub scenarios: u64,
    /// Scenarios the single pair runs (the first of the same campaign)
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub baseline: u64,
    /// Campaign seed
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON document on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Way {
    way: &'static str,
    workers: usize,
    scenarios: u64,
    seconds: f64,
    scenarios_per_s: f64,
    /// User and system CPU of the process over wall time (1.0: one core).
    cpu: f64,
    /// Time waiting for a busy queue over the workers' time.
    bind_wait_share: f64,
    busy_binds: u64,
    load_before: Option<f64>,
}

/// User plus system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    // Safety: getrusage fills the zeroed struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn measure<T>(way: &'static str, workers: usize, f: impl FnOnce() -> Result<(u64, T), String>) -> Result<(Way, T), String> {
    let load_before = iouring_load::sample().load1;
    let (w0, c0, t0) = (bind_waits(), cpu_seconds(), Instant::now());
    let (scenarios, out) = f()?;
    let seconds = t0.elapsed().as_secs_f64();
    let waits = bind_waits() - w0;
    let cpu = (cpu_seconds() - c0) / seconds;
    let way = Way {
        way,
        workers,
        scenarios,
        seconds,
        scenarios_per_s: scenarios as f64 / seconds,
        cpu,
        bind_wait_share: waits.waited.as_secs_f64() / (seconds * workers as f64),
        busy_binds: waits.busy,
        load_before,
    };
    Ok((way, out))
}

pub fn run(a: &DiffRateArgs) -> Result<bool, String> {
    if let Some(why) = skip_reason() {
        println!("SKIP: {why}");
        return Ok(false);
    }
    let p = Profile::for_release(&release());
    let (seed, n0) = (a.seed, a.baseline.min(a.scenarios));
    let (one, alone) = measure("one pair, binds waiting, closes in line", 1, || {
        let k = in_sandbox(move |env| {
            (0..n0)
                .map(|i| compare(env, &gen::scenario_for(scenario_seed(seed, i), &p), &p).map(|c| digest(&c.kernel)))
                .collect::<std::io::Result<Vec<u64>>>()
        })
        .map_err(|e| e.to_string())?;
        Ok((n0, k))
    })?;
    let opts = Opts { scenarios: a.scenarios, seed, progress: false, out: None, stop_after: None, jobs: 0, observe: false };
    let workers = opts.workers();
    let (lanes, sum) = measure("lanes", workers, || {
        let s = campaign::run_with(opts, p, usize::MAX).map_err(|e| e.to_string())?;
        Ok((s.scenarios, s))
    })?;
    let same = sum.kernel_digests.iter().take(alone.len()).eq(alone.iter());
    let ways = [one, lanes];
    if a.json {
        let doc = serde_json::json!({"document": "bench-diff", "kernel": release(), "seed": seed, "ways": ways, "same_observations": same, "divergences": sum.divergences.len()});
        println!("{doc}");
    } else {
        println!("ringlab bench diff: kernel {}, seed {seed}", release());
        for w in &ways {
            println!(
                "{:<42} {} workers  {:>6} scenarios  {:>6.2} s  {:>7.1} scenarios/s  CPU {:>5.1}%  bind waits {:>5.1}% ({} EBUSY)  load before {}",
                w.way,
                w.workers,
                w.scenarios,
                w.seconds,
                w.scenarios_per_s,
                w.cpu * 100.0,
                w.bind_wait_share * 100.0,
                w.busy_binds,
                w.load_before.map_or("?".into(), |l| format!("{l:.2}"))
            );
        }
        println!(
            "lanes / one pair: {:.1}x; the first {} scenarios observed {} both ways; {} divergences",
            ways[1].scenarios_per_s / ways[0].scenarios_per_s,
            alone.len(),
            if same { "the same" } else { "DIFFERENTLY" },
            sum.divergences.len()
        );
    }
    Ok(same && sum.divergences.is_empty())
}
