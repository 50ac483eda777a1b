//! Live-kernel diff scenarios' receive checked by TLC: each scenario's
//! run of the model (ringlab_model::afxdp) is projected onto
//! specs/XskRx.tla (`afxdp::rx_spec_trace`) and TLC checks, through
//! specs/XskRxTraces.tla, that every step is a step of the spec. Traces
//! whose constants differ only in what a trace may leave unused (NBufs,
//! MaxPkts, NSockets, MaxLen, Verdicts) share one TLC run under the
//! group's widest (`RxTrace::widened`), so a campaign costs one JVM
//! start per pair of ring sizes, two at a time.

mod log;
pub mod report;

use ringlab_model::afxdp::RxTrace;
use ringlab_model::xsk_rx::{tla, Config};

use super::kernel_chain::{check_groups, group_by_key, run_group, Checked, Verdict};
use crate::trace::{is_ident, TraceError, TraceSpec};
use crate::Tlc;

pub use report::{validate_rx_scenarios, RxChainReport};

/// The generated module's name.
pub const MODULE: &str = "MCXskRxTraces";

const SPEC: TraceSpec = TraceSpec { spec: "XskRx", module: MODULE, runs: "rx-chain" };

/// The group key: the constants but those `widened` may raise.
fn key(c: &Config) -> Config {
    Config { n_bufs: 0, max_pkts: 0, n_sockets: 0, max_len: 0, verdicts: Vec::new(), ..c.clone() }
}

/// The widest constants of `traces`.
fn widest(traces: &[&RxTrace]) -> Config {
    let mut w = traces[0].config.clone();
    for t in traces {
        let c = &t.config;
        w.n_bufs = w.n_bufs.max(c.n_bufs);
        w.max_pkts = w.max_pkts.max(c.max_pkts);
        w.n_sockets = w.n_sockets.max(c.n_sockets);
        w.max_len = w.max_len.max(c.max_len);
        w.verdicts.extend(c.verdicts.iter().copied());
    }
    w.verdicts.sort();
    w.verdicts.dedup();
    w
}

/// Groups of trace indices that can share a run: the same key, at most
/// kernel_chain::ENTRIES_PER_RUN entries each.
pub fn groups(traces: &[RxTrace]) -> Vec<Vec<usize>> {
    group_by_key(traces.iter().map(|t| (key(&t.config), t.states.len())))
}

/// The module defining `TraceLog`: every trace's entries, one after
/// another, all under the group's widest constants. Returns it, the
/// constants and each trace's first entry (1-based).
pub fn module(traces: &[&RxTrace]) -> Result<(String, Config, Vec<usize>), TraceError> {
    let bad = TraceError::BadTrace;
    if traces.is_empty() {
        return Err(bad("no trace".into()));
    }
    let cfg = widest(traces);
    cfg.validate().map_err(|e| bad(format!("the constants: {e}")))?;
    let names = tla::model_values(&cfg);
    if let Some(n) = names.iter().find(|n| !is_ident(n)) {
        return Err(bad(format!("model value {n:?} is not a TLA+ identifier")));
    }
    let mut rows = Vec::new();
    let mut starts = Vec::with_capacity(traces.len());
    for t in traces {
        if key(&t.config) != key(&cfg) {
            return Err(bad("traces of one run must have the same constants but those a trace may leave unused".into()));
        }
        let t = t.widened(&cfg);
        if t.states.len() != t.steps.len() + 1 {
            return Err(bad(format!("{} states for {} steps", t.states.len(), t.steps.len())));
        }
        starts.push(rows.len() + 1);
        rows.push(log::boundary(&t.config, &t.states[0]));
        for (k, st) in t.steps.iter().enumerate() {
            rows.push(log::step(&t.config, st, &t.states[k], &t.states[k + 1]));
        }
    }
    let text = format!(
        "---- MODULE {MODULE} ----\nEXTENDS XskRxTraces\n\nCONSTANTS {}\n\nTraceLog == <<\n{}\n>>\n====\n",
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
    out + "    Entries <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"
}

fn write_model(dir: &std::path::Path, module: &str, cfg: &str) -> Result<(), TraceError> {
    let io = |what: String, e: std::io::Error| TraceError::Io(format!("{what}: {e}"));
    let specs = crate::specs_dir();
    std::fs::create_dir_all(dir).map_err(|e| io(format!("creating {}", dir.display()), e))?;
    for m in ["XskRx.tla", "XskRxTraces.tla"] {
        std::fs::copy(specs.join(m), dir.join(m)).map_err(|e| io(format!("copying {m}"), e))?;
    }
    std::fs::write(dir.join(format!("{MODULE}.tla")), module).map_err(|e| io(format!("writing {MODULE}.tla"), e))?;
    std::fs::write(dir.join(format!("{MODULE}.cfg")), cfg).map_err(|e| io(format!("writing {MODULE}.cfg"), e))
}

/// Checks one group of traces in one TLC run; their verdicts in order.
fn check_group(tlc: &Tlc, traces: &[&RxTrace]) -> Result<Vec<Verdict>, TraceError> {
    let (module, cfg, starts) = module(traces)?;
    let scratch = SPEC.scratch();
    write_model(&scratch.dir, &module, &cfg_text(&cfg))?;
    let entries = starts.last().map_or(0, |s| s + traces.last().map_or(0, |t| t.steps.len()));
    run_group(tlc, &scratch, MODULE, &starts, entries)
}

/// Checks every trace with TLC, in as few runs as their constants allow
/// (two at a time where there are two CPUs).
pub fn check(traces: &[RxTrace]) -> Result<Checked, TraceError> {
    check_groups(traces, groups(traces), check_group)
}
