//! Simulator throughput: descriptors transmitted per second by the
//! copy-mode TX simulation (sim/src/protocols/copy_tx/), under the
//! harness's seeded deterministic scheduler (every invariant checked after every step) and
//! on real threads (assertions as it runs, the invariants at the end), as
//! `ringlab sim copy-tx` runs them, by ring size and by number of sockets;
//! and the threads' bare twin (sim_bare.rs), the same work without the
//! simulator, which the threads are measured against.

use std::time::Instant;

use ringlab_sim::copy_tx::{threads, CopyTx, CopyTxConfig, Design};
use ringlab_sim::harness;

use super::iouring_load;
use super::sim_bare;
use super::table::{col, median, paired_ratio, ChartSpec, Fmt, Table};

pub struct SimOpts {
    pub seed: u64,
    /// (tx and completion ring size, sockets), in the table's order.
    pub configs: Vec<(usize, usize)>,
    /// Scheduler steps per seeded run.
    pub steps: u64,
    /// Completions per threaded run.
    pub packets: u64,
    pub rounds: usize,
}

impl SimOpts {
    pub fn new(quick: bool, seed: u64) -> SimOpts {
        let mut configs: Vec<(usize, usize)> = [4, 64, 1024].iter().map(|&r| (r, 2)).collect();
        configs.extend([(64, 1), (64, 4)]);
        configs.sort();
        SimOpts {
            seed,
            configs,
            steps: if quick { 2_000 } else { 40_000 },
            packets: if quick { 2_000 } else { 40_000 },
            rounds: if quick { 1 } else { 3 },
        }
    }
}

/// The scheduler names at most 256 frames.
pub const MAX_FRAMES: usize = 256;

/// Design b's per-descriptor loop, every outcome and failing allocation as
/// `ringlab sim` has them, with `sockets` sockets on rings of `ring`
/// entries, two frames per ring slot (at most 256) and the kernel's
/// default budget of 32.
pub fn config(ring: usize, sockets: usize, seed: u64) -> CopyTxConfig {
    let frames = (2 * ring * sockets).clamp(2 * sockets + 2, MAX_FRAMES);
    let mut cfg = CopyTxConfig::new(Design::B, 0, sockets, frames);
    cfg.spec.tx_size = ring;
    cfg.spec.cq_size = ring;
    cfg.spec.budget = 32;
    cfg.seed = seed;
    cfg
}

/// Which runner a measurement is of.
#[derive(Clone, Copy)]
enum Runner {
    Seeded,
    Threads,
    Bare,
}

/// One run: descriptors per second and the run's descriptors.
fn run_once(runner: Runner, cfg: CopyTxConfig, o: &SimOpts) -> Result<(f64, u64), String> {
    let t0 = Instant::now();
    let descs = match runner {
        Runner::Threads => threads::run(cfg, o.packets).map_err(|f| f.to_string())?.cost.descs,
        Runner::Seeded => harness::run::<CopyTx>(cfg, o.steps, None).map_err(|e| e.to_string())?.cost.descs,
        Runner::Bare => sim_bare::run(&cfg, o.packets).map_err(|e| format!("bare twin: {e}"))?,
    };
    let took = t0.elapsed().as_secs_f64().max(1e-9);
    Ok((descs as f64 / took, descs))
}

pub fn bench(o: &SimOpts, progress: bool) -> Result<Table, String> {
    let n = o.configs.len();
    let mut seeded = vec![Vec::new(); n];
    let mut threaded = vec![Vec::new(); n];
    let mut bare = vec![Vec::new(); n];
    let before = iouring_load::sample().load1;
    for round in 0..o.rounds {
        if progress {
            eprintln!("  sim: round {}/{} (seed {})", round + 1, o.rounds, o.seed);
        }
        for (i, &(ring, sockets)) in o.configs.iter().enumerate() {
            let cfg = config(ring, sockets, o.seed);
            cfg.validate()?;
            let (rate, descs) = run_once(Runner::Seeded, cfg.clone(), o)?;
            if descs == 0 {
                return Err(format!("sim bench: ring {ring}, {sockets} sockets: the seeded run sent nothing"));
            }
            seeded[i].push(rate);
            let (rate, _) = run_once(Runner::Threads, cfg.clone(), o)?;
            threaded[i].push(rate);
            let (rate, _) = run_once(Runner::Bare, cfg, o)?;
            bare[i].push(rate);
        }
    }
    let after = iouring_load::sample().load1;
    let mut t = Table::new(
        "sim",
        format!("simulator throughput (copy-mode TX, design b, descriptors/s; seed {})", o.seed),
        vec![
            col("config", "config", Fmt::Text),
            col("ring", "ring", Fmt::Count),
            col("sockets", "sockets", Fmt::Count),
            col("frames", "frames", Fmt::Count),
            col("seeded", "seeded", Fmt::Rate),
            col("threads", "threads", Fmt::Rate),
            col("bare", "bare", Fmt::Rate),
            col("threads_vs_bare", "threads/bare", Fmt::Ratio),
            col("threads_vs_seeded", "threads/seeded", Fmt::Ratio),
            col("seeded_vs_base", "seeded/base", Fmt::Ratio),
            col("threads_vs_base", "threads/base", Fmt::Ratio),
        ],
    );
    let base = o.configs.iter().position(|&c| c == (64, 1)).unwrap_or(0);
    for (i, &(ring, sockets)) in o.configs.iter().enumerate() {
        let frames = config(ring, sockets, o.seed).frames();
        t.push(vec![
            format!("ring {ring}, {sockets} sock").into(),
            (ring as u64).into(),
            (sockets as u64).into(),
            (frames as u64).into(),
            median(&seeded[i]).into(),
            median(&threaded[i]).into(),
            median(&bare[i]).into(),
            paired_ratio(&threaded[i], &bare[i]).into(),
            paired_ratio(&threaded[i], &seeded[i]).into(),
            paired_ratio(&seeded[i], &seeded[base]).into(),
            paired_ratio(&threaded[i], &threaded[base]).into(),
        ]);
    }
    let (br, bs) = o.configs[base];
    t.note(format!("base: ring {br}, {bs} socket; budget 32; the completion ring as big as the tx rings"));
    t.note(format!(
        "seeded: {} scheduler steps then the drain, every invariant after every step; threads: {} completions, a thread per socket, driver and application",
        o.steps, o.packets
    ));
    t.note(format!(
        "frames: two per ring slot, at most {MAX_FRAMES} (the scheduler's limit); median of {} rounds (ratios: of each round's); replay one: ringlab sim copy-tx --seed {} --sockets N",
        o.rounds, o.seed
    ));
    t.note(format!(
        "bare: the threads' twin without the simulator: the same threads, ring code, per-descriptor steps, odds, yields and {} completions, no model state, choice lists or invariants; it checks only that every frame came back once",
        o.packets
    ));
    let load = |l: Option<f64>| l.map_or("unknown".to_string(), |l| format!("{l:.2}"));
    t.note(format!(
        "load average {} before, {} after, on {} cores",
        load(before),
        load(after),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    ));
    t.chart = Some(ChartSpec {
        label: "config",
        series: vec!["seeded", "threads", "bare"],
        unit: "descriptors transmitted per second (longer is faster)".into(),
        skip_prefix: None,
    });
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_are_valid_and_named_frames_fit_the_scheduler() {
        for ring in [4, 64, 1024] {
            for sockets in [1, 2, 4] {
                let c = config(ring, sockets, 1);
                c.validate().unwrap();
                assert!(c.frames() <= MAX_FRAMES && c.frames() >= 2 * sockets + 2);
            }
        }
    }
}
