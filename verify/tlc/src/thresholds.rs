//! specs/thresholds.json: every constant that bounds the kernel's work
//! (budgets, batch sizes, per-call limits, ring sizes where they cap
//! work), each with the models and tests that reach and cross it.
//!
//! A TLC witness is a model of the manifest and a predicate of the spec's
//! Reach module (specs/mc/<Spec>Reach.tla): a state predicate (`reach`)
//! or a step predicate (`step`) that holds only where the threshold is
//! reached and crossed. TLC runs the model with its negation as the only
//! invariant (`[][~step]_vars` as the only property) and must find a
//! violation: the witness. None means the model never gets there, and the
//! threshold fails. A test witness names a test that asserts it reaches
//! the threshold (run by `cargo test`); here it must exist. Where the
//! kernel's value is a constant in model/ or sim/, `rust` names it and
//! the value written there must be the kernel's.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::manifest::Manifest;
use crate::{Outcome, RunOpts, Tlc};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Registry {
    pub about: String,
    pub thresholds: Vec<Threshold>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Threshold {
    pub name: String,
    /// What it bounds, in a line.
    pub what: String,
    pub kernel: KernelValue,
    /// The spec constant that stands for it, if a spec has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant: Option<String>,
    /// Why a model's value smaller than the kernel's is enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaled: Option<String>,
    /// The kernel's value written in model/ or sim/.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rust: Vec<RustConst>,
    pub witnesses: Vec<Witness>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KernelValue {
    /// The macro or field, e.g. `TX_BATCH_SIZE`.
    pub name: String,
    /// None where the application chooses it (a ring's size).
    pub value: Option<u64>,
    /// File and line in linux 6.12.117 (or the repository's series).
    pub source: String,
}

/// `name` in `path` (from the repository root) is written with `value`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RustConst {
    pub path: String,
    pub name: String,
    pub value: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "check", rename_all = "lowercase")]
pub enum Witness {
    /// A model of the manifest and a predicate of its spec's Reach module.
    Tlc {
        model: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reach: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<String>,
    },
    /// A test function `name` in `path` that asserts the threshold is
    /// crossed (`counter`: the string it counts under, if any).
    Test {
        path: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        counter: Option<String>,
    },
}

impl Registry {
    pub fn load(path: &Path) -> Result<Registry, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Rejects a registry a check could pass vacuously.
    pub fn validate(&self, man: &Manifest) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for t in &self.thresholds {
            if !seen.insert(&t.name) {
                return Err(format!("threshold `{}` is listed twice", t.name));
            }
            if t.witnesses.is_empty() {
                return Err(format!("threshold `{}` names nothing that crosses it", t.name));
            }
            if t.kernel.value.is_some_and(|k| t.rust.iter().any(|r| r.value != k)) {
                return Err(format!("threshold `{}`: a rust constant differs from the kernel's value", t.name));
            }
            for w in &t.witnesses {
                if let Witness::Tlc { model, reach, step } = w {
                    let Some(m) = man.model(model) else {
                        return Err(format!("threshold `{}`: no model `{model}`", t.name));
                    };
                    if m.tier != "ci" {
                        return Err(format!("threshold `{}`: model `{model}` is not in the ci tier", t.name));
                    }
                    if reach.is_some() == step.is_some() {
                        return Err(format!("threshold `{}`: a tlc witness names one `reach` or one `step`", t.name));
                    }
                }
            }
        }
        Ok(())
    }
}

/// One witness's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WitnessResult {
    /// `model predicate` or `test file::name`.
    pub by: String,
    /// `crossed (N states)`, `not reached`, `in cargo test`, or what went
    /// wrong.
    pub verdict: String,
    pub ok: bool,
    #[serde(default)]
    pub seconds: f64,
}

