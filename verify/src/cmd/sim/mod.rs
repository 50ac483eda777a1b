//! `ringlab sim`: the simulator's protocols under the harness (see
//! sim/src/harness/): `ring` (one xsk ring), `copy-tx` (copy-mode
//! transmit, also what `ringlab sim` with no subcommand runs), `devmem`
//! (devmem TCP receive tokens), `xsk-rx` (AF_XDP receive), `iouring-zc`
//! (io_uring zero-copy send and its notifications), `napi-cache` (the
//! per-CPU NAPI skb cache, defer lists and tun's batches), each under the
//! seeded deterministic scheduler (every invariant after every step) or on real threads; and
//! `replay` of a recorded trace. Every run prints its seed; a failing
//! deterministic run leaves its trace, which `ringlab sim replay` replays.
//! Exit status: 0 done, 1 a property failed, 2 bad input.

mod copy_tx;
mod devmem;
mod iouring_zc;
mod napi_cache;
mod replay;
mod ring;
mod xsk_rx;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use ringlab_sim::harness::{panic_message, Failure, RunError};

/// What `ringlab sim` runs besides copy-mode transmit.
#[derive(Subcommand, Debug)]
pub enum SimCmd {
    /// One xsk ring (specs/XskRing.tla): a run, or a trace's TLA+ model or TLC check
    Ring(ring::RingArgs),
    /// Copy-mode transmit (specs/XskCopyTx.tla), then its cost table per packet
    CopyTx(copy_tx::CopyTxArgs),
    /// Devmem TCP receive tokens (xarray or array mode), then their cost table per token
    Devmem(devmem::DevmemArgs),
    /// AF_XDP receive (specs/XskRx.tla: XSKMAP or XDP_REDIRECT_XSK, driver or generic path), then its cost table per packet
    XskRx(xsk_rx::XskRxArgs),
    /// io_uring SEND_ZC and its notifications (specs/IoUringZcNotif.tla): submitter, network stack, reaper
    IouringZc(iouring_zc::IoUringZcArgs),
    /// The per-CPU NAPI skb cache, defer lists and tun's batches (specs/NapiSkbCache.tla): CPUs polling, tun, a receiver freeing remotely
    NapiCache(napi_cache::NapiCacheArgs),
    /// Replay a recorded trace: the first step that differs, or that it replays exactly
    Replay(replay::ReplayArgs),
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SimArgs {
    #[command(subcommand)]
    cmd: Option<SimCmd>,
    /// With no subcommand: copy-mode transmit, as `ringlab sim copy-tx`
    #[command(flatten)]
    copy_tx: copy_tx::CopyTxArgs,
}

/// Runs `ringlab sim`: Ok(true) clean, Ok(false) a failure found, Err bad input.
pub fn run(a: &SimArgs) -> Result<bool, String> {
    quiet_panics();
    match &a.cmd {
        None => copy_tx::run(&a.copy_tx),
        Some(SimCmd::CopyTx(c)) => copy_tx::run(c),
        Some(SimCmd::Devmem(d)) => devmem::run(d),
        Some(SimCmd::Ring(r)) => ring::run(r),
        Some(SimCmd::XskRx(x)) => xsk_rx::run(x),
        Some(SimCmd::IouringZc(i)) => iouring_zc::run(i),
        Some(SimCmd::NapiCache(n)) => napi_cache::run(n),
        Some(SimCmd::Replay(r)) => replay::run(r),
    }
}

/// A seed from the clock, for runs not given one (each prints its seed).
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// The protocols' assertions panic, and the harness turns a panic into a
/// failure naming it: print where, briefly (no backtrace).
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("assertion{at}: {}", panic_message(info.payload()));
    }));
}

/// A deterministic run's outcome, and the trace it left: the file asked
/// for, or, if it failed, the one it was recorded into anyway.
struct Recorded<R> {
    run: Result<R, Failure>,
    trace: Option<PathBuf>,
}

/// Run `go` recording its trace into `asked`; without `asked`, into
/// target/ringlab/sim/`failed`, kept only if the run fails (so that a
/// failure can be replayed and, for the ring, drawn by the report).
fn recorded<R>(
    asked: Option<&Path>,
    failed: &str,
    go: impl FnOnce(Box<dyn Write + Send>) -> Result<R, RunError>,
) -> Result<Recorded<R>, String> {
    let path = asked.map_or_else(|| sim_dir().join(failed), Path::to_path_buf);
    let out = Box::new(BufWriter::new(create(&path)?));
    let run = match go(out) {
        Ok(r) => Ok(r),
        Err(RunError::Failed(f)) => Err(f),
        Err(e) => return Err(e.to_string()),
    };
    let keep = asked.is_some() || run.is_err();
    if !keep {
        let _ = std::fs::remove_file(&path);
    }
    Ok(Recorded {
        run,
        trace: keep.then_some(path),
    })
}

/// `target/ringlab/sim/` of the ringlab tree this runs in (else of the
/// current directory), where the report looks for ring traces.
fn sim_dir() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let root = cwd
        .ancestors()
        .find(|d| d.join("specs/manifest.json").is_file())
        .unwrap_or(&cwd)
        .to_path_buf();
    root.join("target/ringlab/sim")
}

fn create(path: &Path) -> Result<File, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))
}

