//! Live-kernel diff scenarios checked by TLC: each scenario's run of the
//! model (ringlab_model::afxdp, which the diff holds against the kernel)
//! is projected onto specs/XskCopyTx.tla (`afxdp::spec_trace`) and TLC
//! checks, through specs/XskCopyTxTraces.tla, that every step is a step
//! of the spec. Traces whose constants differ only in Frames share one
//! TLC run (the group's largest Frames; the frames a trace does not use
//! stay free), so many traces cost few JVM starts, two at a time.

mod log;
pub mod report;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use ringlab_model::afxdp::SpecTrace;
use ringlab_model::copy_tx::{tla, Config};
use ringlab_model::tla::{parse_value, Value};

use crate::trace::{is_ident, Scratch, TraceError, TraceSpec};
use crate::{Outcome, Parser, Tlc};

pub use log::Edit;
pub use report::{validate_scenarios, ChainReport, Rejection};

/// The generated module's name.
pub const MODULE: &str = "MCXskCopyTxTraces";

const SPEC: TraceSpec = TraceSpec {
    spec: "XskCopyTx",
    module: MODULE,
    runs: "kernel-chain",
};

/// Entries per TLC run at most (a run's module is parsed whole).
pub const ENTRIES_PER_RUN: usize = 60_000;

/// TLC's verdict on one trace of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    /// No step of the spec leads from state `step - 1` to state `step`
    /// (0: state 0 is not Init); `enabled` are the actions enabled at
    /// state `step - 1`.
    Rejected { step: usize, enabled: Vec<String> },
}

/// The verdicts of a set of traces and what checking them took.
#[derive(Clone, Debug)]
pub struct Checked {
    pub verdicts: Vec<Verdict>,
    pub tlc_runs: usize,
}

/// The group key: the constants but Frames, Sockets and MultiBuf. A
/// trace is checked under its group's largest Frames and Sockets and
/// MultiBuf if any of the group has it, which accepts exactly the traces
/// its own constants accept: it never uses the frames and sockets added
/// (they stay free and idle, and no action of another socket reads
/// them), and MultiBuf only lets UserSubmit choose XDP_PKT_CONTD, which a
/// trace of its own MultiBuf FALSE never does.
fn key(c: &Config) -> Config {
    Config { frames: Vec::new(), sockets: Vec::new(), multi_buf: false, ..c.clone() }
}

/// `t` under a group's constants: `frames` frames, `sockets` sockets,
/// MultiBuf if `multi_buf`.
fn widened(t: &SpecTrace, frames: usize, sockets: usize, multi_buf: bool) -> SpecTrace {
    let mut w = t.with_frames(frames).with_sockets(sockets);
    w.config.multi_buf |= multi_buf;
    w
}

/// Groups of trace indices that can share a run: the same key, at most
/// ENTRIES_PER_RUN entries each.
pub fn groups(traces: &[SpecTrace]) -> Vec<Vec<usize>> {
    group_by_key(traces.iter().map(|t| (key(&t.config), t.states.len())))
}

/// Groups of item indices, one per key and `(key, entries)` item in
/// turn, a group closed once it would pass ENTRIES_PER_RUN entries.
pub(crate) fn group_by_key<K: PartialEq>(items: impl IntoIterator<Item = (K, usize)>) -> Vec<Vec<usize>> {
    let mut by: Vec<(K, Vec<Vec<usize>>, usize)> = Vec::new();
    for (i, (k, size)) in items.into_iter().enumerate() {
        let g = match by.iter().position(|(c, _, _)| *c == k) {
            Some(p) => &mut by[p],
            None => {
                by.push((k, vec![Vec::new()], 0));
                by.last_mut().unwrap()
            }
        };
        if g.2 + size > ENTRIES_PER_RUN && !g.1.last().unwrap().is_empty() {
            g.1.push(Vec::new());
            g.2 = 0;
        }
        g.1.last_mut().unwrap().push(i);
        g.2 += size;
    }
    by.into_iter().flat_map(|(_, gs, _)| gs).collect()
}

