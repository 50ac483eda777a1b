//! `ringlab mutants`: put each known bug back and see which checks catch it.
//!
//! A Rust check kills a mutant only if it passes without the mutant (its
//! baseline) and fails with it; a build error is an error, never a kill.
//! Every check the manifest names must kill its mutant, so a check that
//! stops catching a bug is reported as a failure, not silently dropped.
//!
//! Every mutant is compiled in behind ringlab-mutant's switch (the
//! packages' `mutants` feature): a test target is built once, run once
//! without RINGLAB_MUTANT as its baseline and once per mutant with it,
//! several runs at once (crate::test_bins).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use ringlab_prove as prove;
pub use ringlab_results::mutants::{CheckRun, Kill, MutantResult};
use ringlab_tlc::check::ModelResult;
use ringlab_tlc::manifest::{Killer, Manifest, Mutant, CHAIN_PACKAGES};
use ringlab_tlc::parallel::in_parallel;

use crate::test_bins::{self, Ran, Target};

/// The test target a Rust killer runs and the mutant it switches on;
/// None for TLC models and proofs.
fn cargo_check(k: &Killer) -> Option<Result<(Target, &str), String>> {
    let t = |loom, package: &str, test: &str| Target { loom, package: package.into(), test: test.into() };
    Some(Ok(match k {
        Killer::Tlc { .. } | Killer::Proof { .. } => return None,
        Killer::Proptest { feature, test } | Killer::Threads { feature, test } => (t(false, "ringlab-sim", test), feature.as_str()),
        Killer::Loom { feature, test } => (t(true, "ringlab-sim", test), feature.as_str()),
        // The trace checks run TLC: they live with it, in ringlab-tlc.
        Killer::Trace { feature, test } => (t(false, "ringlab-tlc", test), feature.as_str()),
        Killer::Diff { feature, test } => (t(false, "ringlab-kernel", test), feature.as_str()),
        // The chain's checks take the wrong model from ringlab-model.
        Killer::Chain { feature, test, package } => match CHAIN_PACKAGES.iter().find(|p| **p == package.as_str()) {
            Some(p) => (t(false, p, test), feature.as_str()),
            None => return Some(Err(format!("a chain check cannot run in {package}"))),
        },
    }))
}

/// Cost rank of a Rust killer's kind, cheapest first: the order
/// `--first-kill` tries them in (loom and the proptests take seconds;
/// the chain and trace checks start TLC for every run they validate).
fn cost_rank(k: &Killer) -> u8 {
    match k {
        Killer::Loom { .. } => 0,
        Killer::Diff { .. } => 1,
        Killer::Proptest { .. } => 2,
        Killer::Threads { .. } => 3,
        Killer::Chain { .. } => 4,
        Killer::Trace { .. } => 5,
        Killer::Tlc { .. } | Killer::Proof { .. } => 6,
    }
}

/// One run of a target with a mutant in, and the check it stands for.
type Run = (Target, String, String);

/// What the runs did, by (target, mutant): the result, its detail and
/// seconds.
type Outcomes = HashMap<(Target, String), (Kill, String, f64)>;

/// The (target, mutant) a Rust killer runs; None for TLC models, proofs
/// and checks that cannot run.
fn run_key(k: &Killer) -> Option<(Target, String)> {
    cargo_check(k).and_then(Result::ok).map(|(t, f)| (t, f.to_string()))
}

/// The Rust runs of `killers` (each (target, mutant) once), in order.
fn runs_of<'a>(killers: impl IntoIterator<Item = &'a Killer>, into: &mut Vec<Run>) {
    for k in killers {
        if let Some((t, f)) = run_key(k) {
            if !into.iter().any(|(rt, rf, _)| *rt == t && *rf == f) {
                into.push((t, f, k.label()));
            }
        }
    }
}

/// With `--first-kill`, after each mutant's cheapest Rust check ran
/// (`ran`): every other Rust check of the mutants it did not kill, so the
/// report says all there is to say about them; none that ran already.
fn rest_runs(chosen: &[&Mutant], ran: &Outcomes) -> Vec<Run> {
    let mut rest: Vec<Run> = Vec::new();
    for m in chosen {
        let ks = rust_killers(m);
        let killed = ks.first().and_then(|k| run_key(k)).and_then(|key| ran.get(&key)).is_some_and(|(kill, _, _)| *kill == Kill::Killed);
        if !killed {
            runs_of(ks.into_iter().skip(1), &mut rest);
        }
    }
    rest.retain(|(t, f, _)| !ran.contains_key(&(t.clone(), f.clone())));
    rest
}

