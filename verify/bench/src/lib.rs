//! `ringlab bench`: performance, measured side by side in one run and
//! reported as ratios (absolute figures depend on the machine and its
//! noise; ratios of one run do not). Four benchmarks, one table each:
//!
//! - ring.rs: the simulator's ring against libxdp's, rtrb and crossbeam;
//! - sim_rate.rs: the copy-mode TX simulation, seeded and on threads, and
//!   sim_bare.rs, its threads' bare twin;
//! - tlc.rs: TLC on every CI model, 1 and 2 workers;
//! - live.rs (live_xdp.rs, live_packet.rs): AF_XDP copy mode against
//!   AF_PACKET on a veth pair, and the TX budget.
//!
//! table.rs holds a result, chart.rs draws it as SVG, machine.rs says where
//! it was measured. Every table is printed, drawn to `<out>/<id>.svg` and
//! saved with the others in `<out>/bench.json` (a [`BenchDoc`]).

pub mod chart;
pub mod diff_rate;
pub mod iouring;
pub mod iouring_drop;
pub mod iouring_load;
pub mod iouring_modes;
pub mod iouring_net;
pub mod iouring_pool;
pub mod iouring_ring;
pub mod iouring_seed;
pub mod iouring_send;
pub mod iouring_table;
pub mod live;
pub mod live_packet;
pub mod live_xdp;
pub mod machine;
pub mod napi_cache;
pub mod napi_cache_walk;
pub mod ring;
pub mod series;
pub mod series_guest;
pub mod series_marker;
pub mod series_print;
pub mod series_profile;
pub mod series_table;
pub mod sim_bare;
pub mod sim_bare_kernel;
pub mod sim_rate;
pub mod table;
pub mod tlc;

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};

use ringlab_model::paths::out_dir;
use ringlab_model::schema::Header;
use ringlab_tlc::manifest::{find_root, Manifest};
use machine::Machine;
use table::{Table, TableDoc};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Only {
    /// Ring throughput against libxdp, rtrb and crossbeam
    Ring,
    /// Simulator throughput, seeded and on threads
    Sim,
    /// TLC on the CI models, 1 and 2 workers
    Tlc,
    /// AF_XDP copy mode against AF_PACKET on veth (root)
    Live,
}

const ALL: [Only; 4] = [Only::Ring, Only::Sim, Only::Tlc, Only::Live];

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Print one JSON document on stdout instead of tables
    #[arg(long)]
    pub json: bool,
    /// Only these benchmarks (comma-separated or repeated)
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<Only>,
    /// Short runs (well under a minute; figures noisier)
    #[arg(long)]
    pub quick: bool,
    /// Where the charts and bench.json go (default target/ringlab/report/bench)
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// TLC: add the deep-tier models
    #[arg(long)]
    pub deep: bool,
    /// Seed of the simulator runs (default: drawn from the clock, and printed)
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress lines on stderr
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub allow_empty: ringlab_kernel::empty::AllowEmpty,
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Runs `ringlab bench`: Ok(true) when a benchmark measured something
/// (the others saying why not), Ok(false) when every one was skipped
/// (unless --allow-empty); Err for bad usage or a benchmark that broke.
pub fn run(a: &BenchArgs) -> Result<bool, String> {
    let which: Vec<Only> = if a.only.is_empty() { ALL.to_vec() } else { ALL.into_iter().filter(|o| a.only.contains(o)).collect() };
    let root = find_root();
    let out = match (&a.out, &root) {
        (Some(o), _) => o.clone(),
        (None, Ok(r)) => default_out(r),
        (None, Err(e)) => return Err(format!("{e} (or name the output folder with --out)")),
    };
    let machine = Machine::here();
    let progress = !a.quiet;
    if !a.json {
        println!("ringlab bench{}", if a.quick { " --quick" } else { "" });
        println!("{}\n", machine.line());
    }
    let seed = a.seed.unwrap_or_else(clock_seed);
    let mut tables = Vec::new();
    for w in which {
        let t = match w {
            Only::Ring => ring::bench(&ring::RingOpts::new(a.quick), progress),
            Only::Sim => sim_rate::bench(&sim_rate::SimOpts::new(a.quick, seed), progress)?,
            Only::Tlc => {
                let root = root.as_ref().map_err(|e| e.clone())?;
                let man = Manifest::load(&root.join("specs/manifest.json"))?;
                tlc::bench(root, &man, &tlc::TlcOpts { deep: a.deep, quick: a.quick }, progress)
            }
            Only::Live => live::bench(&live::LiveOpts::new(a.quick), progress),
        };
        if !a.json {
            println!("{}", t.render());
        }
        tables.push(t);
    }
    let charts = write_charts(&out, &tables)?;
    let doc = document(&machine, a.quick, &tables, &charts);
    let saved = out.join("bench.json");
    std::fs::write(&saved, serde_json::to_string_pretty(&doc).expect("JSON of numbers and strings") + "\n")
        .map_err(|e| format!("cannot write {}: {e}", saved.display()))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&doc).expect("JSON of numbers and strings"));
    } else {
        for c in &charts {
            println!("chart: {}", c.display());
        }
        println!("results: {}", saved.display());
    }
    if tables.iter().all(|t| t.skip.is_some()) && !a.allow_empty.allow_empty {
        eprintln!("ringlab: every benchmark asked for was skipped, so nothing was measured, which is not a pass (add --allow-empty to accept it)");
        return Ok(false);
    }
    Ok(true)
}

/// target/ringlab/report/bench, beside the report `ringlab report` writes.
pub fn default_out(root: &Path) -> PathBuf {
    out_dir(root).join("report").join("bench")
}

fn document(m: &Machine, quick: bool, tables: &[Table], charts: &[PathBuf]) -> BenchDoc {
    BenchDoc {
        header: Header::new(BenchDoc::DOCUMENT),
        machine: m.clone(),
        quick,
        tables: tables.iter().map(Table::to_doc).collect(),
        charts: charts.iter().map(|c| c.display().to_string()).collect(),
    }
}

/// bench.json, and what `ringlab bench --json` prints.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchDoc {
    #[serde(flatten)]
    pub header: Header,
    /// Where it was measured.
    pub machine: Machine,
    /// `--quick`: short runs, noisier figures.
    pub quick: bool,
    /// One table per benchmark, in the order they ran.
    pub tables: Vec<TableDoc>,
    /// The charts drawn, one SVG per table that has one.
    pub charts: Vec<String>,
}

impl BenchDoc {
    pub const DOCUMENT: &'static str = "bench";
}

/// Writes a chart per table; returns their paths.
fn write_charts(out: &Path, tables: &[Table]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut charts = Vec::new();
    for t in tables {
        if let Some(svg) = chart::chart_svg(t) {
            let p = out.join(format!("{}.svg", t.id));
            std::fs::write(&p, svg).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            charts.push(p);
        }
    }
    Ok(charts)
}