/// One threshold's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThresholdResult {
    pub name: String,
    /// e.g. `TX_BATCH_SIZE 32`.
    pub kernel: String,
    pub source: String,
    /// The models' value, e.g. `Budget = 2`, or the rust constants'.
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaled: Option<String>,
    pub witnesses: Vec<WitnessResult>,
    /// Every witness crossed it (or exists, for tests) and the rust
    /// constants hold the kernel's value.
    pub ok: bool,
    /// Why it failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl ThresholdResult {
    /// The witnesses in a table cell, each TLC one with its length.
    pub fn crossed_by(&self) -> String {
        let one = |w: &WitnessResult| match w.verdict.strip_prefix("crossed ") {
            Some(len) if w.ok => format!("{} {len}", w.by),
            _ => w.by.clone(),
        };
        self.witnesses.iter().map(one).collect::<Vec<_>>().join("; ")
    }

    pub fn verdict(&self) -> String {
        if self.ok {
            return "crossed".into();
        }
        self.problem.clone().unwrap_or_else(|| {
            let bad: Vec<String> =
                self.witnesses.iter().filter(|w| !w.ok).map(|w| format!("{}: {}", w.by, w.verdict)).collect();
            bad.join("; ")
        })
    }
}

/// The Reach module of a spec file: `XskRing.tla` -> `XskRingReach`.
pub fn reach_module(spec: &str) -> String {
    format!("{}Reach", spec.trim_end_matches(".tla"))
}

/// `cfg` with its invariants, properties and deadlock setting left out and
/// `NotReach` checked instead (an invariant, or a property for a step).
pub fn witness_cfg(cfg: &str, step: bool) -> String {
    const DROP: [&str; 5] = ["INVARIANT", "INVARIANTS", "PROPERTY", "PROPERTIES", "CHECK_DEADLOCK"];
    let mut out = String::new();
    let mut dropping = false;
    for line in cfg.lines() {
        let word = line.split_whitespace().next().unwrap_or("");
        if word.len() > 2 && word.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            dropping = DROP.contains(&word);
        }
        if !dropping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(if step { "PROPERTY NotReach\n" } else { "INVARIANT NotReach\n" });
    out.push_str("CHECK_DEADLOCK FALSE\n");
    out
}

/// The value `name` has in `cfg`'s CONSTANTS, as written (`Budget = 2`).
pub fn cfg_constant(cfg: &str, name: &str) -> Option<String> {
    cfg.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == name && !v.starts_with('=')).then(|| format!("{name} = {}", v.trim()))
    })
}

/// TLC on the model with config `cfg` (spec file `spec`), looking for a
/// state (or step) where `pred` of the spec's Reach module holds.
pub fn run_witness(
    tlc: &Tlc,
    specs: &Path,
    spec: &str,
    cfg: &Path,
    pred: &str,
    step: bool,
    work: &Path,
) -> WitnessResult {
    let start = Instant::now();
    let fail = |verdict: String| WitnessResult {
        by: String::new(),
        verdict,
        ok: false,
        seconds: start.elapsed().as_secs_f64(),
    };
    let _ = std::fs::remove_dir_all(work);
    if let Err(e) = std::fs::create_dir_all(work) {
        return fail(format!("cannot create {}: {e}", work.display()));
    }
    let text = match std::fs::read_to_string(cfg) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {}: {e}", cfg.display())),
    };
    let not = if step { format!("[][~{pred}]_vars") } else { format!("~{pred}") };
    let module = format!("---- MODULE RinglabWitness ----\nEXTENDS {}\nNotReach == {not}\n====\n", reach_module(spec));
    let (tla, wcfg) = (work.join("RinglabWitness.tla"), work.join("RinglabWitness.cfg"));
    if let Err(e) = std::fs::write(&tla, module).and_then(|_| std::fs::write(&wcfg, witness_cfg(&text, step))) {
        return fail(format!("cannot write the witness module: {e}"));
    }
    let library = PathBuf::from(format!("{}:{}", specs.display(), specs.join("mc").display()));
    let opts = RunOpts { workers: 1, metadir: work.join("meta"), library: Some(&library), extra: Vec::new() };
    let res = crate::run(tlc, &tla, &wcfg, &[], &opts, &mut |_| {});
    let _ = std::fs::remove_dir_all(work);
    let seconds = start.elapsed().as_secs_f64();
    match res.map(|r| (r.outcome, r.trace.len())) {
        Ok((Outcome::Violation(p), n)) if p == "NotReach" => {
            WitnessResult { by: String::new(), verdict: format!("crossed ({n} states)"), ok: true, seconds }
        }
        Ok((Outcome::Pass, _)) => {
            WitnessResult { by: String::new(), verdict: "not reached".into(), ok: false, seconds }
        }
        Ok((Outcome::Error(e), _)) => fail(format!("TLC did not finish: {}", e.lines().next().unwrap_or(""))),
        Ok((o, _)) => fail(format!("TLC ended with {}", o.label())),
        Err(e) => fail(e),
    }
}

