//! `ringlab sim replay FILE`: a recorded trace of any protocol replayed
//! (see sim/src/harness/replay.rs): the protocol rebuilt from the
//! header's config and seed, run again, and the first step whose action
//! or projected state differs named, or the trace replays exactly. Exit
//! status 0 only if it replays exactly and the run passes.

use std::path::PathBuf;

use clap::Args;

use ringlab_sim::harness::RawTrace;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The trace (JSON lines, as `--trace FILE` records them)
    #[arg(value_name = "FILE")]
    trace: PathBuf,
}

pub fn run(a: &ReplayArgs) -> Result<bool, String> {
    let shown = a.trace.display();
    let text = std::fs::read_to_string(&a.trace).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let t = RawTrace::parse(text.as_bytes()).map_err(|e| format!("{shown}: {e}"))?;
    println!("seed: {}", t.header.seed);
    let r = ringlab_sim::protocols::replay(&t).map_err(|e| format!("{shown}: {e}"))?;
    println!("{r}");
    Ok(r.ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_ring_trace_replays_and_a_bad_one_is_bad_input() {
        let dir = std::env::temp_dir().join(format!("ringlab-replay-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.jsonl");
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/report/test/fixtures/sim-tx-wrap.jsonl");
        std::fs::copy(fixture, &f).unwrap();
        assert_eq!(run(&ReplayArgs { trace: f.clone() }), Ok(true));
        std::fs::write(&f, "{\"protocol\":\"nic\",\"seed\":1,\"steps\":1,\"config\":{}}\n{\"step\":0,\"action\":\"Init\",\"state\":{}}\n").unwrap();
        let e = run(&ReplayArgs { trace: f.clone() }).unwrap_err();
        assert!(e.contains("a trace of \"nic\": the protocols are xsk_ring, copy_tx, devmem"), "{e}");
        let e = run(&ReplayArgs { trace: dir.join("none") }).unwrap_err();
        assert!(e.starts_with("cannot read "), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
