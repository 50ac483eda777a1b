//! A spec's reference tests held to a mutant of the spec.
//!
//! The manifest names, for each spec with a Rust model, the integration
//! tests that run the spec against the model (`specs.<spec>.reference`):
//! TLC's state graph against the model's search, TLC's counterexamples
//! replayed in the model, the model's traces validated by TLC. They read
//! the spec through `specs_dir()`, so with `RINGLAB_SPECS` naming the
//! campaign's copy of specs/ they test the mutant. A mutant every model
//! passes is killed when one of them fails: the spec no longer agrees with
//! its model. The tests are built once, the first time a mutant needs them.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ringlab_tlc::manifest::Reference;
use serde::Deserialize;

/// One built test binary.
#[derive(Clone, Debug)]
struct Binary {
    exe: PathBuf,
    /// The package's folder: cargo runs a test there.
    dir: PathBuf,
}

/// The outcome of one test run on a mutant.
#[derive(Debug, PartialEq)]
pub enum TestRun {
    Passed { seconds: f64 },
    /// The first line that says what failed.
    Failed(String),
    TimedOut,
}

/// Builds the tests on first use and runs them.
pub struct ReferenceTests {
    root: PathBuf,
    built: Option<BTreeMap<String, Binary>>,
    /// Each test's time on the unmutated specs.
    baseline: BTreeMap<String, f64>,
    progress: bool,
}

#[derive(Deserialize)]
struct Artifact {
    reason: String,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    executable: Option<PathBuf>,
    #[serde(default)]
    manifest_path: Option<PathBuf>,
    #[serde(default)]
    package_id: String,
}

#[derive(Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

/// The package name in a cargo package id (`path+file:///…/verify/tlc#ringlab-tlc@0.1.0`
/// or the older `ringlab-tlc 0.1.0 (path+file://…)`).
fn package_of(id: &str) -> String {
    if let Some((_, rest)) = id.rsplit_once('#') {
        return rest.split('@').next().unwrap_or(rest).to_string();
    }
    id.split_whitespace().next().unwrap_or(id).to_string()
}

impl ReferenceTests {
    pub fn new(root: &Path, progress: bool) -> Self {
        ReferenceTests { root: root.to_path_buf(), built: None, baseline: BTreeMap::new(), progress }
    }