/// The module defining `TraceLog`: every trace's entries, one after
/// another, all under the group's constants. Returns it, the constants
/// and each trace's first entry (1-based).
pub fn module(traces: &[&SpecTrace]) -> Result<(String, Config, Vec<usize>), TraceError> {
    let bad = TraceError::BadTrace;
    let first = traces.first().ok_or(bad("no trace".into()))?;
    let frames = traces.iter().map(|t| t.config.frames.len()).max().unwrap_or(1);
    let sockets = traces.iter().map(|t| t.config.sockets.len()).max().unwrap_or(1);
    let multi_buf = traces.iter().any(|t| t.config.multi_buf);
    let cfg = widened(first, frames, sockets, multi_buf).config;
    let names = tla::model_values(&cfg);
    if let Some(n) = names.iter().find(|n| !is_ident(n)) {
        return Err(bad(format!("model value {n:?} is not a TLA+ identifier")));
    }
    let mut rows = Vec::new();
    let mut starts = Vec::with_capacity(traces.len());
    for t in traces {
        if key(&t.config) != key(&cfg) {
            return Err(bad("traces of one run must have the same constants but Frames, Sockets and MultiBuf".into()));
        }
        let t = widened(t, frames, sockets, multi_buf);
        if t.states.len() != t.steps.len() + 1 {
            return Err(bad(format!("{} states for {} steps", t.states.len(), t.steps.len())));
        }
        starts.push(rows.len() + 1);
        for (k, s) in t.states.iter().enumerate() {
            tla::check_names(&t.config, s).map_err(|e| bad(format!("state {k}: {e}")))?;
        }
        rows.push(log::boundary(&t.config, &t.states[0]));
        for (k, st) in t.steps.iter().enumerate() {
            rows.push(log::step(&t.config, st, &t.states[k], &t.states[k + 1]));
        }
    }
    let text = format!(
        "---- MODULE {MODULE} ----\nEXTENDS XskCopyTxTraces\n\nCONSTANTS {}\n\nTraceLog == <<\n{}\n>>\n====\n",
        names.join(", "),
        rows.join(",\n")
    );
    Ok((text, cfg, starts))
}

/// The .cfg: the spec's constants, each model value as itself.
pub fn cfg_text(cfg: &Config) -> String {
    let mut out = tla::constants(cfg);
    for n in tla::model_values(cfg) {
        out += &format!("    {n} = {n}\n");
    }
    out + "    Entries <- TraceLog\n    Perms <- NoPerms\nINIT TraceInit\nNEXT TraceNext\n"
}

/// Writes the model of one run into `dir`, beside copies of the specs.
fn write_model(specs: &Path, dir: &Path, module: &str, cfg: &str) -> Result<(), TraceError> {
    let io = |what: String, e: std::io::Error| TraceError::Io(format!("{what}: {e}"));
    std::fs::create_dir_all(dir).map_err(|e| io(format!("creating {}", dir.display()), e))?;
    for m in ["XskCopyTx.tla", "XskCopyTxTraces.tla"] {
        std::fs::copy(specs.join(m), dir.join(m)).map_err(|e| io(format!("copying {m}"), e))?;
    }
    std::fs::write(dir.join(format!("{MODULE}.tla")), module).map_err(|e| io(format!("writing {MODULE}.tla"), e))?;
    std::fs::write(dir.join(format!("{MODULE}.cfg")), cfg).map_err(|e| io(format!("writing {MODULE}.cfg"), e))
}

/// The rejections TLC printed (PrintT, over several lines when long):
/// (entry, enabled actions).
pub(crate) fn rejections(stdout: &str) -> Vec<(usize, Vec<String>)> {
    let mut out: Vec<(usize, Vec<String>)> = Vec::new();
    let mut text: Option<String> = None;
    for l in stdout.lines() {
        if l.trim_start().starts_with("<<") && l.contains("\"chain-rejected\"") {
            text = Some(String::new());
        }
        let Some(t) = &mut text else { continue };
        t.push_str(l);
        t.push('\n');
        let Ok(v) = parse_value(t) else { continue };
        text = None;
        let Value::Seq(v) = v else { continue };
        let at = v.get(1).and_then(Value::as_int).unwrap_or(0) as usize;
        let enabled = match v.get(2) {
            Some(Value::Set(s)) => s.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        };
        if !out.iter().any(|(e, _)| *e == at) {
            out.push((at, enabled));
        }
    }
    out
}

/// Checks one group of traces in one TLC run; their verdicts in order.
fn check_group(tlc: &Tlc, traces: &[&SpecTrace]) -> Result<Vec<Verdict>, TraceError> {
    let (module, cfg, starts) = module(traces)?;
    let scratch = SPEC.scratch();
    write_model(&crate::specs_dir(), &scratch.dir, &module, &cfg_text(&cfg))?;
    let entries = starts.last().map_or(0, |s| s + traces.last().map_or(0, |t| t.steps.len()));
    run_group(tlc, &scratch, MODULE, &starts, entries)
}

