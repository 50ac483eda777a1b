//! `ringlab check`: run the manifest's TLC models and hold each to its
//! expected outcome.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{self as tlc, Outcome, Tlc, TlcResult};
use serde::{Deserialize, Serialize};

use crate::coverage::{self, Coverage};
use crate::manifest::{cfg_properties, Manifest, Model, Reference};
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
    /// The distinct-state count or depth differs from the manifest's.
    pub drift: Option<String>,
    /// The drift fails the model: the spec has a reference model whose
    /// counts are tested against the manifest's (its `reference`).
    #[serde(default)]
    pub drift_fails: bool,
    /// The actions the run took, and (for the spec's `transitions`
    /// models) whether each has transitions of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
}

impl ModelResult {
    /// The expected outcome, no action never taken or redundant, and the
    /// state count of the spec's reference model.
    pub fn ok(&self) -> bool {
        self.outcome == self.expected
            && self.error.is_none()
            && self.coverage.as_ref().map_or(true, Coverage::ok)
            && !(self.drift_fails && self.drift.is_some())
    }
}

pub struct CheckOpts {
    pub workers: usize,
    /// Print progress lines on stderr.
    pub progress: bool,
    /// Print each counterexample as a table on stdout.
    pub show_traces: bool,
    /// Print only this actor's steps (the manifest's `specs.<spec>.actors`).
    pub actor: Option<String>,
}

/// Where counterexamples and run records go.
pub use ringlab_model::paths::out_dir;

/// TLC on `m` with its coverage report (and, for one of its spec's
/// `transitions` models, its state graph), judged by `man`'s policy.
pub fn run_model(
    tlc: &Tlc,
    root: &Path,
    man: &Manifest,
    m: &Model,
    opts: &CheckOpts,
) -> ModelResult {
    let specs = root.join("specs");
    let spec = specs.join(&m.spec);
    let cfg = specs.join(&m.config);
    let props = cfg_properties(&cfg);
    // Unique per call: two runs of one model may overlap (tests do).
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let metadir = std::env::temp_dir().join(format!("ringlab-tlc-{}-{run}-{}", std::process::id(), m.name));
    // With several workers TLC's search is breadth-first only roughly, so
    // which of two violated invariants it reports first can change from run
    // to run. A model that must fail runs on one worker: its counterexample
    // is then the shortest, and the same every time.
    let workers = if m.expected.starts_with("pass") { opts.workers } else { 1 };
    let graph = man.graph_models(&m.spec).contains(&m.name.as_str());
    let dot = metadir.with_extension("dot");
    let mut extra: Vec<String> = vec!["-coverage".into(), "1".into()];
    if graph {
        extra.extend(["-dump".into(), "dot,actionlabels".into(), dot.display().to_string()]);
    }
    let run_opts = tlc::RunOpts { workers, metadir, library: None, extra };
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
            actions: Vec::new(),
        },
    };
    let mut graph_error = None;
    let edges = if graph && matches!(res.outcome, Outcome::Pass) {
        coverage::edges_of_dot(&dot).map_err(|e| graph_error = Some(format!("state graph: {e}"))).ok()
    } else {
        None
    };
    let _ = std::fs::remove_file(&dot);
    let complete = m.expected == "pass" && matches!(res.outcome, Outcome::Pass);
    let coverage = (!res.actions.is_empty())
        .then(|| coverage::judge(&res.actions, complete, &man.policy(&m.spec), edges.as_deref()));
    let mut trace_file = None;
    if res.trace.is_empty() {
        forget_trace(root, m);
    } else {
        match save_trace(root, man, m, &res) {
            Ok(p) => trace_file = Some(p.display().to_string()),
            Err(e) => eprintln!("  {}: could not save the counterexample: {e}", m.name),
        }
        if opts.show_traces || res.outcome.label() != m.expected {
            println!("\n{} — {} (expected {})", m.name, res.outcome.label(), m.expected);
            let actors = man.policy(&m.spec).actors;
            let actor = opts
                .actor
                .as_deref()
                .and_then(|n| actors.get_key_value(n))
                .map(|(name, actions)| trace_table::Actor { name, actions });
            print!("{}", trace_table::render_for(&res.trace, res.loop_end.as_ref(), never(&cfg), actor.as_ref()));
            if let Some(story) = crate::lanes::story(&res.trace) {
                println!("  where each frame, buffer or token went:");
                // with --actor, the moves of that actor's steps
                let steps = res.trace.iter().skip(1);
                for (l, st) in story.iter().zip(steps) {
                    if actor.as_ref().map_or(true, |a| a.actions.contains(&st.action)) {
                        println!("  {l}");
                    }
                }
            }
        }
    }
    // The reference model's search is held to the ci tier's figures.
    let reference = man.policy(&m.spec).reference.filter(|_| m.tier == "ci");
    let drift = drift(m, &res, reference.as_ref(), workers == 1);
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
            _ => graph_error,
        },
        drift,
        drift_fails: reference.is_some(),
        coverage,
    }
}

