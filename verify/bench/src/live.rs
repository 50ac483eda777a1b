//! The live datapath: on a veth pair in a namespace of its own
//! (ringlab-kernel's sandbox, removed afterwards), 64-byte frames sent by a
//! copy-mode AF_XDP socket and by an AF_PACKET socket with
//! PACKET_QDISC_BYPASS, on the same veth end, in one run; then the copy
//! path's TX budget, 32 (the default) against the largest
//! XDP_MAX_TX_SKB_BUDGET accepts. The sender is pinned to one CPU, as the
//! seed's `taskset -c 1 xdpsock` was.

use std::time::Duration;

use ringlab_kernel::sandbox::Sandbox;

use super::live_packet::PacketSender;
use super::live_xdp::{frame, largest_budget, XdpSender, TX_SIZE};
use super::table::{col, median, paired_ratio, ChartSpec, Fmt, Table, Val};

/// Seed 000 (ixgbe, 10 Gb/s, 64-byte frames): AF_PACKET against copy mode.
pub const SEED_AF_PACKET: f64 = -0.236;

const TITLE: &str = "live datapath (veth, 64-byte frames, packets/s)";

pub struct LiveOpts {
    pub rounds: usize,
    pub run: Duration,
}

impl LiveOpts {
    pub fn new(quick: bool) -> LiveOpts {
        LiveOpts { rounds: if quick { 1 } else { 3 }, run: Duration::from_millis(if quick { 200 } else { 1000 }) }
    }
}

/// What one measurement sends with.
#[derive(Clone, Copy, Debug)]
enum Path {
    Xdp { batch: u32, budget: Option<u32> },
    Packet { batch: usize },
}

/// Packets per second, and packets per system call.
fn measure(ifindex: u32, p: Path, run: Duration) -> Result<(f64, f64), String> {
    match p {
        Path::Xdp { batch, budget } => {
            let mut s = XdpSender::new(ifindex, batch).map_err(|e| format!("AF_XDP socket: {e}"))?;
            if let Some(b) = budget {
                s.set_budget(b).map_err(|e| format!("budget {b}: {e}"))?;
            }
            s.run(run).map_err(|e| format!("AF_XDP send: {e}"))
        }
        Path::Packet { batch } => {
            let mut s = PacketSender::new(ifindex, batch).map_err(|e| format!("AF_PACKET socket: {e}"))?;
            s.run(&frame(), run).map_err(|e| format!("AF_PACKET send: {e}"))
        }
    }
}