/// TLC runs at once: two, or one on a single CPU.
pub(crate) fn jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(2)
}

/// Checks every trace with TLC, in as few runs as their constants allow
/// (two at a time where there are two CPUs).
pub fn check(traces: &[SpecTrace]) -> Result<Checked, TraceError> {
    check_groups(traces, groups(traces), check_group)
}

/// Checks the groups `gs` of `traces`, each in one TLC run of
/// `check_group`, `jobs()` runs at a time; one verdict per trace.
pub(crate) fn check_groups<T: Sync>(
    traces: &[T],
    gs: Vec<Vec<usize>>,
    check_group: impl Fn(&Tlc, &[&T]) -> Result<Vec<Verdict>, TraceError> + Sync,
) -> Result<Checked, TraceError> {
    let tlc = Tlc::locate().map_err(TraceError::NoTlc)?;
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Result<Vec<Verdict>, TraceError>)>> = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..jobs().min(gs.len()) {
            sc.spawn(|| loop {
                let g = next.fetch_add(1, Ordering::SeqCst);
                let Some(ids) = gs.get(g) else { break };
                let ts: Vec<&T> = ids.iter().map(|&i| &traces[i]).collect();
                let r = check_group(&tlc, &ts);
                done.lock().unwrap_or_else(|e| e.into_inner()).push((g, r));
            });
        }
    });
    let mut verdicts = vec![Verdict::Accepted; traces.len()];
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(g, _)| *g);
    for (g, r) in done {
        for (i, v) in gs[g].iter().zip(r?) {
            verdicts[*i] = v;
        }
    }
    Ok(Checked { verdicts, tlc_runs: gs.len() })
}

/// How long `f` took, in seconds.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_are_read_over_several_lines() {
        let out = "@!@!@STARTMSG 2190:0 @!@!@\nFinished computing initial states\n@!@!@ENDMSG 2190 @!@!@\n\
                   << \"chain-rejected\",\n   100,\n   {\"DriverFree(f1)\", \"UserSubmit(s1)\"} >>\n\
                   <<\"chain-rejected\", 7, {}>>\n@!@!@STARTMSG 2193:0 @!@!@\n";
        let r = rejections(out);
        assert_eq!(r, vec![(100, vec!["DriverFree(f1)".to_string(), "UserSubmit(s1)".to_string()]), (7, vec![])]);
    }
}

/// Runs TLC on the module `module` of traces written in `scratch` (trace
/// t's entries from `starts[t]`, `entries` in all) and reads one verdict
/// per trace; the scratch folder is kept when TLC fails or rejects.
pub(crate) fn run_group(tlc: &Tlc, scratch: &Scratch, module: &str, starts: &[usize], entries: usize) -> Result<Vec<Verdict>, TraceError> {
    let args = ["-tool", "-workers", "1", "-config", &format!("{module}.cfg"), &format!("{module}.tla")];
    let out = crate::run_args(tlc, &scratch.dir, args).map_err(TraceError::Tlc)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut p = Parser::new(&[]);
    stdout.lines().for_each(|l| {
        p.feed(l);
    });
    let r = p.finish(0.0, out.status.code(), &String::from_utf8_lossy(&out.stderr));
    let rejected = rejections(&stdout);
    let ok = match &r.outcome {
        Outcome::Pass if rejected.is_empty() => r.distinct_states == Some(entries as u64 + 1),
        Outcome::Pass => true,
        _ => false,
    };
    if !ok {
        let why = match r.outcome {
            Outcome::Error(e) => e,
            o => format!("{} with {:?} distinct states for {entries} entries", o.label(), r.distinct_states),
        };
        return Err(scratch.kept_err(TraceError::Tlc(why)));
    }
    let verdicts = starts
        .iter()
        .enumerate()
        .map(|(t, &first)| {
            let last = starts.get(t + 1).copied().unwrap_or(entries + 1);
            match rejected.iter().find(|(e, _)| (first..last).contains(e)) {
                Some((e, enabled)) => Verdict::Rejected { step: e - first, enabled: enabled.clone() },
                None => Verdict::Accepted,
            }
        })
        .collect();
    if rejected.is_empty() {
        scratch.remove();
    }
    Ok(verdicts)
}
