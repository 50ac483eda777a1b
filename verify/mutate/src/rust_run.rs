//! The Rust campaign: cargo-mutants over the model, the ring, the
//! simulator, the live diff's comparison and the trace validators, each
//! mutant held to the tests that should catch a bug there.
//!
//! cargo-mutants runs `--in-place` in a copy of the sources under
//! target/ringlab/mutate/tree, so the working tree is never touched; the
//! copy builds into the repository's own target directory, which keeps
//! the dependencies' builds.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ringlab_results::{MutationRun, Verdict};
use serde::Deserialize;

use crate::reviewed::Reviewed;
use crate::sample;

/// A crate of the campaign: the package, the files mutated (all of the
/// package's if empty) and the packages whose tests must catch a mutant.
pub struct Crate {
    pub package: &'static str,
    pub files: &'static [&'static str],
    pub tests: &'static [&'static str],
}

/// Where a bug in each crate shows: the reference models in their own
/// tests, the simulator's comparisons with them, and the TLC cross-checks;
/// the ring in its tests and the simulator's; the live diff's comparison in
/// the kernel crate's tests; the trace validators in ringlab-tlc's.
pub const CRATES: [Crate; 5] = [
    Crate {
        package: "ringlab-model",
        files: &[],
        tests: &["ringlab-model", "ringlab-sim", "ringlab-tlc"],
    },
    Crate {
        package: "ringlab-ring",
        files: &[],
        tests: &["ringlab-ring", "ringlab-sim"],
    },
    Crate {
        package: "ringlab-sim",
        files: &[],
        tests: &["ringlab-sim"],
    },
    Crate {
        package: "ringlab-kernel",
        files: &["kernel/src/compare.rs"],
        tests: &["ringlab-kernel"],
    },
    Crate {
        package: "ringlab-tlc",
        files: &["verify/tlc/src/trace/**"],
        tests: &["ringlab-tlc"],
    },
];

pub struct RustOpts {
    /// Only these packages; all of [`CRATES`] if empty.
    pub crates: Vec<String>,
    pub sample: Option<usize>,
    pub only: Vec<String>,
    pub progress: bool,
}

#[derive(Deserialize)]
struct Listed {
    name: String,
    file: String,
    genre: String,
    span: Span,
}

#[derive(Deserialize)]
struct Span {
    start: Pos,
}

#[derive(Deserialize)]
struct Pos {
    line: usize,
}

#[derive(Deserialize)]
struct Outcomes {
    outcomes: Vec<Outcome>,
}

#[derive(Deserialize)]
struct Outcome {
    scenario: serde_json::Value,
    summary: String,
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Whether cargo-mutants is installed.
pub fn available() -> Result<(), String> {
    let ok = cargo().args(["mutants", "--version"]).output().is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err("cargo-mutants is not installed: run `make deps` (cargo install cargo-mutants)".into())
    }
}

/// Copies the sources (no target/, .git/ or node_modules/) to `to`.
fn sync(from: &Path, to: &Path) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(to);
    fn walk(from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for e in std::fs::read_dir(from)? {
            let e = e?;
            let name = e.file_name();
            if ["target", ".git", "node_modules"].iter().any(|n| name == *n) {
                continue;
            }
            let ty = e.file_type()?;
            if ty.is_dir() {
                walk(&e.path(), &to.join(&name))?;
            } else if ty.is_file() {
                std::fs::copy(e.path(), to.join(&name))?;
            }
        }
        Ok(())
    }
    walk(from, to)
}

fn mutants_cmd(tree: &Path, target: &Path, c: &Crate) -> Command {
    let mut cmd = cargo();
    cmd.current_dir(tree)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .args(["mutants", "-p", c.package])
        // Test helpers are not the code under test.
        .args(["--exclude-re", r"(^| )tests::"]);
    for f in c.files {
        cmd.args(["-f", f]);
    }
    cmd
}

fn listed(tree: &Path, target: &Path, c: &Crate) -> Result<Vec<Listed>, String> {
    let out = mutants_cmd(tree, target, c)
        .args(["--list", "--json"])
        .output()
        .map_err(|e| format!("cargo mutants --list: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo mutants --list -p {}: {}", c.package, String::from_utf8_lossy(&out.stderr).trim()));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo mutants --list --json: {e}"))
}

/// A mutant's name without its column, the part that survives edits
/// elsewhere in the line: `file:line: what`.
fn stable(name: &str) -> String {
    let mut parts = name.splitn(4, ':');
    let (file, line, _col, rest) = (parts.next(), parts.next(), parts.next(), parts.next());
    match (file, line, rest) {
        (Some(f), Some(l), Some(r)) => format!("{f}:{l}:{r}"),
        _ => name.to_string(),
    }
}

fn regex_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(ch) {
            o.push('\\');
        }
        o.push(ch);
    }
    o
}

