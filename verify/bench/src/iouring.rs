//! `ringlab bench iouring`: seed 003's io_uring zero-copy send experiment
//! on this machine. UDP/IPv4 datagrams of 4096, 1024 and 128 bytes go from
//! a connected socket on one end of a veth pair, in a namespace of the
//! bench's own, to the other end, which drops them (iouring_net.rs,
//! iouring_drop.rs); the eight modes of iouring_modes.rs send them in turn,
//! interleaved round by round, from one thread pinned to the last CPU.
//! The machine's load and a calibration loop are sampled before and after.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use ringlab_kernel::sandbox::Sandbox;
use ringlab_model::schema::Header;
use ringlab_tlc::manifest::find_root;

use super::iouring_load::{self, Load};
use super::iouring_modes::MODES;
use super::iouring_net;
use super::iouring_table::{self, Samples, PAYLOADS};
use super::machine::Machine;
use super::table::Table;
use super::{chart, default_out, BenchDoc};

#[derive(Args, Debug)]
pub struct IouringArgs {
    /// Seconds each mode sends for, per payload and round
    #[arg(long, default_value_t = 1.0)]
    pub secs: f64,
    /// Rounds (each figure is the median of its rounds)
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// 100 ms runs, 2 rounds: every mode runs, the figures are noisy
    #[arg(long)]
    pub quick: bool,
    /// Print one JSON document on stdout instead of tables
    #[arg(long)]
    pub json: bool,
    /// Where iouring.svg and iouring.json go (default target/ringlab/report/bench)
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress lines on stderr
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub allow_empty: ringlab_kernel::empty::AllowEmpty,
}

pub struct IouringOpts {
    pub rounds: usize,
    pub run: Duration,
}

impl IouringOpts {
    pub fn new(a: &IouringArgs) -> Result<IouringOpts, String> {
        if a.quick {
            return Ok(IouringOpts { rounds: 2, run: Duration::from_millis(100) });
        }
        if !(a.secs.is_finite() && a.secs > 0.0) || a.rounds == 0 {
            return Err(format!("--secs {} --rounds {}: both must be positive", a.secs, a.rounds));
        }
        Ok(IouringOpts { rounds: a.rounds, run: Duration::from_secs_f64(a.secs) })
    }
}

const TITLE: &str = "io_uring zero-copy send";

/// Why this process cannot run the bench, if it cannot.
fn skip_reason() -> Option<String> {
    // Safety: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root (CAP_NET_ADMIN and CAP_BPF) to make the namespace and attach the peer's drop".into());
    }
    if let Err(e) = io_uring::IoUring::new(8) {
        let knob = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").unwrap_or_else(|_| "?".into());
        return Some(format!("io_uring_setup refused: {e} (kernel.io_uring_disabled = {})", knob.trim()));
    }
    None
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

/// The two tables (or one saying why it was skipped); Err when a mode
/// broke (a send failed, a completion never came).
pub fn bench(o: &IouringOpts, progress: bool) -> Result<Vec<Table>, String> {
    if let Some(why) = skip_reason() {
        return Ok(vec![Table::skipped("iouring", TITLE, why)]);
    }
    let sandbox = match Sandbox::new() {
        Ok(s) => s,
        Err(e) => return Ok(vec![Table::skipped("iouring", TITLE, format!("cannot create the namespace and veth pair: {e}"))]),
    };
    // setns acts per thread: the measuring thread enters, this one stays.
    let out = std::thread::scope(|sc| {
        sc.spawn(|| -> Result<Vec<Table>, String> {
            sandbox.enter().map_err(|e| format!("entering the namespace: {e}"))?;
            pin_last_cpu();
            let b = Sandbox::ifindex(&sandbox.b).map_err(|e| e.to_string())?;
            let peer_drop = iouring_net::setup(&sandbox.a, &sandbox.b, b)?;
            measure(o, progress, &peer_drop.describe())
        })
        .join()
    });
    drop(sandbox);
    out.unwrap_or_else(|_| Err("the measuring thread panicked".into()))
}