/// A mutant's Rust killers, cheapest first.
fn rust_killers(m: &Mutant) -> Vec<&Killer> {
    let mut ks: Vec<&Killer> = m.killers.iter().filter(|k| cargo_check(k).is_some()).collect();
    ks.sort_by_key(|k| cost_rank(k));
    ks
}

/// What each Rust killer did against its mutant, by (target, mutant);
/// with `first_kill`, the checks not run because a cheaper one killed
/// their mutant are absent.
pub struct RustChecks {
    ran: Outcomes,
    first_kill: bool,
}

impl RustChecks {
    /// Builds every target the chosen mutants' killers name and runs each
    /// without a mutant (these are the tests themselves: make test runs
    /// them nowhere else), then each killer with its mutant, `jobs` at
    /// once. With `first_kill`, a mutant's cheapest Rust killer runs
    /// first and the others only if it did not kill.
    pub fn run(root: &Path, chosen: &[&Mutant], jobs: usize, first_kill: bool, progress: bool) -> RustChecks {
        let mut all: Vec<Run> = Vec::new();
        runs_of(chosen.iter().flat_map(|m| &m.killers), &mut all);
        let mut targets: Vec<Target> = all.iter().map(|(t, _, _)| t.clone()).collect();
        targets.sort();
        targets.dedup();
        let built = test_bins::build(root, &targets, progress);
        let baselines: Vec<Result<(), String>> = in_parallel(&targets, jobs, |t| {
            let r = built[t].as_ref().map_err(Clone::clone).and_then(|b| match test_bins::run(b, None)? {
                Ran::Passed => Ok(()),
                Ran::Failed(text) => Err(format!("{}: fails without any mutant: {}", t.shown(None), failure_reason(&text))),
            });
            if let (Err(e), true) = (&r, progress) {
                eprintln!("  baseline {e}");
            }
            r
        });
        let baseline: HashMap<&Target, &Result<(), String>> = targets.iter().zip(&baselines).collect();
        let one = |(t, f, label): &Run| {
            let start = Instant::now();
            let (kill, detail) = match (baseline[t], &built[t]) {
                (Err(e), _) => (Kill::Error, format!("baseline: {e}")),
                (Ok(()), Err(e)) => (Kill::Error, e.clone()),
                (Ok(()), Ok(b)) => match test_bins::run(b, Some(f)) {
                    Ok(Ran::Failed(text)) => (Kill::Killed, failure_reason(&text)),
                    Ok(Ran::Passed) => (Kill::Survived, "all tests passed with the mutant in".into()),
                    Err(e) => (Kill::Error, format!("{}: {e}", t.shown(Some(f)))),
                },
            };
            let secs = start.elapsed().as_secs_f64();
            if progress {
                eprintln!("  {:<34} {:<40} {kill:?} ({secs:.1}s)", f.strip_prefix("mutant-").unwrap_or(f), label);
            }
            (kill, detail, secs)
        };
        let mut ran = Outcomes::new();
        let first: Vec<Run> = if first_kill {
            let mut v = Vec::new();
            runs_of(chosen.iter().filter_map(|m| rust_killers(m).first().copied()), &mut v);
            v
        } else {
            all
        };
        let results = in_parallel(&first, jobs, one);
        ran.extend(first.into_iter().map(|(t, f, _)| (t, f)).zip(results));
        if first_kill {
            let rest = rest_runs(chosen, &ran);
            let results = in_parallel(&rest, jobs, one);
            ran.extend(rest.into_iter().map(|(t, f, _)| (t, f)).zip(results));
        }
        RustChecks { ran, first_kill }
    }

    fn get(&self, k: &Killer) -> (Kill, String, Option<f64>) {
        match cargo_check(k) {
            None => (Kill::Error, format!("{} is not a Rust check", k.label()), None),
            Some(Err(e)) => (Kill::Error, e, None),
            Some(Ok((t, f))) => match self.ran.get(&(t, f.to_string())) {
                Some((kill, detail, secs)) => (kill.clone(), detail.clone(), Some(*secs)),
                None if self.first_kill => {
                    (Kill::Skipped, "not run: a cheaper check killed the mutant (--first-kill)".into(), Some(0.0))
                }
                None => (Kill::Error, format!("{} was not run", k.label()), None),
            },
        }
    }
}

/// Every test target of the workspace (`cargo metadata`), by name.
pub fn test_targets(root: &Path) -> Result<Vec<String>, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cargo metadata: cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: not JSON: {e}"))?;
    let mut names: Vec<String> = meta["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?
        .iter()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "test")))
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect();
    names.sort();
    Ok(names)
}

