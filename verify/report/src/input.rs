//! What the report is made from: the record of the last `ringlab verify`
//! (target/ringlab/verify.json), the counterexamples it saved, and any
//! simulator traces in target/ringlab/sim/.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ringlab_results::VerifyDoc;
use ringlab_tlc::explorer::{from_sim, RingTrace};

pub const NO_VERIFY_RUN: &str = "no verify run recorded: run `ringlab verify` first";

/// The inputs, read from `dir` (target/ringlab).
pub struct Inputs {
    /// None when there is no verify.json (figures only) or it does not read.
    pub verify: Option<VerifyDoc>,
    /// Why verify.json does not read: the file, and what is wrong with it.
    pub verify_error: Option<String>,
    /// When verify.json was written, seconds since the epoch.
    pub verify_time: Option<u64>,
    /// TLC counterexamples, by model name.
    pub counterexamples: BTreeMap<String, RingTrace>,
    pub sim: Vec<RingTrace>,
    /// Files that could not be read, and why.
    pub skipped: Vec<String>,
}

pub fn read(dir: &Path) -> Result<Inputs, String> {
    let vpath = dir.join("verify.json");
    let (verify, verify_error) = match std::fs::read_to_string(&vpath) {
        Ok(text) => match VerifyDoc::parse(&text, &vpath.display().to_string()) {
            Ok(d) => (Some(d), None),
            Err(e) => (None, Some(format!("{e} (`ringlab verify` records it anew)"))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
        Err(e) => (None, Some(format!("{}: {e}", vpath.display()))),
    };
    let verify_time = std::fs::metadata(&vpath)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    let mut skipped = Vec::new();
    let mut counterexamples = BTreeMap::new();
    // with a verify run, the counterexamples it found; else every one saved
    let wanted: Option<Vec<&str>> = verify
        .as_ref()
        .map(|v| v.models.iter().filter(|m| m.trace_file.is_some()).map(|m| m.name.as_str()).collect());
    for path in files(&dir.join("traces"), "json") {
        let name = path.file_stem().unwrap_or_default().to_string_lossy().to_string();
        if wanted.as_ref().is_some_and(|w| !w.contains(&name.as_str())) {
            continue;
        }
        match RingTrace::load(&path) {
            Ok(t) => {
                counterexamples.insert(name, t);
            }
            Err(e) => skipped.push(e),
        }
    }
    for name in wanted.unwrap_or_default() {
        if !dir.join("traces").join(format!("{name}.json")).is_file() {
            skipped.push(format!("{name}: its counterexample is not in {}", dir.join("traces").display()));
        }
    }
    let mut sim = Vec::new();
    for path in files(&dir.join("sim"), "jsonl") {
        let shown = path.strip_prefix(dir.parent().and_then(Path::parent).unwrap_or(dir)).unwrap_or(&path).display().to_string();
        match std::fs::read_to_string(&path).map_err(|e| format!("{shown}: {e}")).and_then(|text| from_sim(&text, &shown)) {
            Ok(t) => sim.push(t),
            Err(e) => skipped.push(e),
        }
    }
    Ok(Inputs { verify, verify_error, verify_time, counterexamples, sim, skipped })
}

/// The files of `dir` ending in `.ext`, sorted; none if there is no `dir`.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == ext)).collect())
        .unwrap_or_default();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_verify_record_every_saved_trace_is_read() {
        let dir = std::env::temp_dir().join(format!("ringlab-input-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("traces")).unwrap();
        std::fs::write(dir.join("traces/old.json"), r#"{"states": []}"#).unwrap();
        let i = read(&dir).unwrap();
        assert!(i.verify.is_none());
        assert!(i.counterexamples.is_empty());
        assert!(i.skipped[0].contains("older trace"), "{:?}", i.skipped);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