/// Runs the campaign over `opts.crates` (or all of [`CRATES`]).
pub fn run(root: &Path, reviewed: &Reviewed, opts: &RustOpts) -> Result<Vec<MutationRun>, String> {
    available()?;
    let base = ringlab_tlc::check::out_dir(root).join("mutate");
    let tree = base.join("tree");
    sync(root, &tree).map_err(|e| format!("copying the sources to {}: {e}", tree.display()))?;
    let target: PathBuf = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let mut out = Vec::new();
    for c in CRATES.iter().filter(|c| opts.crates.is_empty() || opts.crates.iter().any(|n| n == c.package)) {
        let all: Vec<Listed> = listed(&tree, &target, c)?
            .into_iter()
            .filter(|m| opts.only.is_empty() || opts.only.iter().any(|o| m.name.contains(o.as_str())))
            .collect();
        let chosen: Vec<&Listed> = match opts.sample {
            Some(n) => {
                let ids: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
                let keep = sample::pick(&ids, n);
                all.iter().filter(|m| keep.contains(&m.name.as_str())).collect()
            }
            None => all.iter().collect(),
        };
        if opts.progress {
            eprintln!("  {}: {} mutants ({} in all), tests of {}", c.package, chosen.len(), all.len(), c.tests.join(", "));
        }
        if chosen.is_empty() {
            continue;
        }
        let outdir = base.join(format!("cargo-{}", c.package));
        let _ = std::fs::remove_dir_all(&outdir);
        let mut cmd = mutants_cmd(&tree, &target, c);
        cmd.args(["--in-place", "--no-shuffle", "--timeout", "600", "--build-timeout", "900"])
            .arg("--test-package")
            .arg(c.tests.join(","))
            .arg("--output")
            .arg(&outdir);
        if opts.sample.is_some() {
            // The tests ran unmutated in this same build (make test, or the
            // caller); the sample does not pay for a baseline.
            cmd.arg("--baseline=skip");
        }
        for m in &chosen {
            cmd.arg("--re").arg(format!("^{}$", regex_escape(&m.name)));
        }
        let start = Instant::now();
        let status = cmd.status().map_err(|e| format!("cargo mutants: {e}"))?;
        let per = start.elapsed().as_secs_f64() / chosen.len() as f64;
        let file = outdir.join("mutants.out/outcomes.json");
        let text = std::fs::read_to_string(&file).map_err(|e| {
            format!("cargo mutants -p {} exited with {status} and wrote no {}: {e}", c.package, file.display())
        })?;
        let got: Outcomes = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        for o in &got.outcomes {
            let Some(name) = o.scenario.get("Mutant").and_then(|m| m.get("name")).and_then(|n| n.as_str()) else {
                if o.summary != "Success" {
                    return Err(format!("cargo mutants -p {}: the unmutated tests did not pass ({})", c.package, o.summary));
                }
                continue;
            };
            let Some(m) = chosen.iter().find(|m| m.name == name) else { continue };
            let id = stable(&m.name);
            let mut verdict = match o.summary.as_str() {
                "CaughtMutant" => Verdict::Killed,
                "MissedMutant" => Verdict::Survived,
                "Timeout" => Verdict::Timeout,
                "Unviable" => Verdict::Unviable,
                other => return Err(format!("cargo mutants: {name}: unknown outcome {other}")),
            };
            let mut detail = match verdict {
                Verdict::Killed => format!("a test of {} failed", c.tests.join(", ")),
                Verdict::Survived => format!("every test of {} passed", c.tests.join(", ")),
                Verdict::Timeout => "the tests ran past the limit".into(),
                _ => "does not build".into(),
            };
            if let Some(reason) = reviewed.equivalent(&id) {
                if verdict == Verdict::Survived {
                    verdict = Verdict::Equivalent;
                    detail = reason.to_string();
                } else {
                    detail = format!("listed as equivalent, yet {detail}");
                }
            }
            out.push(MutationRun {
                id,
                group: c.package.to_string(),
                op: m.genre.clone(),
                at: format!("{}:{}", m.file, m.span.start.line),
                what: m.name.splitn(4, ':').nth(3).unwrap_or(&m.name).trim().to_string(),
                verdict,
                detail,
                seconds: per,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_drop_the_column() {
        assert_eq!(
            stable("sim/ring/src/idx.rs:9:5: replace add -> u32 with 0"),
            "sim/ring/src/idx.rs:9: replace add -> u32 with 0"
        );
    }

    #[test]
    fn names_match_themselves_only() {
        let n = "a.rs:1:2: replace <impl X for Y>::f -> u32 with 0";
        assert_eq!(regex_escape("a+b"), "a\\+b");
        // `\<` is a word boundary in the regex crate: `<` stays as it is.
        assert!(regex_escape(n).contains("<impl X for Y>::f"));
    }
}