/// The targets of `all` that no mutant's killer runs: the loom ones
/// (named loom*) when `loom`, else the others.
pub fn other_tests<'a>(man: &Manifest, all: &'a [String], loom: bool) -> Vec<&'a str> {
    let killers: Vec<&str> = man
        .mutants
        .iter()
        .flat_map(|m| &m.killers)
        .filter_map(Killer::test_target)
        .collect();
    all.iter()
        .map(String::as_str)
        .filter(|t| t.starts_with("loom") == loom && !killers.contains(t))
        .collect()
}

/// The first panic or failed assertion in cargo test output.
fn failure_reason(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.contains("panicked at") {
            let msg = lines.get(i + 1).map(|m| m.trim()).unwrap_or("");
            let msg: String = msg.chars().take(160).collect();
            return format!("{} {}", l.trim(), msg).trim().to_string();
        }
    }
    lines
        .iter()
        .find(|l| l.contains("test result: FAILED") || l.contains("FAILED"))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| "tests failed".into())
}

pub fn run_mutant(mu: &Mutant, models: &HashMap<String, ModelResult>, rust: &RustChecks, progress: bool) -> MutantResult {
    let mut checks = Vec::new();
    for k in &mu.killers {
        let t = Instant::now();
        let (result, detail, secs) = match k {
            Killer::Tlc { model } => {
                let (kill, detail) = match models.get(model) {
                    Some(r) if r.ok() => (Kill::Killed, format!("TLC: {}", r.outcome)),
                    Some(r) if r.error.is_some() => (Kill::Error, format!("TLC did not finish: {}", r.outcome)),
                    Some(r) => (Kill::Survived, format!("TLC: {} (expected {})", r.outcome, r.expected)),
                    None => (Kill::Error, format!("model {model} was not run")),
                };
                (kill, detail, None)
            }
            Killer::Proof { proof } => {
                let (kill, detail) = proof_kill(proof);
                (kill, detail, None)
            }
            _ => rust.get(k),
        };
        let run = CheckRun { check: k.label(), result, detail, seconds: secs.unwrap_or_else(|| t.elapsed().as_secs_f64()) };
        // The Rust checks said so as each ended.
        if progress && secs.is_none() {
            eprintln!("  {:<34} {:<40} {:?} ({:.1}s)", mu.id, run.check, run.result, run.seconds);
        }
        checks.push(run);
    }
    // A skipped check stands for a Rust check that killed the mutant.
    let rust_kill = mu.killers.iter().zip(&checks).any(|(k, c)| cargo_check(k).is_some() && c.result == Kill::Killed);
    for c in checks.iter_mut().filter(|c| c.result == Kill::Skipped && !rust_kill) {
        c.result = Kill::Error;
        c.detail = "skipped, yet no other Rust check killed the mutant".into();
    }
    MutantResult {
        id: mu.id.clone(),
        kind: mu.kind.clone(),
        bug: mu.bug.clone(),
        year: mu.year,
        what: mu.what.clone(),
        link: mu.link.clone(),
        killed_by: checks
            .iter()
            .filter(|c| c.result == Kill::Killed)
            .map(|c| c.check.clone())
            .collect(),
        checks,
    }
}

/// A proof kills its mutant when z3 refutes it.
fn proof_kill(proof: &str) -> (Kill, String) {
    match prove::by_name(proof) {
        None => (Kill::Error, format!("no proof named {proof}")),
        Some(p) => match &prove::run(&p).outcome {
            prove::Outcome::Refuted { counterexample } => (
                Kill::Killed,
                format!(
                    "refuted: {}",
                    counterexample.iter().map(|(n, v)| format!("{n}={v:#x}")).collect::<Vec<_>>().join(" ")
                ),
            ),
            prove::Outcome::Proved => (Kill::Survived, "proved".into()),
            prove::Outcome::Unknown(why) => (Kill::Error, format!("z3: unknown ({why})")),
        },
    }
}

pub fn select<'a>(man: &'a Manifest, ids: &[String]) -> Result<Vec<&'a Mutant>, String> {
    if ids.is_empty() {
        return Ok(man.mutants.iter().collect());
    }
    ids.iter()
        .map(|id| {
            man.mutants.iter().find(|m| &m.id == id).ok_or_else(|| {
                let known: Vec<_> = man.mutants.iter().map(|m| m.id.as_str()).collect();
                format!("no mutant `{id}`; known: {}", known.join(", "))
            })
        })
        .collect()
}

