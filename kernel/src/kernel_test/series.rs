//! A patch series on disk: its patches in order, checkpatch.pl --strict on
//! each, and each applied in turn with `git am` and built with W=1.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

/// A folder of `git format-patch` files.
#[derive(Debug, Clone)]
pub struct Series {
    pub dir: PathBuf,
    /// The patches in order, without the cover letter.
    pub patches: Vec<PathBuf>,
    pub cover_letter: Option<PathBuf>,
}

impl Series {
    /// Reads `dir`: every `*.patch` in name order; `0000-cover-letter.patch`
    /// is the cover letter. A file that is not a format-patch mail (no
    /// `From <sha>` first line or no `Subject:`) is an error naming it.
    pub fn read(dir: &Path) -> Result<Series, String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("series {}: {e}", dir.display()))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "patch"))
            .collect();
        files.sort();
        let mut s = Series { dir: dir.to_path_buf(), patches: Vec::new(), cover_letter: None };
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            let first = text.lines().next().unwrap_or("");
            if !first.starts_with("From ") || !text.lines().any(|l| l.starts_with("Subject:")) {
                return Err(format!(
                    "{}: not a `git format-patch` file (needs a `From <commit>` first line and a Subject: header)",
                    f.display()
                ));
            }
            let name = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if name.starts_with("0000-") {
                s.cover_letter = Some(f);
            } else {
                s.patches.push(f);
            }
        }
        if s.patches.is_empty() {
            return Err(format!("series {}: no *.patch files besides a cover letter", dir.display()));
        }
        Ok(s)
    }

    /// Whether a patch of the series has a `+` line containing `what`, in
    /// a file whose path ends with `file` (any file: None).
    pub fn adds(&self, file: Option<&str>, what: &str) -> bool {
        self.patches
            .iter()
            .any(|p| std::fs::read_to_string(p).is_ok_and(|t| diff_adds(&t, file, what)))
    }
}

/// Whether the diff `text` adds a line containing `what` to a file whose
/// path ends with `file` (any file: None).
fn diff_adds(text: &str, file: Option<&str>, what: &str) -> bool {
    let mut here = file.is_none();
    text.lines().any(|l| {
        if let Some(f) = l.strip_prefix("+++ ") {
            here = file.is_none_or(|want| f.ends_with(want));
            return false;
        }
        here && l.starts_with('+') && l.contains(what)
    })
}

/// checkpatch.pl's verdict on one patch.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Checkpatch {
    pub patch: String,
    pub errors: u32,
    pub warnings: u32,
    pub checks: u32,
    /// The report's problem lines, when there are any.
    pub findings: Vec<String>,
}

/// `scripts/checkpatch.pl --strict` of the tree `tree` on every patch.
pub fn checkpatch(tree: &Path, s: &Series) -> Result<Vec<Checkpatch>, String> {
    let script = tree.join("scripts/checkpatch.pl");
    if !script.is_file() {
        return Err(format!("{}: missing (is {} a kernel tree?)", script.display(), tree.display()));
    }
    let mut out = Vec::new();
    for p in &s.patches {
        let abs = std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let o = Command::new("perl")
            .arg(&script)
            .args(["--strict", "--no-color", "--show-types"])
            .arg(&abs)
            .current_dir(tree)
            .output()
            .map_err(|e| format!("running checkpatch.pl: {e}"))?;
        let text = String::from_utf8_lossy(&o.stdout);
        let (errors, warnings, checks) = parse_total(&text)
            .ok_or_else(|| format!("checkpatch.pl gave no `total:` line for {}: {}", p.display(), String::from_utf8_lossy(&o.stderr)))?;
        let findings = text
            .lines()
            .filter(|l| l.starts_with("ERROR:") || l.starts_with("WARNING:") || l.starts_with("CHECK:"))
            .map(str::to_string)
            .collect();
        out.push(Checkpatch { patch: name(p), errors, warnings, checks, findings });
    }
    Ok(out)
}

/// `total: 1 errors, 2 warnings, 3 checks, 40 lines checked` (no
/// `checks` without --strict).
fn parse_total(text: &str) -> Option<(u32, u32, u32)> {
    let line = text.lines().find(|l| l.starts_with("total:"))?;
    let count = |what: &str| -> Option<u32> {
        line.split(',').find_map(|part| {
            let mut w = part.trim().trim_start_matches("total:").split_whitespace();
            let n = w.next()?.parse().ok()?;
            (w.next()? == what).then_some(n)
        })
    };
    Some((count("errors")?, count("warnings")?, count("checks").unwrap_or(0)))
}

pub fn name(p: &Path) -> String {
    p.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

/// One patch applied with `git am` and the files it touches built with W=1.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Step {
    pub patch: String,
    pub applied: bool,
    /// W=1 warnings of this build that the unpatched tree does not have.
    pub new_warnings: Vec<String>,
    pub error: Option<String>,
}

