//! The `ringlab-sim` command line. Exit status: 0 done, 1 a property failed
//! (or TLC rejected the trace), 2 bad input.

mod args;

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ringlab_tlc::{specs_dir, Tlc};

use crate::config::SimConfig;
use crate::outcome::{panic_message, RunError};
use crate::sched;
use crate::tlc::{self, Verdict};
use crate::trace::Trace;
use crate::{threads, tlatrace};
pub use args::{parse, Command, UsageError};

pub const USAGE: &str = "\
usage:
  ringlab-sim run [--ring fill|comp|rx|tx] [--size N] [--start N] [--steps N]
                  [--seed S] [--max-batch N] [--trace FILE] [--threads]
  ringlab-sim tla --trace FILE [--out DIR]
  ringlab-sim check --trace FILE [--work DIR]

run     simulate one ring (default: fill, size 4, start 0, 500 steps,
        max batch min(size, 4), a seed from the clock), then drain it;
        --threads runs the two actors free on two threads (no trace)
tla     write the trace's TLA+ model (MCXskRingTrace.tla/.cfg) into DIR
check   run TLC on the trace against specs/XskRingTrace.tla";

pub fn main(argv: Vec<String>) -> ExitCode {
    let cmd = match parse(&argv) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ringlab-sim: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match cmd {
        Command::Help => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::Run {
            cfg,
            steps,
            trace,
            threads,
        } => run(cfg, steps, trace, threads),
        Command::Tla { trace, out } => tla(&trace, &out),
        Command::Check { trace, work } => check(&trace, work),
    }
}

fn run(cfg: SimConfig, steps: u64, trace: Option<PathBuf>, threads: bool) -> ExitCode {
    println!("seed: {}", cfg.seed);
    if let Err(e) = cfg.validate() {
        eprintln!("ringlab-sim: {e}");
        return ExitCode::from(2);
    }
    // Without --trace a deterministic run still records, so a failure
    // leaves its trace where `ringlab report` draws it.
    let kept = trace.is_none() && !threads;
    let trace = trace.or_else(|| kept.then(|| failure_trace_path(&cfg)));
    let out = match trace.as_deref().map(create).transpose() {
        Ok(f) => f.map(|f| Box::new(BufWriter::new(f)) as _),
        Err(e) => {
            eprintln!("ringlab-sim: {e}");
            return ExitCode::from(2);
        }
    };
    // The ring's assertions panic; say where, briefly (no backtrace).
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("assertion{at}: {}", panic_message(info.payload()));
    }));
    let r = if threads {
        threads::run(cfg, steps)
    } else {
        sched::run(cfg, steps, out)
    };
    match r {
        Ok(s) => {
            if let (true, Some(t)) = (kept, &trace) {
                let _ = std::fs::remove_file(t);
            }
            print!("{s}");
            ExitCode::SUCCESS
        }
        Err(RunError::Failed(f)) => {
            eprintln!("FAILED: {f}");
            if let Some(t) = &trace {
                eprintln!(
                    "trace: {} (`ringlab report` draws it; the explorer opens it)",
                    t.display()
                );
            }
            eprintln!("replay: ringlab-sim run --ring {} --size {} --start {} --max-batch {} --seed {} --steps {steps}", cfg.kind, cfg.size, cfg.start, cfg.max_batch, cfg.seed);
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("ringlab-sim: {e}");
            ExitCode::from(2)
        }
    }
}

fn read_trace(path: &Path) -> Result<Trace, String> {
    let f = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    Trace::parse(BufReader::new(f)).map_err(|e| format!("{}: {e}", path.display()))
}

fn tla(trace: &Path, out: &Path) -> ExitCode {
    let r = read_trace(trace).and_then(|t| {
        std::fs::create_dir_all(out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
        tlatrace::write_model(&t, out).map_err(|e| format!("writing into {}: {e}", out.display()))
    });
    match r {
        Ok(()) => {
            println!(
                "wrote {}/{}.tla and .cfg (TLC needs XskRing.tla and XskRingTrace.tla beside them)",
                out.display(),
                tlatrace::MODULE
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ringlab-sim: {e}");
            ExitCode::from(2)
        }
    }
}

fn check(trace: &Path, work: Option<PathBuf>) -> ExitCode {
    let work = work.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("ringlab-trace-{}", std::process::id()))
    });
    let r = read_trace(trace).and_then(|t| {
        let tlc = Tlc::locate()?;
        Ok((tlc::check_trace(&tlc, &t, &specs_dir(), &work)?, t))
    });
    match r {
        Ok((c, t)) => {
            match c.verdict {
                Verdict::Accepted { distinct } => {
                    println!("accepted: the trace is a behaviour of XskRing ({distinct} states, TLC {:.1}s)", c.secs);
                    ExitCode::SUCCESS
                }
                Verdict::Rejected { last_i } => {
                    let next = t
                        .lines
                        .get(last_i as usize)
                        .map_or("?", |l| l.action.as_str());
                    println!("rejected: step {last_i} ({next}) is not a spec step from the state after step {} (TLC {:.1}s, model in {})", last_i.saturating_sub(1), c.secs, work.display());
                    ExitCode::from(1)
                }
            }
        }
        Err(e) => {
            eprintln!("ringlab-sim: {e}");
            ExitCode::from(2)
        }
    }
}

fn create(path: &Path) -> Result<File, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))
}

/// `target/ringlab/sim/` of the ringlab tree this runs in (else of the
/// current directory), where the report looks for simulator traces.
fn failure_trace_path(cfg: &SimConfig) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let root = cwd
        .ancestors()
        .find(|d| d.join("specs/manifest.json").is_file())
        .unwrap_or(&cwd)
        .to_path_buf();
    root.join("target/ringlab/sim").join(format!(
        "failed-{}-{}-seed{}.jsonl",
        cfg.kind, cfg.size, cfg.seed
    ))
}