    /// Builds every test of the workspace (so the features match `cargo
    /// test --workspace` and nothing is rebuilt after `make test`) and keeps
    /// where each binary is.
    fn build(&mut self) -> Result<&BTreeMap<String, Binary>, String> {
        if self.built.is_none() {
            if self.progress {
                eprintln!("  building the reference tests (cargo test --workspace --no-run)");
            }
            let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
                .current_dir(&self.root)
                .env_remove("RUSTFLAGS")
                .args(["test", "--workspace", "--no-run", "--message-format=json"])
                .stderr(Stdio::inherit())
                .output()
                .map_err(|e| format!("cargo: {e}"))?;
            if !out.status.success() {
                return Err("cargo test --workspace --no-run failed: the reference tests do not build".into());
            }
            let mut built = BTreeMap::new();
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let Ok(a) = serde_json::from_str::<Artifact>(line) else { continue };
                let (Some(t), Some(exe), Some(manifest)) = (a.target, a.executable, a.manifest_path) else { continue };
                if a.reason != "compiler-artifact" || !t.kind.iter().any(|k| k == "test") {
                    continue;
                }
                let dir = manifest.parent().map(Path::to_path_buf).unwrap_or_else(|| self.root.clone());
                built.insert(format!("{}/{}", package_of(&a.package_id), t.name), Binary { exe, dir });
            }
            self.built = Some(built);
        }
        Ok(self.built.as_ref().expect("built above"))
    }

    /// Runs `test` (package/test) with the specs in `specs`, killed after
    /// `limit`.
    fn run_one(&mut self, test: &str, specs: &Path, limit: Duration) -> Result<TestRun, String> {
        let bin = self
            .build()?
            .get(test)
            .cloned()
            .ok_or_else(|| format!("reference test {test}: no such test target in the workspace"))?;
        let mut child = Command::new(&bin.exe)
            .current_dir(&bin.dir)
            .env(ringlab_tlc::SPECS_ENV, specs)
            .arg("--test-threads=1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{}: {e}", bin.exe.display()))?;
        let (mut out, mut err) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            let _ = err.read_to_string(&mut s);
            s
        });
        let start = Instant::now();
        let status = loop {
            if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
                break Some(st);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let text = reader.join().unwrap_or_default();
        Ok(match status {
            None => TestRun::TimedOut,
            Some(st) if st.success() => TestRun::Passed { seconds: start.elapsed().as_secs_f64() },
            Some(_) => TestRun::Failed(first_failure(&text)),
        })
    }

    /// Whether every test of `r` has run on the unmutated specs.
    pub fn has_baseline(&self, r: &Reference) -> bool {
        r.tests.iter().all(|t| self.baseline.contains_key(t))
    }

    /// Runs each of `r`'s tests on the unmutated `specs`: each must pass,
    /// and its time sets its limit on mutants.
    pub fn baseline(&mut self, r: &Reference, specs: &Path) -> Result<(), String> {
        for t in r.tests.clone() {
            if self.baseline.contains_key(&t) {
                continue;
            }
            match self.run_one(&t, specs, Duration::from_secs(1800))? {
                TestRun::Passed { seconds } => {
                    self.baseline.insert(t, seconds);
                }
                TestRun::Failed(why) => {
                    return Err(format!("reference test {t} fails on the unmutated specs: {why}"))
                }
                TestRun::TimedOut => return Err(format!("reference test {t} still running after 1800 s unmutated")),
            }
        }
        Ok(())
    }

    /// The first of `r`'s tests the mutant in `specs` fails, with why:
    /// None if it passes them all. A test still running at four times its
    /// unmutated time plus 30 s counts as failed (the verdict says so).
    pub fn first_failed(&mut self, r: &Reference, specs: &Path) -> Result<Option<(String, TestRun)>, String> {
        for t in r.tests.clone() {
            let base = self.baseline.get(&t).copied().unwrap_or(60.0);
            let limit = Duration::from_secs_f64(4.0 * base + 30.0);
            match self.run_one(&t, specs, limit)? {
                TestRun::Passed { .. } => {}
                other => return Ok(Some((t, other))),
            }
        }
        Ok(None)
    }
}

/// What a failed test run says first: a panic's message, else the line
/// naming the failed test, else the last line.
fn first_failure(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if let Some(i) = lines.iter().position(|l| l.contains("panicked at")) {
        // The message: the lines after, up to a blank line or the note.
        let msg: Vec<&str> = lines[i + 1..]
            .iter()
            .map(|l| l.trim())
            .take_while(|l| !l.is_empty() && !l.starts_with("note:"))
            .collect();
        return shorten(&if msg.is_empty() { lines[i].trim().to_string() } else { msg.join(" / ") });
    }
    if let Some(l) = lines.iter().find(|l| l.starts_with("test ") && l.ends_with("FAILED")) {
        return shorten(l);
    }
    shorten(lines.iter().rev().find(|l| !l.trim().is_empty()).copied().unwrap_or("no output"))
}

fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 200 {
        format!("{}…", s.chars().take(200).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_come_out_of_both_id_forms() {
        assert_eq!(package_of("path+file:///w/verify/tlc#ringlab-tlc@0.1.0"), "ringlab-tlc");
        assert_eq!(package_of("ringlab-tlc 0.1.0 (path+file:///w/verify/tlc)"), "ringlab-tlc");
    }

    #[test]
    fn a_failure_is_named_by_its_panic_message() {
        let out = "running 1 test\nthread 'x' panicked at verify/tlc/tests/tlc_bfs.rs:9:5:\nMISMATCH fill: distinct: TLC Some(3), model 4\nnote: run with RUST_BACKTRACE=1\ntest x ... FAILED\n";
        assert_eq!(first_failure(out), "MISMATCH fill: distinct: TLC Some(3), model 4");
        let two = "thread 'x' panicked at a.rs:1:1:\nmodel and TLC differ on:\n  fill: depth\n\n";
        assert_eq!(first_failure(two), "model and TLC differ on: / fill: depth");
        assert_eq!(first_failure("test y ... FAILED"), "test y ... FAILED");
        assert_eq!(first_failure(""), "no output");
    }
}
