//! `ringlab mutants`: put each known bug back and see which checks catch it.
//!
//! A Rust check kills a mutant only if it passes without the mutant (its
//! baseline) and fails with it; a build error is an error, never a kill.
//! Every check the manifest names must kill its mutant, so a check that
//! stops catching a bug is reported as a failure, not silently dropped.
//!
//! Every mutant is compiled in behind ringlab-mutant's switch (the
//! packages' `mutants` feature): a test target is built once, run once
//! without RINGLAB_MUTANT as its baseline and once per mutant with it.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;


use ringlab_prove as prove;
pub use ringlab_results::mutants::{CheckRun, Kill, MutantResult};
use ringlab_tlc::check::ModelResult;
use ringlab_tlc::manifest::{Killer, Manifest, Mutant, CHAIN_PACKAGES};

/// Runs cargo test targets of the simulator, with and without a mutant.
pub struct CargoRunner<'a> {
    root: &'a Path,
    baselines: HashMap<(bool, &'static str, String), Result<(), String>>,
    pub verbose: bool,
}

impl<'a> CargoRunner<'a> {
    pub fn new(root: &'a Path) -> Self {
        CargoRunner { root, baselines: HashMap::new(), verbose: false }
    }

    fn command(&self, loom: bool, package: &str, feature: Option<&str>, test: &str) -> Command {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut c = Command::new(cargo);
        c.current_dir(self.root)
            .args(["test", "-p", package, "--features", "mutants", "--test", test]);
        // loom explores thousands of interleavings: optimise it. The others
        // keep the test profile, whose overflow checks catch wrapping-add.
        if loom {
            c.arg("--release");
        }
        match feature {
            Some(f) => c.env(ringlab_mutant::ENV, f),
            None => c.env_remove(ringlab_mutant::ENV),
        };
        if loom {
            c.env("RUSTFLAGS", "--cfg loom")
                .env("CARGO_TARGET_DIR", self.root.join("target/loom"));
        } else {
            c.env_remove("RUSTFLAGS");
        }
        c
    }

    /// Ok(true) failed as a test, Ok(false) passed, Err a build or run error.
    fn run(&self, loom: bool, package: &str, feature: Option<&str>, test: &str) -> Result<(bool, String), String> {
        let mut cmd = self.command(loom, package, feature, test);
        let shown = format!(
            "{}{}cargo test{} -p {package} --features mutants --test {test}",
            feature.map(|f| format!("{}={f} ", ringlab_mutant::ENV)).unwrap_or_default(),
            if loom { "RUSTFLAGS='--cfg loom' " } else { "" },
            if loom { " --release" } else { "" },
        );
        if self.verbose {
            eprintln!("    $ {shown}");
        }
        let out = cmd.output().map_err(|e| format!("{shown}: cannot run cargo: {e}"))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if out.status.success() {
            return Ok((false, String::new()));
        }
        let built = text.contains("Running ") || text.contains("running ");
        if !built || text.contains("could not compile") {
            let tail: Vec<_> = text.lines().filter(|l| l.starts_with("error")).take(5).collect();
            return Err(format!("{shown}: did not build: {}", tail.join(" | ")));
        }
        Ok((true, failure_reason(&text)))
    }

    fn baseline(&mut self, loom: bool, package: &'static str, test: &str) -> Result<(), String> {
        let key = (loom, package, test.to_string());
        if let Some(r) = self.baselines.get(&key) {
            return r.clone();
        }
        let r = match self.run(loom, package, None, test) {
            Ok((false, _)) => Ok(()),
            Ok((true, why)) => Err(format!("fails without any mutant: {why}")),
            Err(e) => Err(e),
        };
        self.baselines.insert(key, r.clone());
        r
    }

    /// A check of the simulator (`ringlab-sim`) or, for the differential
    /// campaign, of the live-kernel harness (`ringlab-kernel`).
    pub fn kill(&mut self, loom: bool, feature: &str, test: &str) -> (Kill, String) {
        self.kill_in(loom, "ringlab-sim", feature, test)
    }

    pub fn kill_in(&mut self, loom: bool, package: &'static str, feature: &str, test: &str) -> (Kill, String) {
        if let Err(e) = self.baseline(loom, package, test) {
            return (Kill::Error, format!("baseline: {e}"));
        }
        match self.run(loom, package, Some(feature), test) {
            Ok((true, why)) => (Kill::Killed, why),
            Ok((false, _)) => (Kill::Survived, "all tests passed with the mutant in".into()),
            Err(e) => (Kill::Error, e),
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

pub fn run_mutant(
    mu: &Mutant,
    models: &HashMap<String, ModelResult>,
    cargo: &mut CargoRunner,
    progress: bool,
) -> MutantResult {
    let mut checks = Vec::new();
    for k in &mu.killers {
        let t = Instant::now();
        let (result, detail) = match k {
            Killer::Tlc { model } => match models.get(model) {
                Some(r) if r.ok() => (Kill::Killed, format!("TLC: {}", r.outcome)),
                Some(r) if r.error.is_some() => (Kill::Error, format!("TLC did not finish: {}", r.outcome)),
                Some(r) => (Kill::Survived, format!("TLC: {} (expected {})", r.outcome, r.expected)),
                None => (Kill::Error, format!("model {model} was not run")),
            },
            Killer::Proof { proof } => match prove::by_name(proof) {
                None => (Kill::Error, format!("no proof named {proof}")),
                Some(p) => {
                    let r = prove::run(&p);
                    match &r.outcome {
                        prove::Outcome::Refuted { counterexample } => (
                            Kill::Killed,
                            format!(
                                "refuted: {}",
                                counterexample
                                    .iter()
                                    .map(|(n, v)| format!("{n}={v:#x}"))
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            ),
                        ),
                        prove::Outcome::Proved => (Kill::Survived, "proved".into()),
                        prove::Outcome::Unknown(why) => (Kill::Error, format!("z3: unknown ({why})")),
                    }
                }
            },
            Killer::Proptest { feature, test } => cargo.kill(false, feature, test),
            // The trace checks run TLC: they live with it, in ringlab-tlc.
            Killer::Trace { feature, test } => cargo.kill_in(false, "ringlab-tlc", feature, test),
            Killer::Loom { feature, test } => cargo.kill(true, feature, test),
            Killer::Threads { feature, test } => cargo.kill(false, feature, test),
            Killer::Diff { feature, test } => cargo.kill_in(false, "ringlab-kernel", feature, test),
            // The chain's checks take the wrong model from ringlab-model.
            Killer::Chain { feature, test, package } => match CHAIN_PACKAGES.iter().find(|p| **p == package.as_str()) {
                Some(p) => cargo.kill_in(false, p, feature, test),
                None => (Kill::Error, format!("a chain check cannot run in {package}")),
            },
        };
        let run = CheckRun { check: k.label(), result, detail, seconds: t.elapsed().as_secs_f64() };
        if progress {
            eprintln!("  {:<22} {:<40} {:?} ({:.1}s)", mu.id, run.check, run.result, run.seconds);
        }
        checks.push(run);
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
    for r in results {
        let killers = if r.killed_by.is_empty() { "NOTHING".to_string() } else { r.killed_by.join(", ") };
        t.add_row(vec![r.id.clone(), r.kind.clone(), if r.ok() { "ok" } else { "FAIL" }.into(), killers]);
        for c in r.checks.iter().filter(|c| c.result != Kill::Killed) {
            notes.push(format!("{}: {:?}: {} — {}", r.id, c.result, c.check, c.detail));
        }
    }
    println!("{}", crate::table::render(&t));
    for n in notes {
        println!("  {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