/// The objects W=1 builds after each patch: every directory or object of
/// the series' C files under net/ (net/xdp/ always).
pub fn w1_targets(s: &Series) -> Vec<String> {
    let mut t = vec!["net/xdp/".to_string()];
    for p in &s.patches {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        for l in text.lines().filter_map(|l| l.strip_prefix("+++ b/")) {
            if let Some(c) = l.strip_suffix(".c") {
                if !c.starts_with("net/xdp/") && !c.starts_with("tools/") {
                    let o = format!("{c}.o");
                    if !t.contains(&o) {
                        t.push(o);
                    }
                }
            }
        }
    }
    t
}

/// Applies the series one patch at a time to `repo` (a git repository of
/// the unpatched tree at `base`, configured in `build`), building
/// `targets` with W=1 after each. Leaves the repository at `base`.
pub fn apply_and_build(repo: &Path, build: &Path, base: &str, s: &Series, targets: &[String]) -> Result<(u32, Vec<Step>), String> {
    git(repo, &["am", "--abort"]).ok();
    git(repo, &["reset", "-q", "--hard", base])?;
    let baseline = w1(repo, build, targets)?;
    let mut steps = Vec::new();
    for p in &s.patches {
        let abs = std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let mut st = Step { patch: name(p), applied: false, new_warnings: Vec::new(), error: None };
        match git(repo, &["am", "-q", "--whitespace=nowarn", &abs.to_string_lossy()]) {
            Err(e) => {
                git(repo, &["am", "--abort"]).ok();
                st.error = Some(format!("git am: {e}"));
                steps.push(st);
                break;
            }
            Ok(_) => st.applied = true,
        }
        match w1(repo, build, targets) {
            Ok(w) => st.new_warnings = w.into_iter().filter(|l| !baseline.contains(l)).collect(),
            Err(e) => st.error = Some(e),
        }
        let failed = st.error.is_some();
        steps.push(st);
        if failed {
            break;
        }
    }
    git(repo, &["reset", "-q", "--hard", base])?;
    Ok((baseline.len() as u32, steps))
}

/// The warning lines of a W=1 build of `targets`, with the line numbers
/// left out (a patch moves them).
fn w1(repo: &Path, build: &Path, targets: &[String]) -> Result<Vec<String>, String> {
    let o = Command::new("make")
        .arg("-C")
        .arg(repo)
        .arg(format!("O={}", build.display()))
        .args(["W=1", "-j2"])
        .args(targets)
        .output()
        .map_err(|e| format!("make: {e}"))?;
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        let tail: Vec<&str> = err.lines().filter(|l| l.contains("error")).take(10).collect();
        return Err(format!("build failed: {}", tail.join(" | ")));
    }
    Ok(err
        .lines()
        .filter(|l| l.contains("warning:"))
        .map(|l| {
            let mut parts = l.splitn(4, ':');
            let file = parts.next().unwrap_or("");
            let _line = parts.next();
            let _col = parts.next();
            format!("{file}:{}", parts.next().unwrap_or(""))
        })
        .collect())
}

pub fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let o = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=ringlab", "-c", "user.email=ringlab@example.org"])
        .args(args)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    } else {
        Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr).trim()))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds_looks_at_added_lines_of_the_named_file() {
        let d = "--- a/net/xdp/xsk.c\n+++ b/net/xdp/xsk.c\n@@ -1 +1 @@\n-old\n+\tif (unlikely(!xs->rx))\n--- a/net/core/dev.c\n+++ b/net/core/dev.c\n+XDP_REDIRECT_XSK\n";
        assert!(diff_adds(d, Some("net/xdp/xsk.c"), "unlikely(!xs->rx)"));
        assert!(!diff_adds(d, Some("net/core/dev.c"), "unlikely(!xs->rx)"));
        assert!(diff_adds(d, None, "XDP_REDIRECT_XSK"));
        assert!(!diff_adds(d, Some("net/xdp/xsk.c"), "XDP_REDIRECT_XSK"));
        assert!(!diff_adds(d, None, "old"));
    }

    use super::*;

    #[test]
    fn total_line_parses() {
        assert_eq!(parse_total("x\ntotal: 0 errors, 2 warnings, 1 checks, 40 lines checked\n"), Some((0, 2, 1)));
        assert_eq!(parse_total("total: 3 errors, 0 warnings, 12 lines checked"), Some((3, 0, 0)));
        assert_eq!(parse_total("nothing"), None);
    }

    #[test]
    fn the_repository_series_reads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernel/patches/xsk-batch-xmit");
        let s = Series::read(&dir).unwrap();
        assert!(s.cover_letter.is_some());
        // every numbered patch of the folder, the cover letter apart
        let files = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".patch") && !n.starts_with("0000-"))
            .count();
        assert!(files >= 8, "{files}");
        assert_eq!(s.patches.len(), files);
        assert!(w1_targets(&s).contains(&"net/core/dev.o".to_string()));
    }

    #[test]
    fn a_file_that_is_not_a_patch_is_named() {
        let d = std::env::temp_dir().join(format!("ringlab-series-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("0001-x.patch"), "not a mail\n").unwrap();
        let e = Series::read(&d).unwrap_err();
        assert!(e.contains("0001-x.patch") && e.contains("format-patch"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }
}