pub fn print_table(results: &[MutantResult]) {
    let mut t = crate::table::new(&["mutant", "kind", "", "killed by"], &[]);
    let mut notes = Vec::new();
    let mut skipped = 0;
    for r in results {
        let killers = if r.killed_by.is_empty() { "NOTHING".to_string() } else { r.killed_by.join(", ") };
        t.add_row(vec![r.id.clone(), r.kind.clone(), if r.ok() { "ok" } else { "FAIL" }.into(), killers]);
        for c in &r.checks {
            match c.result {
                Kill::Killed => {}
                Kill::Skipped => skipped += 1,
                _ => notes.push(format!("{}: {:?}: {} — {}", r.id, c.result, c.check, c.detail)),
            }
        }
    }
    println!("{}", crate::table::render(&t));
    if skipped > 0 {
        println!("  {skipped} Rust checks not run: a cheaper one had killed their mutant (--first-kill)");
    }
    for n in notes {
        println!("  {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_kill_tries_the_cheapest_rust_check_first() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
        for m in &man.mutants {
            let ks = rust_killers(m);
            assert!(ks.windows(2).all(|w| cost_rank(w[0]) <= cost_rank(w[1])), "{}", m.id);
            assert!(ks.iter().all(|k| !matches!(k, Killer::Tlc { .. } | Killer::Proof { .. })), "{}", m.id);
        }
        // napi-defer-no-kick: its proptests before its chain and trace checks
        let m = man.mutants.iter().find(|m| m.id == "napi-defer-no-kick").unwrap();
        let labels: Vec<String> = rust_killers(m).iter().map(|k| k.label()).collect();
        assert!(labels[0].starts_with("proptest:") && labels.last().unwrap().starts_with("trace:"), "{labels:?}");
    }

    #[test]
    fn first_kill_runs_the_rest_only_where_the_cheapest_survived() {
        let man = Manifest::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/manifest.json")).unwrap();
        let m = man.mutants.iter().find(|m| m.id == "napi-defer-no-kick").unwrap();
        let mut others = Vec::new();
        runs_of(rust_killers(m).into_iter().skip(1), &mut others);
        assert!(!others.is_empty());
        let first = run_key(rust_killers(m)[0]).unwrap();
        let after = |kill: Kill| rest_runs(&[m], &Outcomes::from([(first.clone(), (kill, String::new(), 0.0))]));
        assert!(after(Kill::Killed).is_empty());
        assert_eq!(after(Kill::Survived), others);
        assert_eq!(after(Kill::Error), others);
    }

    #[test]
    fn a_skipped_check_needs_a_rust_kill_beside_it() {
        let man = Manifest::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/manifest.json")).unwrap();
        let m = man.mutants.iter().find(|m| m.id == "napi-defer-no-kick").unwrap();
        // No Rust check ran: every one is skipped, and none may stand.
        let none = RustChecks { ran: HashMap::new(), first_kill: true };
        let mut models = HashMap::new();
        for k in &m.killers {
            if let Killer::Tlc { model } = k {
                models.insert(model.clone(), killed_model(model));
            }
        }
        let r = run_mutant(m, &models, &none, false);
        assert!(!r.ok(), "{:?}", r.checks);
        assert!(r.checks.iter().any(|c| c.result == Kill::Error && c.detail.contains("no other Rust check")));
    }

    /// A TLC result for `name` that killed its mutant.
    fn killed_model(name: &str) -> ModelResult {
        serde_json::from_value(serde_json::json!({
            "name": name, "spec": "S.tla", "config": "c.cfg", "expected": "violation:X", "outcome": "violation:X", "seconds": 1.0,
        }))
        .unwrap()
    }

    #[test]
    fn the_other_tests_are_those_no_killer_runs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
        let all = test_targets(&root).unwrap();
        assert!(all.len() > 40, "{all:?}");
        let plain = other_tests(&man, &all, false);
        let loom = other_tests(&man, &all, true);
        // napi_trace and loom kill mutants; xskrx_bfs kills none
        assert!(plain.contains(&"xskrx_bfs") && !plain.contains(&"napi_trace"), "{plain:?}");
        assert!(!loom.contains(&"loom") && loom.iter().all(|t| t.starts_with("loom")), "{loom:?}");
        let killed: usize = all.iter().filter(|t| !plain.contains(&t.as_str()) && !loom.contains(&t.as_str())).count();
        assert!(killed >= 30, "{killed} targets run by killers");
    }
}