/// Does `path` (from `root`) define `fn name` (and mention `counter`)?
fn test_exists(root: &Path, path: &str, name: &str, counter: Option<&str>) -> Result<(), String> {
    let text = std::fs::read_to_string(root.join(path)).map_err(|e| format!("cannot read {path}: {e}"))?;
    if !text.contains(&format!("fn {name}(")) {
        return Err(format!("{path} has no fn {name}"));
    }
    if let Some(c) = counter {
        if !text.contains(&format!("\"{c}\"")) {
            return Err(format!("{path} does not count \"{c}\""));
        }
    }
    Ok(())
}

/// Is `c.name` written with `c.value` in `c.path` (`NAME: T = v` or
/// `name: v`)?
fn rust_const_holds(root: &Path, c: &RustConst) -> Result<(), String> {
    let text = std::fs::read_to_string(root.join(&c.path)).map_err(|e| format!("cannot read {}: {e}", c.path))?;
    let value = c.value.to_string();
    let found = text.lines().any(|l| {
        let Some((_, after)) = l.split_once(&format!("{}:", c.name)) else { return false };
        let v = after.rsplit('=').next().unwrap_or(after);
        v.trim().trim_end_matches([',', ';']).trim() == value
    });
    if found {
        Ok(())
    } else {
        Err(format!("{} does not set {} to {}", c.path, c.name, c.value))
    }
}

