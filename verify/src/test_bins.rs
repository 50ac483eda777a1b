//! Test targets built once by cargo, then run directly, several at once.
//!
//! `cargo test` checks the whole workspace for freshness on every call
//! (about a second here) and holds the build directory's lock while the
//! tests run, so two calls never run side by side. The mutants phase runs
//! each killer's target once without a mutant and once per mutant: it asks
//! cargo for the executables (`--no-run`, JSON messages) and runs them
//! itself, as cargo would (from the package's folder, with its
//! CARGO_MANIFEST_DIR), `jobs` at a time.
//!
//! The plain targets are built for the whole workspace with
//! [`MUTANT_FEATURES`], as `make test` builds the other tests (`ringlab
//! mutants --other-tests`), so the two builds share every library and
//! only the killers' own test files are compiled here.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every package's `mutants` feature: the mutants compiled in behind
/// their run-time switch (off unless RINGLAB_MUTANT names one).
pub const MUTANT_FEATURES: &str =
    "ringlab-model/mutants,ringlab-ring/mutants,ringlab-sim/mutants,ringlab-kernel/mutants,ringlab-tlc/mutants";

/// One test target of one package, plain or built for loom.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    pub loom: bool,
    pub package: String,
    pub test: String,
}

impl Target {
    /// The cargo command that runs it, as a person would type it.
    pub fn shown(&self, mutant: Option<&str>) -> String {
        format!(
            "{}{}cargo test{} -p {} --features mutants --test {}",
            mutant.map(|f| format!("{}={f} ", ringlab_mutant::ENV)).unwrap_or_default(),
            if self.loom { "RUSTFLAGS='--cfg loom' " } else { "" },
            if self.loom { " --release" } else { "" },
            self.package,
            self.test
        )
    }
}

/// A built test executable and the folder cargo would run it from.
#[derive(Clone, Debug)]
pub struct Built {
    pub exe: PathBuf,
    pub dir: PathBuf,
}

/// How one run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ran {
    Passed,
    /// A test failed (or the binary died): its output.
    Failed(String),
}

fn cargo(root: &Path, loom: bool) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut c = Command::new(cargo);
    c.current_dir(root).env_remove(ringlab_mutant::ENV);
    // loom explores thousands of interleavings: optimise it. The others
    // keep the test profile, whose overflow checks catch wrapping-add.
    if loom {
        c.env("RUSTFLAGS", "--cfg loom").env("CARGO_TARGET_DIR", root.join("target/loom"));
    } else {
        c.env_remove("RUSTFLAGS");
    }
    c
}

/// Builds every target: the plain ones in one cargo call over the
/// workspace, the loom ones in one per package; a target that did not
/// build maps to why.
pub fn build(root: &Path, targets: &[Target], verbose: bool) -> HashMap<Target, Result<Built, String>> {
    let mut out = HashMap::new();
    for (loom_package, wanted) in cargo_calls(targets) {
        let mut c = cargo(root, loom_package.is_some());
        let shown = match loom_package {
            Some(package) => {
                c.args(["test", "-p", package, "--features", "mutants", "--release"]);
                format!("RUSTFLAGS='--cfg loom' cargo test -p {package} --features mutants --release --no-run")
            }
            None => {
                c.args(["test", "--workspace", "--features", MUTANT_FEATURES]);
                format!("cargo test --workspace --features {MUTANT_FEATURES} --no-run")
            }
        };
        c.args(["--no-run", "--message-format=json-render-diagnostics"]);
        for t in &wanted {
            c.args(["--test", &t.test]);
        }
        if verbose {
            eprintln!("    $ {shown} ({} targets)", wanted.len());
        }
        let found = match c.output() {
            Err(e) => Err(format!("{shown}: cannot run cargo: {e}")),
            Ok(o) => {
                let exes = executables(&String::from_utf8_lossy(&o.stdout));
                if o.status.success() {
                    Ok(exes)
                } else {
                    let err = String::from_utf8_lossy(&o.stderr);
                    let tail: Vec<_> = err.lines().filter(|l| l.starts_with("error")).take(5).collect();
                    Err(format!("{shown}: did not build: {}", tail.join(" | ")))
                }
            }
        };
        for t in &wanted {
            let r = match &found {
                Err(e) => Err(e.clone()),
                Ok(exes) => exes
                    .get(&t.test)
                    .cloned()
                    .ok_or_else(|| format!("{shown}: cargo built no test target `{}` in {}", t.test, t.package)),
            };
            out.insert((*t).clone(), r);
        }
    }
    out
}

