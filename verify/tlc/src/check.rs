//! `ringlab check`: run the manifest's TLC models and hold each to its
//! expected outcome.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{self as tlc, Outcome, Tlc, TlcResult};
use serde::{Deserialize, Serialize};

use crate::manifest::{cfg_properties, Manifest, Model};
use crate::explorer::RingTrace;
use crate::trace_table;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelResult {
    pub name: String,
    /// What the model checks (the manifest's `about`).
    #[serde(default)]
    pub about: String,
    pub spec: String,
    pub config: String,
    pub expected: String,
    pub outcome: String,
    pub distinct_states: Option<u64>,
    pub depth: Option<u64>,
    pub seconds: f64,
    /// Where the counterexample was saved, if there was one.
    pub trace_file: Option<String>,
    /// TLC's message when it could not finish.
    pub error: Option<String>,
    /// The distinct-state count differs from the one the manifest recorded.
    pub drift: Option<String>,
}

impl ModelResult {
    pub fn ok(&self) -> bool {
        self.outcome == self.expected
    }
}

pub struct CheckOpts {
    pub workers: usize,
    /// Print progress lines on stderr.
    pub progress: bool,
    /// Print each counterexample as a table on stdout.
    pub show_traces: bool,
}

/// Where counterexamples and run records go.
pub use ringlab_model::paths::out_dir;

pub fn run_model(
    tlc: &Tlc,
    root: &Path,
    m: &Model,
    opts: &CheckOpts,
) -> ModelResult {
    let specs = root.join("specs");
    let spec = specs.join(&m.spec);
    let cfg = specs.join(&m.config);
    let props = cfg_properties(&cfg);
    let metadir = std::env::temp_dir().join(format!("ringlab-tlc-{}-{}", std::process::id(), m.name));
    // With several workers TLC's search is breadth-first only roughly, so
    // which of two violated invariants it reports first can change from run
    // to run. A model that must fail runs on one worker: its counterexample
    // is then the shortest, and the same every time.
    let workers = if m.expected.starts_with("pass") { opts.workers } else { 1 };
    let run_opts = tlc::RunOpts { workers, metadir, library: None, extra: Vec::new() };
    if opts.progress {
        eprintln!("  {:<34} running TLC ({} worker{})", m.name, workers, if workers == 1 { "" } else { "s" });
    }
    let name = m.name.clone();
    let show = opts.progress;
    let mut on_progress = |p: &tlc::Progress| {
        if show {
            eprintln!(
                "  {:<34} {:>10} distinct states, level {:>3}, {:>8} on queue, {:>6.1}s",
                name, p.distinct, p.level, p.queue, p.seconds
            );
        }
    };
    let res = tlc::run(tlc, &spec, &cfg, &props, &run_opts, &mut on_progress);
    let res = match res {
        Ok(r) => r,
        Err(e) => TlcResult {
            outcome: Outcome::Error(e),
            distinct_states: None,
            states_generated: None,
            depth: None,
            seconds: 0.0,
            trace: Vec::new(),
            loop_end: None,
            exit_code: None,
        },
    };
    let mut trace_file = None;
    if res.trace.is_empty() {
        forget_trace(root, m);
    } else {
        match save_trace(root, m, &res) {
            Ok(p) => trace_file = Some(p.display().to_string()),
            Err(e) => eprintln!("  {}: could not save the counterexample: {e}", m.name),
        }
        if opts.show_traces || res.outcome.label() != m.expected {
            println!("\n{} — {} (expected {})", m.name, res.outcome.label(), m.expected);
            print!("{}", trace_table::render(&res.trace, res.loop_end.as_ref(), never(&cfg)));
        }
    }
    let drift = match (m.distinct_states, res.distinct_states) {
        (Some(a), Some(b)) if a != b && matches!(res.outcome, Outcome::Pass) => Some(format!(
            "manifest records {a} distinct states, TLC found {b}: the spec or config changed (refresh with `ringlab check --record`)"
        )),
        _ => None,
    };
    ModelResult {
        name: m.name.clone(),
        about: m.about.clone(),
        spec: m.spec.clone(),
        config: m.config.clone(),
        expected: m.expected.clone(),
        outcome: res.outcome.label(),
        distinct_states: res.distinct_states,
        depth: res.depth,
        seconds: res.seconds,
        trace_file,
        error: match &res.outcome {
            Outcome::Error(e) => Some(e.clone()),
            _ => None,
        },
        drift,
    }
}

/// Saves the counterexample as `<model>.json` (ringlab-trace/1, what the
/// report and the explorer read) and `<model>.txt` (the table).
fn save_trace(root: &Path, m: &Model, r: &TlcResult) -> std::io::Result<PathBuf> {
    let dir = out_dir(root).join("traces");
    std::fs::create_dir_all(&dir)?;
    let json = dir.join(format!("{}.json", m.name));
    std::fs::write(&json, counterexample(root, m, r).to_json_text())?;
    let cfg = root.join("specs").join(&m.config);
    let mut txt = std::fs::File::create(dir.join(format!("{}.txt", m.name)))?;
    writeln!(txt, "{} — {} (expected {})", m.name, r.outcome.label(), m.expected)?;
    write!(txt, "{}", trace_table::render(&r.trace, r.loop_end.as_ref(), never(&cfg)))?;
    Ok(json)
}

/// A model's counterexample as ringlab-trace/1, titled with its name.
pub fn counterexample(root: &Path, m: &Model, r: &TlcResult) -> RingTrace {
    let cfg = root.join("specs").join(&m.config);
    crate::explorer::from_tlc(&m.name, &format!("specs/{}", m.config), &m.expected, &cfg, r)
}

/// A model that now has no counterexample keeps no stale one.
fn forget_trace(root: &Path, m: &Model) {
    let dir = out_dir(root).join("traces");
    for ext in ["json", "txt"] {
        let _ = std::fs::remove_file(dir.join(format!("{}.{ext}", m.name)));
    }
}

/// XskRing's `Never` (2^IdxBits) for a cfg that binds IdxBits.
fn never(cfg: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(cfg).ok()?;
    let bits: u32 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("IdxBits = "))?
        .trim()
        .parse()
        .ok()?;
    1u64.checked_shl(bits)
}

/// Models named on the command line, or every model of the tiers asked for.
pub fn select<'a>(man: &'a Manifest, names: &[String], deep: bool) -> Result<Vec<&'a Model>, String> {
    if names.is_empty() {
        return Ok(man
            .models
            .iter()
            .filter(|m| m.tier == "ci" || deep)
            .collect());
    }
    names
        .iter()
        .map(|n| {
            man.model(n).ok_or_else(|| {
                let known: Vec<_> = man.models.iter().map(|m| m.name.as_str()).collect();
                format!("no model `{n}` in specs/manifest.json; known: {}", known.join(", "))
            })
        })
        .collect()
}

/// Writes the measured figures of passing and failing-as-expected runs back
/// into the manifest.
pub fn record(path: &Path, results: &[ModelResult]) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut man: Manifest = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    for r in results.iter().filter(|r| r.ok()) {
        if let Some(m) = man.models.iter_mut().find(|m| m.name == r.name) {
            m.distinct_states = r.distinct_states;
            m.depth = r.depth;
            m.seconds = Some((r.seconds * 10.0).round() / 10.0);
        }
    }
    let out = serde_json::to_string_pretty(&man).map_err(|e| e.to_string())? + "\n";
    std::fs::write(path, out).map_err(|e| e.to_string())
}