/// How a run's distinct states and depth differ from the manifest's, if
/// they do. The depth is compared only when `exact_depth` (TLC ran on one
/// worker): on more, its search is breadth-first only roughly and the
/// depth it reports can differ by one from run to run. A run that stops at
/// a violation (or deadlock) stops wherever its one worker found it: its
/// figures are compared only when they are a reference model's, whose
/// search takes successors in TLC's order and must stop at the same
/// state; a spec edit that keeps the outcome but moves the first bad
/// state is then caught too.
pub fn drift(m: &Model, res: &TlcResult, reference: Option<&Reference>, exact_depth: bool) -> Option<String> {
    let stopped = matches!(res.outcome, Outcome::Violation(_) | Outcome::Deadlock);
    if !matches!(res.outcome, Outcome::Pass) && !(stopped && exact_depth && reference.is_some()) {
        return None;
    }
    let mut differ = Vec::new();
    if let (Some(a), Some(b)) = (m.distinct_states, res.distinct_states) {
        if a != b {
            differ.push(format!("{b} distinct states (manifest: {a})"));
        }
    }
    if let (Some(a), Some(b), true) = (m.depth, res.depth, exact_depth) {
        if a != b {
            differ.push(format!("depth {b} (manifest: {a})"));
        }
    }
    if differ.is_empty() {
        return None;
    }
    let found = differ.join(", ");
    Some(match reference {
        Some(r) => format!(
            "TLC found {found}, and the manifest's figures are the reference model's ({}): the spec and its model disagree; if the change is meant, change the model too, then `ringlab check --record`",
            r.words()
        ),
        None => format!("TLC found {found}: the spec or config changed (refresh with `ringlab check --record`)"),
    })
}

/// Each spec's action coverage over `results`.
pub fn spec_coverage(man: &Manifest, results: &[ModelResult]) -> Vec<coverage::SpecCoverage> {
    let runs: Vec<coverage::ModelCoverage> = results
        .iter()
        .map(|r| coverage::ModelCoverage { model: &r.name, spec: &r.spec, coverage: r.coverage.as_ref() })
        .collect();
    coverage::by_spec(man, &runs)
}