/// The cargo calls that build `targets`: None for the one over the
/// workspace (every plain target), Some(package) for each package's
/// loom targets; the workspace call first.
fn cargo_calls(targets: &[Target]) -> BTreeMap<Option<&str>, Vec<&Target>> {
    let mut calls: BTreeMap<Option<&str>, Vec<&Target>> = BTreeMap::new();
    for t in targets {
        calls.entry(t.loom.then_some(t.package.as_str())).or_default().push(t);
    }
    calls
}

/// The test executables cargo's JSON messages name, by target name.
fn executables(json_lines: &str) -> HashMap<String, Built> {
    let mut exes = HashMap::new();
    for line in json_lines.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if v["reason"] != "compiler-artifact" || !v["profile"]["test"].as_bool().unwrap_or(false) {
            continue;
        }
        let is_test = v["target"]["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "test"));
        let (Some(name), Some(exe), Some(manifest)) =
            (v["target"]["name"].as_str(), v["executable"].as_str(), v["manifest_path"].as_str())
        else {
            continue;
        };
        if is_test {
            let dir = Path::new(manifest).parent().unwrap_or(Path::new(".")).to_path_buf();
            exes.insert(name.to_string(), Built { exe: PathBuf::from(exe), dir });
        }
    }
    exes
}

/// Runs a built target, with `mutant` switched on or none.
pub fn run(b: &Built, mutant: Option<&str>) -> Result<Ran, String> {
    let mut c = Command::new(&b.exe);
    c.current_dir(&b.dir).env("CARGO_MANIFEST_DIR", &b.dir);
    match mutant {
        Some(f) => c.env(ringlab_mutant::ENV, f),
        None => c.env_remove(ringlab_mutant::ENV),
    };
    let out = c.output().map_err(|e| format!("cannot run {}: {e}", b.exe.display()))?;
    if out.status.success() {
        return Ok(Ran::Passed);
    }
    Ok(Ran::Failed(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_targets_build_in_one_call_loom_ones_per_package() {
        let t = |loom, package: &str, test: &str| Target { loom, package: package.into(), test: test.into() };
        let targets = [t(true, "ringlab-sim", "loom_a"), t(false, "ringlab-sim", "prop"), t(false, "ringlab-tlc", "trace"), t(true, "ringlab-sim", "loom_b")];
        let calls: Vec<_> = cargo_calls(&targets).into_iter().collect();
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(calls[0], (None, vec![&targets[1], &targets[2]]));
        assert_eq!(calls[1], (Some("ringlab-sim"), vec![&targets[0], &targets[3]]));
    }

    /// The workspace call finds each built target by its name alone.
    #[test]
    fn no_two_packages_share_a_test_target_name() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let names = crate::mutants::test_targets(&root).unwrap();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(unique, names, "a test target name is used by two packages");
    }

    #[test]
    fn executables_are_read_from_test_artifacts_only() {
        let lines = [
            r#"{"reason":"compiler-artifact","manifest_path":"/w/sim/Cargo.toml","target":{"kind":["test"],"name":"loom"},"profile":{"test":true},"executable":"/w/target/debug/deps/loom-1"}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/sim/Cargo.toml","target":{"kind":["lib"],"name":"ringlab_sim"},"profile":{"test":false},"executable":null}"#,
            r#"{"reason":"compiler-message","message":{}}"#,
            "not json",
            r#"{"reason":"build-finished","success":true}"#,
        ]
        .join("\n");
        let exes = executables(&lines);
        assert_eq!(exes.len(), 1, "{exes:?}");
        assert_eq!(exes["loom"].exe, PathBuf::from("/w/target/debug/deps/loom-1"));
        assert_eq!(exes["loom"].dir, PathBuf::from("/w/sim"));
    }

    #[test]
    fn a_run_passes_fails_or_cannot_start() {
        let dir = std::env::temp_dir();
        let ok = Built { exe: "true".into(), dir: dir.clone() };
        assert_eq!(run(&ok, None), Ok(Ran::Passed));
        let bad = Built { exe: "false".into(), dir: dir.clone() };
        assert!(matches!(run(&bad, Some("mutant-x")), Ok(Ran::Failed(_))));
        let none = Built { exe: "/nonexistent/ringlab-test".into(), dir };
        assert!(run(&none, None).unwrap_err().contains("/nonexistent/ringlab-test"));
    }

    #[test]
    fn shown_is_the_cargo_command() {
        let t = Target { loom: true, package: "ringlab-sim".into(), test: "loom".into() };
        assert_eq!(
            t.shown(Some("mutant-xsk-rmb")),
            "RINGLAB_MUTANT=mutant-xsk-rmb RUSTFLAGS='--cfg loom' cargo test --release -p ringlab-sim --features mutants --test loom"
        );
    }
}
