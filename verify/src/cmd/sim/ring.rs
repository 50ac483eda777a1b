//! `ringlab sim ring`: one xsk ring (specs/XskRing.tla), a producer and a
//! consumer actor, either side the kernel's or libxdp's. With no
//! subcommand a run: under the seeded deterministic scheduler, recording
//! its trace (kept with --trace, or if the run fails, where the report
//! draws it), or with --threads the two actors free on two threads.
//! `tla` writes a trace's TLA+ model, `check` has TLC check it.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use ringlab_sim::harness::Failure;
use ringlab_sim::xsk_ring::{self, threads, trace_of, RingKind, RingTrace, SimConfig};
use ringlab_tlc::trace::xsk_ring as tlc;
use ringlab_tlc::trace::Verdict;
use ringlab_tlc::{specs_dir, Tlc};

use super::{clock_seed, recorded, replay_lines};
use ringlab_kernel::empty::AllowEmpty;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct RingArgs {
    #[command(subcommand)]
    cmd: Option<RingCmd>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum RingCmd {
    /// Write a trace's TLA+ model (MCXskRingTrace.tla and .cfg, beside the two specs) into DIR
    Tla {
        /// The trace (`ringlab sim ring --trace FILE`)
        #[arg(value_name = "FILE")]
        trace: PathBuf,
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
    },
    /// Run TLC on a trace against specs/XskRingTrace.tla
    Check {
        /// The trace (`ringlab sim ring --trace FILE`)
        #[arg(value_name = "FILE")]
        trace: PathBuf,
        /// Where TLC runs (default: a folder under target/ringlab/ring-trace/, kept if the trace is rejected)
        #[arg(long, value_name = "DIR")]
        work: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The ring: fill, comp, rx or tx
    #[arg(long, default_value = "fill")]
    ring: RingKind,
    /// Entries (a power of two)
    #[arg(long, default_value_t = 4)]
    size: u32,
    /// Where both counters start (near u32::MAX to cross the wrap)
    #[arg(long, default_value_t = 0)]
    start: u32,
    /// Steps before the drain (with --threads: steps of each actor)
    #[arg(long, default_value_t = 500)]
    steps: u64,
    #[command(flatten)]
    empty: AllowEmpty,
    /// The seed (default: drawn from the clock, and printed)
    #[arg(long)]
    seed: Option<u64>,
    /// The largest n one reserve, submit or peek asks for (default: min(size, 4))
    #[arg(long)]
    max_batch: Option<u32>,
    /// Record the trace into FILE
    #[arg(long, value_name = "FILE", conflicts_with = "threads")]
    trace: Option<PathBuf>,
    /// Run the two actors free on two threads (no trace)
    #[arg(long)]
    threads: bool,
}

/// Runs `ringlab sim ring`: Ok(true) done, Ok(false) a property failed
/// (or TLC rejected the trace), Err bad input.
pub fn run(a: &RingArgs) -> Result<bool, String> {
    match &a.cmd {
        None => simulate(&a.run),
        Some(RingCmd::Tla { trace, out }) => tla(trace, out),
        Some(RingCmd::Check { trace, work }) => check(trace, work.as_deref()),
    }
}

fn simulate(a: &RunArgs) -> Result<bool, String> {
    a.empty.count("--steps", a.steps)?;
    let seed = a.seed.unwrap_or_else(clock_seed);
    println!("seed: {seed}");
    let mut cfg = SimConfig::new(a.ring, a.size, a.start, seed);
    if let Some(m) = a.max_batch {
        cfg.max_batch = m;
    }
    cfg.validate().map_err(|e| e.to_string())?;
    let (run, trace): (Result<_, Failure>, _) = if a.threads {
        match threads::run(cfg, a.steps) {
            Err(e) => match e.failure() {
                Some(f) => (Err(f.clone()), None),
                None => return Err(e.to_string()),
            },
            Ok(s) => (Ok(s), None),
        }
    } else {
        let failed = format!("failed-{}-{}-seed{seed}.jsonl", cfg.kind, cfg.size);
        let r = recorded(a.trace.as_deref(), &failed, |out| {
            xsk_ring::run(cfg, a.steps, Some(out))
        })?;
        (r.run, r.trace)
    };
    match run {
        Ok(s) => {
            print!("{s}");
            if let Some(t) = &trace {
                println!("trace: {}", t.display());
            }
            Ok(true)
        }
        Err(f) => {
            let replay = format!(
                "ringlab sim ring --ring {} --size {} --start {} --max-batch {} --seed {seed} --steps {}{}",
                cfg.kind,
                cfg.size,
                cfg.start,
                cfg.max_batch,
                a.steps,
                if a.threads { " --threads" } else { "" }
            );
            eprintln!("FAILED: {f}");
            eprintln!("{}", replay_lines(&replay, trace.as_deref()));
            if trace.is_some() {
                eprintln!("(`ringlab report` draws the trace; the explorer opens it)");
            }
            Ok(false)
        }
    }
}

fn read_trace(path: &Path) -> Result<RingTrace, String> {
    let f = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    trace_of(BufReader::new(f)).map_err(|e| format!("{}: {e}", path.display()))
}

fn tla(trace: &Path, out: &Path) -> Result<bool, String> {
    let t = read_trace(trace)?;
    tlc::write_model(&t, &specs_dir(), out).map_err(|e| format!("writing into {}: {e}", out.display()))?;
    println!(
        "wrote {}/{}.tla and .cfg, beside XskRing.tla and XskRingTrace.tla",
        out.display(),
        tlc::MODULE
    );
    Ok(true)
}

fn check(trace: &Path, work: Option<&Path>) -> Result<bool, String> {
    let t = read_trace(trace)?;
    let verdict = match work {
        Some(dir) => {
            let tlc_jar = Tlc::locate()?;
            tlc::check(&tlc_jar, &t, &specs_dir(), dir)
        }
        None => tlc::validate(&t),
    }
    .map_err(|e| e.to_string())?;
    let h = &t.header;
    let built = if h.mutants.is_empty() {
        String::new()
    } else {
        format!(" (recorded with mutants {})", h.mutants.join(", "))
    };
    match verdict {
        Verdict::Accepted {
            steps,
            distinct_states,
        } => {
            println!("accepted: the trace is a behaviour of XskRing ({steps} steps, {distinct_states} states){built}");
            Ok(true)
        }
        Verdict::Rejected { step, reason, .. } => {
            println!("rejected at step {step}: {reason}{built}");
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: RingArgs,
    }

    fn parse(line: &str) -> Result<RingArgs, String> {
        Cli::try_parse_from(std::iter::once("ring").chain(line.split_whitespace()))
            .map(|c| c.a)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_run_takes_the_documented_flags() {
        let a = parse("--ring tx --size 8 --start 4294967290 --steps 20 --seed 3 --trace t.jsonl").unwrap();
        let r = &a.run;
        assert!(a.cmd.is_none());
        assert_eq!((r.ring, r.size, r.start, r.steps, r.seed), (RingKind::Tx, 8, 4294967290, 20, Some(3)));
        assert_eq!(r.trace.as_deref(), Some(Path::new("t.jsonl")));
        assert!(parse("--threads --seed=1").unwrap().run.threads);
        assert!(matches!(parse("check t.jsonl --work w").unwrap().cmd, Some(RingCmd::Check { .. })));
        assert!(matches!(parse("tla t.jsonl").unwrap().cmd, Some(RingCmd::Tla { .. })));
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        for (line, msg) in [
            ("--ring ftx", "unknown ring kind \"ftx\""),
            ("--size x", "invalid value 'x' for '--size <SIZE>'"),
            ("--start 4294967296", "--start"),
            ("--seed", "a value is required for '--seed <SEED>'"),
            ("--bogus 1", "unexpected argument '--bogus'"),
            ("--threads --trace f", "cannot be used with"),
            ("tla", "<FILE>"),
        ] {
            let e = parse(line).err().unwrap_or_default();
            assert!(e.contains(msg), "{line:?}: {e}");
        }
        let a = parse("--size 3").unwrap();
        let e = simulate(&a.run).unwrap_err();
        assert_eq!(e, "ring size 3 is not a power of two");
    }

    #[test]
    fn a_bad_trace_file_names_itself_and_what_is_wrong() {
        let dir = std::env::temp_dir().join(format!("ringlab-ring-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bad.jsonl");
        std::fs::write(&f, "{\"protocol\":\"copy_tx\",\"seed\":1,\"steps\":1,\"config\":{}}\n").unwrap();
        let e = read_trace(&f).unwrap_err();
        assert!(e.ends_with("bad.jsonl: this is a trace of copy_tx, not of xsk_ring"), "{e}");
        std::fs::write(&f, "{\"protocol\":\"xsk_ring\",\"seed\":1,\"steps\":1,\"config\":{\"ring\":\"tx\",\"size\":3,\"start\":0,\"max_batch\":1,\"seed\":1,\"prod_side\":\"user\",\"cons_side\":\"kernel\",\"invalid_descs\":true}}\n").unwrap();
        let e = read_trace(&f).unwrap_err();
        assert!(e.contains("its config: ring size 3 is not a power of two"), "{e}");
        assert!(read_trace(&dir.join("none.jsonl")).unwrap_err().starts_with("cannot open "));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