fn pin_last_cpu() {
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    // Safety: a zeroed cpu_set_t is empty; CPU_SET stays within it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(n - 1, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

pub fn bench(o: &LiveOpts, progress: bool) -> Table {
    if let Some(why) = ringlab_kernel::env::skip_reason() {
        return Table::skipped("live", TITLE, why);
    }
    let sandbox = match Sandbox::new() {
        Ok(s) => s,
        Err(e) => return Table::skipped("live", TITLE, format!("cannot create the namespace and veth pair: {e}")),
    };
    // setns acts per thread: the measuring thread enters, this one stays.
    let out = std::thread::scope(|sc| {
        sc.spawn(|| -> Result<Table, String> {
            sandbox.enter().map_err(|e| format!("entering the namespace: {e}"))?;
            pin_last_cpu();
            let ifindex = Sandbox::ifindex(&sandbox.a).map_err(|e| e.to_string())?;
            run_all(ifindex, o, progress)
        })
        .join()
    });
    drop(sandbox);
    match out {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => Table::skipped("live", TITLE, e),
        Err(_) => Table::skipped("live", TITLE, "the measuring thread panicked"),
    }
}

fn run_all(ifindex: u32, o: &LiveOpts, progress: bool) -> Result<Table, String> {
    // The budget: is the option there, and how far does it go?
    let probe = XdpSender::new(ifindex, 64).map_err(|e| format!("AF_XDP copy-mode socket on veth: {e}"))?;
    let budget = largest_budget(&probe);
    drop(probe);
    let mut paths = vec![
        ("AF_XDP copy, batch 64, budget 32", Path::Xdp { batch: 64, budget: None }),
        ("AF_PACKET bypass, sendmmsg 64", Path::Packet { batch: 64 }),
    ];
    let big = match &budget {
        Ok((b, _)) => {
            paths.push(("AF_XDP copy, batch 256, budget 32", Path::Xdp { batch: 256, budget: None }));
            paths.push(("AF_XDP copy, batch 256, budget max", Path::Xdp { batch: 256, budget: Some(*b) }));
            Some(*b)
        }
        Err(_) => None,
    };
    let mut samples = vec![Vec::new(); paths.len()];
    let mut per_call = vec![Vec::new(); paths.len()];
    for round in 0..o.rounds {
        if progress {
            eprintln!("  live: round {}/{}", round + 1, o.rounds);
        }
        for (i, (_, p)) in paths.iter().enumerate() {
            let (pps, n) = measure(ifindex, *p, o.run)?;
            samples[i].push(pps);
            per_call[i].push(n);
        }
    }
    let m: Vec<Option<f64>> = samples.iter().map(|s| median(s)).collect();
    let c: Vec<Val> = per_call.iter().map(|s| Val::from(median(s))).collect();
    let mut t = Table::new(
        "live",
        TITLE,
        vec![
            col("path", "path", Fmt::Text),
            col("pps", "packets/s", Fmt::Rate),
            col("per_call", "per call", Fmt::Secs),
            col("against", "against", Fmt::Text),
            col("ratio", "ratio", Fmt::Ratio),
            col("diff", "diff", Fmt::Pct),
            col("seed", "seed 000 (ixgbe)", Fmt::Pct),
        ],
    );
    t.push(vec![paths[0].0.into(), m[0].into(), c[0].clone(), "".into(), Val::None, Val::None, Val::None]);
    let r = paired_ratio(&samples[1], &samples[0]);
    t.push(vec![
        paths[1].0.into(),
        m[1].into(),
        c[1].clone(),
        "copy mode".into(),
        r.into(),
        r.map(|r| r - 1.0).into(),
        SEED_AF_PACKET.into(),
    ]);
    if let Some(b) = big {
        let r = paired_ratio(&samples[3], &samples[2]);
        t.push(vec![paths[2].0.into(), m[2].into(), c[2].clone(), "".into(), Val::None, Val::None, Val::None]);
        t.push(vec![
            format!("AF_XDP copy, batch 256, budget {b}").into(),
            m[3].into(),
            c[3].clone(),
            "budget 32".into(),
            r.into(),
            r.map(|r| r - 1.0).into(),
            Val::None,
        ]);
    }
    t.note("per call: packets per system call (AF_XDP: completions per sendto kick; AF_PACKET: frames per sendmmsg)");
    t.note("seed 000: 1,801,007 pps copy mode, 1,375,808 pps AF_PACKET (-23.6%), ixgbe 10 Gb/s, xdpsock -t -s 64");
    match budget {
        Ok((b, err)) => t.note(format!(
            "XDP_MAX_TX_SKB_BUDGET: the largest accepted is {b} (the tx ring has {TX_SIZE} entries); {} is refused: {err}",
            b + 1
        )),
        Err(e) => t.note(format!("SKIP: budget rows: setsockopt XDP_MAX_TX_SKB_BUDGET refused ({e}); the option is in linux 6.17 and later")),
    }
    t.note(format!(
        "median of {} interleaved rounds of {} ms runs (ratios: of each round's); one sending thread pinned to the last CPU; a fresh socket per run",
        o.rounds,
        o.run.as_millis()
    ));
    t.chart = Some(ChartSpec {
        label: "path",
        series: vec!["pps"],
        unit: "packets per second sent on one veth end (longer is faster)".into(),
        skip_prefix: None,
    });
    Ok(t)
}