/// A run's outcome as text: its summary line (and its trace), or its
/// failure and how to replay it; then a blank line before the costs.
fn print_outcome<R>(
    outcome: &Option<Result<R, Failure>>,
    what: &str,
    summary: impl Fn(&R) -> String,
    replay: &str,
    trace: Option<&Path>,
) {
    match outcome {
        None => return,
        Some(Ok(r)) => {
            println!("{}", summary(r));
            if let Some(t) = trace {
                println!("trace: {}", t.display());
            }
        }
        Some(Err(f)) => {
            println!("{what}: FAILED at {f}");
            println!("{}", replay_lines(replay, trace));
        }
    }
    println!();
}

/// What every `ringlab sim P` does with its config: with `threads`, runs
/// it on real threads (`on_threads`); otherwise the seeded scheduler runs
/// it with its trace recorded into `asked`, or into
/// target/ringlab/sim/`dir`/failed-seedS.jsonl, kept only on a failure.
/// Both reports become an `R` (`from_sched`, `from_threads`); the trace
/// is None on threads.
#[allow(clippy::too_many_arguments)]
fn simulate<P: ringlab_sim::harness::Protocol, T, R>(
    dir: &str,
    seed: u64,
    threads: bool,
    steps: u64,
    asked: Option<&Path>,
    cfg: P::Config,
    on_threads: impl FnOnce(P::Config, u64) -> Result<T, Failure>,
    from_threads: impl FnOnce(T) -> R,
    from_sched: impl FnOnce(P::Report) -> R,
) -> Result<(Result<R, Failure>, Option<PathBuf>), String> {
    if threads {
        return Ok((on_threads(cfg, steps).map(from_threads), None));
    }
    let failed = format!("{dir}/failed-seed{seed}.jsonl");
    let r = recorded(asked, &failed, |out| ringlab_sim::harness::run::<P>(cfg, steps, Some(out)))?;
    Ok((r.run.map(from_sched), r.trace))
}

/// A report as the JSON documents carry it.
fn to_json(r: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(r).expect("a report is plain data")
}

/// A run in a JSON document: null when none ran (only costs were asked
/// for), its report, or its failure and how to replay it.
fn run_json<R: serde::Serialize>(outcome: Option<&Result<R, Failure>>, replay: &str) -> serde_json::Value {
    match outcome {
        None => serde_json::Value::Null,
        Some(Ok(r)) => serde_json::json!({ "ok": true, "report": r }),
        Some(Err(f)) => failure_json(f, replay),
    }
}

/// A failure in a JSON document.
fn failure_json(f: &Failure, replay: &str) -> serde_json::Value {
    serde_json::json!({
        "ok": false, "seed": f.seed, "step": f.step, "action": f.action,
        "invariant": f.invariant, "message": f.message, "replay": replay,
    })
}

/// The lines after a failure: how to replay it.
fn replay_lines(command: &str, trace: Option<&Path>) -> String {
    let mut out = format!("replay: {command}");
    if let Some(t) = trace {
        out += &format!("\ntrace: {} (replay it: ringlab sim replay {0})", t.display());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        a: SimArgs,
    }

    fn parse(line: &str) -> Result<SimArgs, String> {
        Cli::try_parse_from(std::iter::once("sim").chain(line.split_whitespace()))
            .map(|c| c.a)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn every_subcommand_parses_and_bare_flags_are_copy_tx() {
        assert!(matches!(parse("--seed 3 --batch 2").unwrap().cmd, None));
        assert!(matches!(parse("copy-tx --seed 3").unwrap().cmd, Some(SimCmd::CopyTx(_))));
        assert!(matches!(parse("devmem --mode array").unwrap().cmd, Some(SimCmd::Devmem(_))));
        assert!(matches!(parse("ring --ring tx --size 8").unwrap().cmd, Some(SimCmd::Ring(_))));
        assert!(matches!(parse("ring check t.jsonl").unwrap().cmd, Some(SimCmd::Ring(_))));
        assert!(matches!(parse("replay t.jsonl").unwrap().cmd, Some(SimCmd::Replay(_))));
        assert!(matches!(parse("iouring-zc --threads").unwrap().cmd, Some(SimCmd::IouringZc(_))));
        assert!(matches!(parse("napi-cache --path bulk").unwrap().cmd, Some(SimCmd::NapiCache(_))));
        assert!(parse("--seed 3 ring").is_err());
        assert!(parse("replay").unwrap_err().contains("FILE"));
    }

    #[test]
    fn a_trace_asked_for_is_kept_and_one_left_by_a_pass_is_not() {
        let dir = std::env::temp_dir().join(format!("ringlab-sim-cli-{}", std::process::id()));
        let asked = dir.join("asked.jsonl");
        let r = recorded(Some(&asked), "x", |mut w| {
            w.write_all(b"{}\n").map_err(RunError::Io)?;
            Ok(1)
        })
        .unwrap();
        assert_eq!((r.run, r.trace.as_deref()), (Ok(1), Some(asked.as_path())));
        assert!(asked.is_file());
        let failed = |_: Box<dyn Write + Send>| -> Result<(), RunError> {
            Err(RunError::Failed(Failure::at_start(1, "broke")))
        };
        let r = recorded(Some(&asked), "x", failed).unwrap();
        assert!(r.run.is_err() && r.trace.is_some());
        let bad = recorded(Some(&asked), "x", |_| -> Result<(), RunError> {
            Err(RunError::Config("size 3".into()))
        });
        assert_eq!(bad.err().as_deref(), Some("size 3"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