/// Saves the counterexample as `<model>.json` (ringlab-trace/1, what the
/// report and the explorer read), `<model>.txt` (the table) and
/// `<model>.itf.json` (Apalache's ITF, for other TLA+ tools).
fn save_trace(root: &Path, man: &Manifest, m: &Model, r: &TlcResult) -> std::io::Result<PathBuf> {
    let dir = out_dir(root).join("traces");
    std::fs::create_dir_all(&dir)?;
    let json = dir.join(format!("{}.json", m.name));
    let mut t = counterexample(root, m, r);
    let actors = man.policy(&m.spec).actors;
    for st in &mut t.states {
        st.actor = actors.iter().find(|(_, xs)| xs.contains(&st.action)).map(|(n, _)| n.clone());
    }
    std::fs::write(&json, t.to_json_text())?;
    let cfg = root.join("specs").join(&m.config);
    let mut txt = std::fs::File::create(dir.join(format!("{}.txt", m.name)))?;
    writeln!(txt, "{} — {} (expected {})", m.name, r.outcome.label(), m.expected)?;
    write!(txt, "{}", trace_table::render(&r.trace, r.loop_end.as_ref(), never(&cfg)))?;
    // for other TLA+ tools; a value this reader cannot parse only costs the ITF file
    match crate::itf::trace(&r.trace, &format!("specs/{}", m.config), &r.outcome.label()) {
        Ok(itf) => std::fs::write(dir.join(format!("{}.itf.json", m.name)), itf.to_string())?,
        Err(e) => eprintln!("ringlab: {}: no ITF file: {e}", m.name),
    }
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
    for ext in ["json", "txt", "itf.json"] {
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
    // A drift is what --record is for: a new or changed model records its
    // figures once its outcome is the expected one.
    for r in results.iter().filter(|r| r.outcome == r.expected && r.error.is_none()) {
        if let Some(m) = man.models.iter_mut().find(|m| m.name == r.name) {
            m.distinct_states = r.distinct_states;
            m.depth = r.depth;
            m.seconds = Some((r.seconds * 10.0).round() / 10.0);
        }
    }
    let out = serde_json::to_string_pretty(&man).map_err(|e| e.to_string())? + "\n";
    std::fs::write(path, out).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(distinct: u64, depth: u64) -> Model {
        serde_json::from_value(serde_json::json!({
            "name": "m", "spec": "S.tla", "config": "mc/S.cfg", "expected": "pass", "tier": "ci",
            "about": "", "distinct_states": distinct, "depth": depth
        }))
        .unwrap()
    }

    fn ran(outcome: Outcome, distinct: u64, depth: u64) -> TlcResult {
        TlcResult {
            outcome,
            distinct_states: Some(distinct),
            states_generated: None,
            depth: Some(depth),
            seconds: 1.0,
            trace: Vec::new(),
            loop_end: None,
            exit_code: Some(0),
            actions: Vec::new(),
        }
    }

    #[test]
    fn a_passing_run_off_the_reference_figures_names_both() {
        let r = Reference { model: "model/src/x".into(), tests: vec!["ringlab-tlc/x_bfs".into()], about: String::new() };
        assert_eq!(drift(&model(10, 4), &ran(Outcome::Pass, 10, 4), Some(&r), true), None);
        let d = drift(&model(10, 4), &ran(Outcome::Pass, 12, 4), Some(&r), true).unwrap();
        assert!(d.contains("12 distinct states (manifest: 10)") && d.contains("model/src/x"), "{d}");
        let d = drift(&model(10, 4), &ran(Outcome::Pass, 10, 5), None, true).unwrap();
        assert!(d.contains("depth 5 (manifest: 4)") && d.contains("--record"), "{d}");
        // On several workers the depth is not exact: not compared, but the
        // distinct states still are.
        assert_eq!(drift(&model(10, 4), &ran(Outcome::Pass, 10, 5), None, false), None);
        assert!(drift(&model(10, 4), &ran(Outcome::Pass, 11, 5), None, false).is_some());
        // A violation's figures are a reference model's only on one
        // worker; without a reference they are not compared.
        let v = || Outcome::Violation("Inv".into());
        assert!(drift(&model(10, 4), &ran(v(), 3, 2), Some(&r), true).is_some_and(|d| d.contains("3 distinct states")));
        assert_eq!(drift(&model(3, 2), &ran(v(), 3, 2), Some(&r), true), None);
        assert_eq!(drift(&model(10, 4), &ran(v(), 3, 2), Some(&r), false), None);
        assert_eq!(drift(&model(10, 4), &ran(v(), 3, 2), None, true), None);
    }
}