/// Checks every threshold of `reg`: the TLC witnesses one after another,
/// the tests and rust constants by reading the files.
pub fn check(tlc: &Tlc, root: &Path, man: &Manifest, reg: &Registry, progress: bool) -> Vec<ThresholdResult> {
    let specs = root.join("specs");
    crate::parallel::in_parallel(&reg.thresholds, crate::parallel::jobs(0), |t| {
        let mut model_value = Vec::new();
        let mut problem = None;
        let witnesses: Vec<WitnessResult> = t
            .witnesses
            .iter()
            .enumerate()
            .map(|(i, w)| match w {
                Witness::Tlc { model, reach, step } => {
                    let pred = reach.as_deref().or(step.as_deref()).unwrap_or_default();
                    let by = format!("{model} {pred}");
                    let Some(m) = man.model(model) else {
                        return WitnessResult { by, verdict: "no such model".into(), ok: false, seconds: 0.0 };
                    };
                    let cfg = specs.join(&m.config);
                    if let (Some(c), Ok(text)) = (&t.constant, std::fs::read_to_string(&cfg)) {
                        if let Some(v) = cfg_constant(&text, c).filter(|v| !model_value.contains(v)) {
                            model_value.push(v);
                        }
                    }
                    if progress {
                        eprintln!("  {:<34} looking for {pred} in {model}", t.name);
                    }
                    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let work = std::env::temp_dir().join(format!(
                        "ringlab-witness-{}-{run}-{}-{i}",
                        std::process::id(),
                        t.name
                    ));
                    WitnessResult { by, ..run_witness(tlc, &specs, &m.spec, &cfg, pred, step.is_some(), &work) }
                }
                Witness::Test { path, name, counter } => {
                    let stem = Path::new(path).file_stem().map_or(path.as_str(), |s| s.to_str().unwrap_or(path));
                    let by = format!("test {stem}::{name}");
                    match test_exists(root, path, name, counter.as_deref()) {
                        Ok(()) => WitnessResult { by, verdict: "in cargo test".into(), ok: true, seconds: 0.0 },
                        Err(e) => WitnessResult { by, verdict: e, ok: false, seconds: 0.0 },
                    }
                }
            })
            .collect();
        for c in &t.rust {
            match rust_const_holds(root, c) {
                Ok(()) => model_value.push(format!("{} = {}", c.name, c.value)),
                Err(e) => problem = Some(e),
            }
        }
        let ok = problem.is_none() && !witnesses.is_empty() && witnesses.iter().all(|w| w.ok);
        ThresholdResult {
            name: t.name.clone(),
            kernel: match t.kernel.value {
                Some(v) => format!("{} {v}", t.kernel.name),
                None => t.kernel.name.clone(),
            },
            source: t.kernel.source.clone(),
            model: if model_value.is_empty() { "-".into() } else { model_value.join(", ") },
            scaled: t.scaled.clone(),
            witnesses,
            ok,
            problem,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: &str = "\\* A model.\nCONSTANTS\n    Budget = 2\n    Design = \"b\"\nSPECIFICATION Spec\nSYMMETRY Perms\nINVARIANTS\n    CqNoOverflow\n    BudgetPerCall\nPROPERTY Live\nCHECK_DEADLOCK FALSE\n";

    #[test]
    fn the_witness_config_checks_only_the_negation() {
        let w = witness_cfg(CFG, false);
        assert!(
            w.contains("Budget = 2\n") && w.contains("SYMMETRY Perms\n") && w.contains("SPECIFICATION Spec\n"),
            "{w}"
        );
        assert!(!w.contains("CqNoOverflow") && !w.contains("Live"), "{w}");
        assert!(w.ends_with("INVARIANT NotReach\nCHECK_DEADLOCK FALSE\n"), "{w}");
        assert!(witness_cfg(CFG, true).contains("PROPERTY NotReach\n"));
        assert_eq!(cfg_constant(CFG, "Budget").as_deref(), Some("Budget = 2"));
        assert_eq!(cfg_constant(CFG, "Design").as_deref(), Some("Design = \"b\""));
        assert_eq!(cfg_constant(CFG, "TxSize"), None);
        assert_eq!(reach_module("XskCopyTx.tla"), "XskCopyTxReach");
    }

    #[test]
    fn the_real_registry_is_valid() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
        let reg = Registry::load(&root.join("specs/thresholds.json")).unwrap();
        reg.validate(&man).unwrap();
        for t in &reg.thresholds {
            for c in &t.rust {
                rust_const_holds(&root, c).unwrap();
            }
            for w in &t.witnesses {
                if let Witness::Test { path, name, counter } = w {
                    test_exists(&root, path, name, counter.as_deref()).unwrap();
                }
            }
        }
    }

    #[test]
    fn a_rust_constant_is_read_in_either_spelling() {
        let dir = std::env::temp_dir().join(format!("ringlab-rust-const-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.rs"), "const PUT_BATCH: usize = 16;\n    tx_budget: 32,\n").unwrap();
        let c = |name: &str, value| RustConst { path: "a.rs".into(), name: name.into(), value };
        assert!(rust_const_holds(&dir, &c("PUT_BATCH", 16)).is_ok());
        assert!(rust_const_holds(&dir, &c("tx_budget", 32)).is_ok());
        assert!(rust_const_holds(&dir, &c("PUT_BATCH", 17)).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