fn measure(o: &IouringOpts, progress: bool, drop: &str) -> Result<Vec<Table>, String> {
    let before = iouring_load::sample();
    let mut s = Samples::empty();
    for round in 0..o.rounds {
        for (p, payload) in PAYLOADS.iter().enumerate() {
            if progress {
                eprintln!("  iouring: round {}/{}, {payload} bytes", round + 1, o.rounds);
            }
            for (m, mode) in MODES.iter().enumerate() {
                let r = mode.measure(*payload, o.run)?;
                s.rate[p][m].push(r.per_sec());
                s.zc_done[m] += r.zc_done;
                s.zc_copied[m] += r.zc_copied;
                s.requests[m] += r.requests;
                s.calls[m] += r.calls;
            }
        }
    }
    let after = iouring_load::sample();
    // Online CPUs: this thread's own affinity is one CPU now.
    // Safety: sysconf has no preconditions.
    let cores = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }.max(1) as usize;
    let busy = iouring_load::busy(&before, &after, cores);
    let context = context(o, drop, &before, &after, &s);
    Ok(vec![iouring_table::rates(&s, busy.as_deref(), context), iouring_table::orders(&s)])
}

fn context(o: &IouringOpts, drop: &str, before: &Load, after: &Load, s: &Samples) -> Vec<String> {
    let per_call: Vec<String> = MODES
        .iter()
        .enumerate()
        .map(|(m, mode)| format!("{} {:.2}", mode.name(), s.requests[m] as f64 / s.calls[m].max(1) as f64))
        .collect();
    vec![
        format!("path: a connected UDP socket on {}, to {} over veth (MTU 65535); {drop}", iouring_net::SRC, iouring_net::DST),
        format!("requests per system call: {}", per_call.join(", ")),
        format!(
            "{} rounds of {} ms per mode and payload, modes interleaved; one sending thread pinned to the last CPU; a fresh socket and ring per run; buffers not registered",
            o.rounds,
            o.run.as_millis()
        ),
        format!("before: {}; after: {}", iouring_load::line(before), iouring_load::line(after)),
    ]
}

/// `ringlab bench iouring`: Ok(true) when it measured, Ok(false) when it
/// was skipped (unless --allow-empty); Err for bad usage or a mode that broke.
pub fn run(a: &IouringArgs) -> Result<bool, String> {
    let o = IouringOpts::new(a)?;
    let out = match (&a.out, find_root()) {
        (Some(o), _) => o.clone(),
        (None, Ok(r)) => default_out(&r),
        (None, Err(e)) => return Err(format!("{e} (or name the output folder with --out)")),
    };
    let machine = Machine::here();
    if !a.json {
        println!("ringlab bench iouring{}", if a.quick { " --quick" } else { "" });
        println!("{}\n", machine.line());
    }
    let tables = bench(&o, !a.quiet)?;
    if !a.json {
        for t in &tables {
            println!("{}", t.render());
        }
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut charts = Vec::new();
    for t in &tables {
        if let Some(svg) = chart::chart_svg(t) {
            let p = out.join(format!("{}.svg", t.id));
            std::fs::write(&p, svg).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            charts.push(p.display().to_string());
        }
    }
    let doc = BenchDoc {
        header: Header::new(BenchDoc::DOCUMENT),
        machine,
        quick: a.quick,
        tables: tables.iter().map(Table::to_doc).collect(),
        charts,
    };
    let text = serde_json::to_string_pretty(&doc).expect("JSON of numbers and strings");
    let saved = out.join("iouring.json");
    std::fs::write(&saved, text.clone() + "\n").map_err(|e| format!("cannot write {}: {e}", saved.display()))?;
    if a.json {
        println!("{text}");
    } else {
        for c in &doc.charts {
            println!("chart: {c}");
        }
        println!("results: {}", saved.display());
    }
    if tables.iter().all(|t| t.skip.is_some()) && !a.allow_empty.allow_empty {
        eprintln!("ringlab: the io_uring bench was skipped, so nothing was measured, which is not a pass (add --allow-empty to accept it)");
        return Ok(false);
    }
    Ok(true)
}
