//! Run TLC on a trace model and read its verdict: no error means the trace
//! is a behaviour of the spec, a deadlock means it is not.

use std::path::Path;

use crate::{Outcome, RunOpts, Tlc, TlcResult};

use super::xsk_ring_module as tlatrace;
use ringlab_sim::xsk_ring::trace::Trace;

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
    /// What TLC reported.
    pub result: TlcResult,
}

/// Check `trace` against the spec in `work` (created if needed; the specs
/// are copied there, so TLC resolves `EXTENDS XskRing` without a library path).
pub fn check_trace(tlc: &Tlc, trace: &Trace, specs: &Path, work: &Path) -> Result<Checked, String> {
    let io = |what: &str, e: std::io::Error| format!("{what}: {e}");
    std::fs::create_dir_all(work).map_err(|e| io("creating the work dir", e))?;
    for m in ["XskRing.tla", "XskRingTrace.tla"] {
        std::fs::copy(specs.join(m), work.join(m))
            .map_err(|e| io(&format!("copying {}", specs.join(m).display()), e))?;
    }
    tlatrace::write_model(trace, work).map_err(|e| io("writing the trace model", e))?;
    let opts = RunOpts {
        workers: 1,
        metadir: work.join("states"),
        library: None,
        extra: Vec::new(),
    };
    let result = crate::run(
        tlc,
        &work.join(format!("{}.tla", tlatrace::MODULE)),
        &work.join(format!("{}.cfg", tlatrace::MODULE)),
        &[],
        &opts,
        &mut |_| {},
    )?;
    let verdict = verdict(&result, trace.lines.len())?;
    Ok(Checked {
        verdict,
        secs: result.seconds,
        result,
    })
}

/// Read TLC's result for a log of `lines` lines.
pub fn verdict(r: &TlcResult, lines: usize) -> Result<Verdict, String> {
    match &r.outcome {
        Outcome::Deadlock => {
            let last_i = r
                .trace
                .last()
                .and_then(|s| s.var("i"))
                .and_then(|v| v.parse().ok())
                .ok_or("TLC reported a deadlock without a state")?;
            Ok(Verdict::Rejected { last_i })
        }
        Outcome::Pass => {
            let distinct = r
                .distinct_states
                .ok_or("TLC found no error but printed no state count")?;
            // Each log line is a distinct state (it has its own i); fewer
            // means the first line did not match an initial state.
            if distinct < lines as u64 {
                return Ok(Verdict::Rejected { last_i: 0 });
            }
            Ok(Verdict::Accepted { distinct })
        }
        Outcome::Error(e) => Err(format!("TLC did not check the trace:\n{e}")),
        o => Err(format!("TLC did not check the trace: {}", o.label())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(tool_output: &str) -> TlcResult {
        crate::Parser::parse_str(tool_output)
    }

    #[test]
    fn verdicts_are_read() {
        let ok = &result("@!@!@STARTMSG 2193:0 @!@!@\nModel checking completed. No error has been found.\n@!@!@ENDMSG 2193 @!@!@\n\
             @!@!@STARTMSG 2199:0 @!@!@\n312 states generated, 301 distinct states found, 0 states left on queue.\n@!@!@ENDMSG 2199 @!@!@");
        assert_eq!(verdict(ok, 301), Ok(Verdict::Accepted { distinct: 301 }));
        assert_eq!(verdict(ok, 400), Ok(Verdict::Rejected { last_i: 0 }));
        let dead = &result("@!@!@STARTMSG 2114:1 @!@!@\nDeadlock reached.\n@!@!@ENDMSG 2114 @!@!@\n\
             @!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ i = 1\n@!@!@ENDMSG 2217 @!@!@\n\
             @!@!@STARTMSG 2217:4 @!@!@\n2: <TraceNext line 5, col 1 to line 9, col 20 of module XskRingTrace>\n/\\ i = 2\n@!@!@ENDMSG 2217 @!@!@");
        assert_eq!(verdict(dead, 9), Ok(Verdict::Rejected { last_i: 2 }));
        let error = &result("@!@!@STARTMSG 1000:1 @!@!@\nparse error\n@!@!@ENDMSG 1000 @!@!@");
        assert!(verdict(error, 3).is_err());
    }
}
