//! The Rust campaign: cargo-mutants over the model, the ring, the
//! simulator, the live diff's comparison and the trace validators, each
//! mutant held to the tests that should catch a bug there.
//!
//! cargo-mutants lists the mutants; each chosen one is written into a
//! copy of the sources under target/ringlab/mutate/tree (so the working
//! tree is never touched), built, and tested there, one at a time, in a
//! target directory of its own (target/ringlab/mutate/target; see run()).
//! (cargo-mutants' own runner cannot run a chosen few: its name filters
//! let struct-field deletions through.)

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    /// Where only part of the package is mutated, the test targets of its
    /// own that exercise that part (`lib`, or a file of tests/); empty:
    /// all of them. The rest would only lengthen each mutant's run.
    pub own_targets: &'static [&'static str],
}

/// Where a bug in each crate shows: the reference models in their own
/// tests, the simulator's comparisons with them, the Z3 proofs (which run
/// the model's descriptor validator symbolically), the live diff's offline
/// tests of its oracle, and the TLC cross-checks;
/// the ring and the simulator in their tests and in the simulator's traces
/// TLC validates; the live diff's comparison in the kernel crate's tests;
/// the trace validators in ringlab-tlc's. Cheapest tests first.
pub const CRATES: [Crate; 5] = [
    Crate {
        package: "ringlab-model",
        files: &[],
        tests: &["ringlab-model", "ringlab-sim", "ringlab-prove", "ringlab-kernel", "ringlab-tlc"],
        own_targets: &[],
    },
    Crate {
        package: "ringlab-ring",
        files: &[],
        tests: &["ringlab-ring", "ringlab-sim", "ringlab-tlc"],
        own_targets: &[],
    },
    Crate {
        package: "ringlab-sim",
        files: &[],
        tests: &["ringlab-sim", "ringlab-tlc"],
        own_targets: &[],
    },
    Crate {
        package: "ringlab-kernel",
        files: &["kernel/src/compare.rs"],
        tests: &["ringlab-kernel"],
        own_targets: &[],
    },
    Crate {
        package: "ringlab-tlc",
        files: &["verify/tlc/src/trace/**"],
        tests: &["ringlab-tlc"],
        // the validators' unit tests and every test that validates traces
        own_targets: &[
            "lib",
            "trace_validation",
            "copytx_trace",
            "devmem_trace",
            "iouring_trace",
            "xskrx_trace",
            "xskrx_sim_trace",
            "kernel_chain",
            "xskrx_chain",
        ],
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
    replacement: String,
}

#[derive(Deserialize)]
struct Span {
    start: Pos,
    end: Pos,
}

#[derive(Deserialize)]
struct Pos {
    line: usize,
    column: usize,
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

/// Whether `m` edits code that runs only under one of ringlab's named
/// mutants (crate::named): never reached by the tests, a certain survivor.
fn in_named_mutant(tree: &Path, m: &Listed) -> bool {
    let Ok(text) = std::fs::read_to_string(tree.join(&m.file)) else { return false };
    let (start, end) = ((m.span.start.line, m.span.start.column), (m.span.end.line, m.span.end.column));
    crate::named::dead_blocks(&text).iter().any(|b| b.holds(start, end))
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

/// The mutant's replacement written over its span (1-based line and
/// character columns, end exclusive), as cargo-mutants applies it; the
/// file's original text back.
fn apply(tree: &Path, m: &Listed) -> Result<String, String> {
    let path = tree.join(&m.file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let offset = |p: &Pos| -> Option<usize> {
        let mut at = 0;
        for (n, line) in text.split_inclusive('\n').enumerate() {
            if n + 1 == p.line {
                return line.char_indices().map(|(i, _)| i).chain([line.len()]).nth(p.column - 1).map(|i| at + i);
            }
            at += line.len();
        }
        None
    };
    let (Some(a), Some(z)) = (offset(&m.span.start), offset(&m.span.end)) else {
        return Err(format!("{}: span outside {}", m.name, m.file));
    };
    let mut mutated = text.clone();
    mutated.replace_range(a..z, &m.replacement);
    std::fs::write(&path, mutated).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text)
}

/// Runs `cmd`, killing it after `limit`: Some(success), or None at the limit.
fn run_for(mut cmd: Command, limit: Duration) -> Result<Option<bool>, String> {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cargo: {e}"))?;
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            return Ok(Some(st.success()));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn test_cmd(tree: &Path, target: &Path, package: &str, targets: &[&str], build_only: bool) -> Command {
    let mut cmd = cargo();
    cmd.current_dir(tree).env("CARGO_TARGET_DIR", target).env_remove("RUSTFLAGS").arg("test");
    if build_only {
        cmd.arg("--no-run");
    }
    cmd.args(["-p", package]);
    for t in targets {
        match *t {
            "lib" => cmd.arg("--lib"),
            t => cmd.args(["--test", t]),
        };
    }
    cmd
}

impl Crate {
    /// The test targets of `p` a mutant of this crate runs (empty: all).
    fn targets_of(&self, p: &str) -> &'static [&'static str] {
        if p == self.package {
            self.own_targets
        } else {
            &[]
        }
    }
}

/// One mutant applied, built and tested; the file restored whatever
/// happens. The packages are built and tested one at a time, in the order
/// [`Crate::tests`] lists them (cheapest first), and the first whose tests
/// fail kills the mutant: only a survivor pays for every package's build
/// and tests.
fn try_mutant(
    tree: &Path,
    target: &Path,
    c: &Crate,
    m: &Listed,
    limits: &mut Limits,
) -> Result<(Verdict, String), String> {
    let original = apply(tree, m)?;
    let restore = || std::fs::write(tree.join(&m.file), &original).map_err(|e| format!("restoring {}: {e}", m.file));
    let result = (|| {
        for p in c.tests {
            let targets = c.targets_of(p);
            match run_for(test_cmd(tree, target, p, targets, true), BUILD_LIMIT)? {
                None => return Ok((Verdict::Timeout, format!("the build of {p}'s tests ran past its limit"))),
                Some(false) => return Ok((Verdict::Unviable, format!("{p}'s tests do not build"))),
                Some(true) => {}
            }
            let limit = limits.of(p);
            let t0 = Instant::now();
            match run_for(test_cmd(tree, target, p, targets, false), limit)? {
                None => return Ok((Verdict::Timeout, format!("the tests of {p} ran past {} s", limit.as_secs()))),
                Some(false) => {
                    if !limits.has_passed(p) {
                        restore()?;
                        baseline(tree, target, p, targets, limits)?;
                    }
                    return Ok((Verdict::Killed, format!("a test of {p} failed")));
                }
                Some(true) => limits.passed(p, t0.elapsed()),
            }
        }
        Ok((Verdict::Survived, format!("every test of {} passed", c.tests.join(", "))))
    })();
    restore()?;
    result
}

/// A package's tests on the unmutated sources, run the first time they
/// fail on a mutant before they have passed on any: tests that fail
/// anyway (a broken test, a missing tool) would count every mutant as
/// killed.
fn baseline(tree: &Path, target: &Path, p: &str, targets: &[&str], limits: &mut Limits) -> Result<(), String> {
    let t0 = Instant::now();
    match run_for(test_cmd(tree, target, p, targets, false), TEST_LIMIT)? {
        Some(true) => {
            limits.passed(p, t0.elapsed());
            Ok(())
        }
        ran => Err(format!(
            "the tests of {p} {} on the unmutated sources too, so they cannot tell a mutant: \
             run `cargo test -p {p}` and mend them first",
            if ran.is_none() { format!("run past {} s", TEST_LIMIT.as_secs()) } else { "fail".into() }
        )),
    }
}

const BUILD_LIMIT: Duration = Duration::from_secs(900);
/// A package's tests until they have passed once: they take 1 s
/// (ringlab-ring) to about 400 s (ringlab-tlc, TLC runs) unmutated on two
/// loaded cores.
const TEST_LIMIT: Duration = Duration::from_secs(900);

/// How long a package's tests may run on a mutant: TEST_LIMIT until they
/// have passed on one, then five times their longest passing run (at
/// least a minute). The longest, not the last: a mutant that makes the
/// tests faster must not shorten the next mutant's limit.
#[derive(Default)]
struct Limits(std::collections::BTreeMap<String, Duration>);

impl Limits {
    fn of(&self, package: &str) -> Duration {
        match self.0.get(package) {
            Some(d) => (*d * 5).clamp(Duration::from_secs(60), TEST_LIMIT),
            None => TEST_LIMIT,
        }
    }

    fn has_passed(&self, package: &str) -> bool {
        self.0.contains_key(package)
    }

    fn passed(&mut self, package: &str, took: Duration) {
        let e = self.0.entry(package.to_string()).or_default();
        *e = (*e).max(took);
    }
}

/// Runs the campaign over `opts.crates` (or all of [`CRATES`]).
pub fn run(root: &Path, reviewed: &Reviewed, opts: &RustOpts) -> Result<Vec<MutationRun>, String> {
    available()?;
    let base = ringlab_tlc::check::out_dir(root).join("mutate");
    let tree = base.join("tree");
    sync(root, &tree).map_err(|e| format!("copying the sources to {}: {e}", tree.display()))?;
    // The copy has a target directory of its own. Cargo names a workspace
    // package's build by its path inside the workspace, so the copy's
    // builds in the repository's target directory would be taken for the
    // repository's own (their dep-info names the copy's files, which do
    // not change): later builds of the working tree would link the copy's
    // code, a mutant's or an older version's.
    let target: PathBuf = base.join("target");
    let mut out = Vec::new();
    let mut limits = Limits::default();
    for c in CRATES.iter().filter(|c| opts.crates.is_empty() || opts.crates.iter().any(|n| n == c.package)) {
        let (all, named): (Vec<Listed>, Vec<Listed>) = listed(&tree, &target, c)?
            .into_iter()
            .filter(|m| opts.only.is_empty() || opts.only.iter().any(|o| m.name.contains(o.as_str())))
            .partition(|m| !in_named_mutant(&tree, m));
        let chosen: Vec<&Listed> = match opts.sample {
            Some(n) => {
                let ids: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
                let keep = sample::pick(&ids, n);
                all.iter().filter(|m| keep.contains(&m.name.as_str())).collect()
            }
            None => all.iter().collect(),
        };
        if opts.progress {
            eprintln!(
                "  {}: {} mutants ({} in all; {} inside named mutants' code left out), tests of {}",
                c.package,
                chosen.len(),
                all.len(),
                named.len(),
                c.tests.join(", ")
            );
        }
        if chosen.is_empty() {
            continue;
        }
        for m in chosen {
            let id = stable(&m.name);
            let t0 = Instant::now();
            let (mut verdict, mut detail) = try_mutant(&tree, &target, c, m, &mut limits)?;
            let what = m.name.splitn(4, ':').nth(3).unwrap_or(&m.name).trim().to_string();
            reviewed.apply(&id, &what, &mut verdict, &mut detail);
            let seconds = t0.elapsed().as_secs_f64();
            if opts.progress {
                eprintln!("  {:<10} {} ({:.1}s)", format!("{verdict:?}").to_lowercase(), m.name, seconds);
            }
            out.push(MutationRun {
                id,
                group: c.package.to_string(),
                op: m.genre.clone(),
                at: format!("{}:{}", m.file, m.span.start.line),
                what,
                verdict,
                detail,
                seconds,
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
    fn a_mutant_replaces_its_span_and_the_file_comes_back() {
        let tree = std::env::temp_dir().join(format!("ringlab-mutate-apply-{}", std::process::id()));
        std::fs::create_dir_all(tree.join("src")).unwrap();
        let text = "fn f(a: u32) -> u32 {\n    a + 1\n}\n";
        std::fs::write(tree.join("src/x.rs"), text).unwrap();
        let m = Listed {
            name: "src/x.rs:2:5: replace + with - in f".into(),
            file: "src/x.rs".into(),
            genre: "BinaryOperator".into(),
            span: Span { start: Pos { line: 2, column: 7 }, end: Pos { line: 2, column: 8 } },
            replacement: "-".into(),
        };
        let original = apply(&tree, &m).unwrap();
        assert_eq!(original, text);
        assert_eq!(std::fs::read_to_string(tree.join("src/x.rs")).unwrap(), "fn f(a: u32) -> u32 {\n    a - 1\n}\n");
        let _ = std::fs::remove_dir_all(&tree);
    }

    #[test]
    fn a_limit_grows_with_the_longest_pass_and_stays_in_bounds() {
        let mut l = Limits::default();
        assert_eq!(l.of("p"), TEST_LIMIT);
        l.passed("p", Duration::from_secs(30));
        assert_eq!(l.of("p"), Duration::from_secs(150));
        l.passed("p", Duration::from_secs(2));
        assert_eq!(l.of("p"), Duration::from_secs(150), "a faster pass does not shorten it");
        l.passed("q", Duration::from_secs(1));
        assert_eq!(l.of("q"), Duration::from_secs(60));
        l.passed("r", Duration::from_secs(400));
        assert_eq!(l.of("r"), TEST_LIMIT);
    }

    /// A one-package workspace whose test is `src/lib.rs`'s `broken()`.
    fn workspace(name: &str, broken: bool) -> PathBuf {
        let tree = std::env::temp_dir().join(format!("ringlab-mutate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tree);
        std::fs::create_dir_all(tree.join("src")).unwrap();
        let manifest = "[package]\nname = \"bl\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n";
        std::fs::write(tree.join("Cargo.toml"), manifest).unwrap();
        let lib = format!(
            "pub fn one() -> u32 {{\n    1\n}}\n#[test]\nfn t() {{\n    assert_eq!(one(), 1);\n    assert!(!{broken});\n}}\n"
        );
        std::fs::write(tree.join("src/lib.rs"), lib).unwrap();
        tree
    }

    fn one_to_two() -> Listed {
        Listed {
            name: "src/lib.rs:2:5: replace one -> u32 with 2".into(),
            file: "src/lib.rs".into(),
            genre: "FnValue".into(),
            span: Span { start: Pos { line: 2, column: 5 }, end: Pos { line: 2, column: 6 } },
            replacement: "2".into(),
        }
    }

    const BL: Crate = Crate { package: "bl", files: &[], tests: &["bl"], own_targets: &[] };

    /// A target named there that does not exist would make every mutant
    /// unviable (its tests do not build).
    #[test]
    fn every_own_target_named_is_a_test_target_of_its_package() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for c in CRATES.iter().filter(|c| !c.own_targets.is_empty()) {
            let dir = root.join(package_dir(c.package));
            for t in c.own_targets.iter().filter(|t| **t != "lib") {
                assert!(dir.join("tests").join(format!("{t}.rs")).is_file(), "{}: no test target {t} in {}", c.package, dir.display());
            }
            if c.own_targets.contains(&"lib") {
                assert!(dir.join("src/lib.rs").is_file(), "{}: no lib", c.package);
            }
        }
    }

    fn package_dir(p: &str) -> &'static str {
        match p {
            "ringlab-tlc" => "verify/tlc",
            "ringlab-kernel" => "kernel",
            _ => panic!("{p}: add its folder"),
        }
    }

    #[test]
    fn a_mutant_is_killed_only_by_tests_that_pass_unmutated() {
        let tree = workspace("killed", false);
        let target = tree.join("target");
        let (v, _) = try_mutant(&tree, &target, &BL, &one_to_two(), &mut Limits::default()).unwrap();
        assert_eq!(v, Verdict::Killed);
        let tree2 = workspace("broken", true);
        let err = try_mutant(&tree2, &target, &BL, &one_to_two(), &mut Limits::default()).unwrap_err();
        assert!(err.contains("unmutated"), "{err}");
        assert!(std::fs::read_to_string(tree2.join("src/lib.rs")).unwrap().contains("    1\n"), "restored");
        let _ = std::fs::remove_dir_all(&tree);
        let _ = std::fs::remove_dir_all(&tree2);
    }
}
