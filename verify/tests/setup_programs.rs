//! Every program ringlab runs is installed by its set-up: scripts/programs.tsv
//! lists each with its package and installer; this checks the installers
//! really install those packages, and that every program the code starts
//! by a literal name (Rust's Command::new) or a script looks for (`command -v`, a
//! `for t in ...` tool check) is in the list. A fresh machine then never
//! meets "not found" half an hour into `make verify`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// program -> (package, installer)
fn listed() -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(root().join("scripts/programs.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "scripts/programs.tsv: `{l}` is not program<TAB>package<TAB>installer");
            (f[0].to_string(), (f[1].to_string(), f[2].to_string()))
        })
        .collect()
}

/// The packages an installer script names: its APT_PKGS arrays, its
/// `apt-get install` and `cargo install` lines.
fn installs(script: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join(script)).unwrap();
    let mut out = BTreeSet::new();
    let mut in_array = false;
    for line in text.lines() {
        let l = line.trim();
        let words: Vec<&str> = if let Some(rest) = l.split_once("APT_PKGS=(").or_else(|| l.split_once("APT_PKGS+=(")).map(|x| x.1) {
            in_array = !rest.contains(')');
            rest.split(')').next().unwrap().split_whitespace().collect()
        } else if in_array {
            in_array = !l.contains(')');
            l.split(')').next().unwrap().split_whitespace().collect()
        } else if let Some(rest) = l.split_once("apt-get install").map(|x| x.1) {
            rest.split(['>', '|', ';']).next().unwrap().split_whitespace().filter(|w| !w.starts_with('-')).collect()
        } else if let Some(rest) = l.split_once("pip download").map(|x| x.1) {
            rest.split_whitespace().filter_map(|w| w.trim_matches('"').split_once("==").map(|x| x.0)).collect()
        } else if let Some(rest) = l.split_once("cargo install").map(|x| x.1) {
            let w: Vec<&str> = rest.split_whitespace().collect();
            w.iter().position(|x| *x == "--version").and_then(|i| i.checked_sub(1)).map(|i| vec![w[i]]).unwrap_or_default()
        } else {
            vec![]
        };
        out.extend(words.into_iter().map(|w| w.trim_matches('"').to_string()));
    }
    out
}

#[test]
fn every_listed_program_is_installed_by_its_set_up() {
    let deps_installs = installs("scripts/deps.sh");
    for (prog, (pkg, by)) in listed() {
        match by.as_str() {
            "scripts/deps.sh" | "kernel/vm/deps.sh" => {
                assert!(installs(&by).contains(&pkg), "{prog}: package {pkg} is not installed by {by}")
            }
            "cargo install" => assert!(deps_installs.contains(&pkg), "{prog}: scripts/deps.sh has no `cargo install ... {pkg}`"),
            "pip download" => assert!(deps_installs.contains(&pkg), "{prog}: scripts/deps.sh has no `pip download {pkg}==...`"),
            "required" => {
                let Ok(o) = std::process::Command::new("dpkg-query").args(["-W", "-f", "${Essential} ${Priority}", &pkg]).output() else {
                    println!("SKIP: no dpkg-query to tell whether {pkg} is required");
                    continue;
                };
                let s = String::from_utf8_lossy(&o.stdout);
                assert!(s.starts_with("yes") || s.contains("required") || s.contains("important"), "{prog}: package {pkg} is neither essential nor required here ({s:?}); install it in a set-up script");
            }
            other => panic!("{prog}: installer `{other}` is not scripts/deps.sh, kernel/vm/deps.sh, cargo install, pip download or required"),
        }
    }
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() && name != "target" && name != "node_modules" && !name.starts_with('.') {
            files(&p, ext, out);
        } else if name.ends_with(ext) {
            out.push(p);
        }
    }
}

/// Programs started by a literal name in the Rust sources.
fn rust_programs() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rs = Vec::new();
    for d in ["kernel", "model", "sim", "verify"] {
        files(&root().join(d), ".rs", &mut rs);
    }
    for f in rs {
        let text = std::fs::read_to_string(&f).unwrap();
        for part in text.split("Command::new(\"").skip(1) {
            let prog = part.split('"').next().unwrap().to_string();
            out.entry(prog).or_insert_with(|| f.display().to_string());
        }
    }
    out
}

/// Programs the scripts look for: `command -v NAME` and the literal names
/// of a `for t in ...` tool check.
fn script_programs() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut sh = Vec::new();
    files(&root().join("kernel/vm"), ".sh", &mut sh);
    files(&root().join("scripts"), ".sh", &mut sh);
    for f in sh {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            for part in l.split("command -v ").skip(1) {
                let w = part.split(|c: char| c.is_whitespace() || c == ')').next().unwrap_or("").trim_matches('"');
                if !w.is_empty() && !w.starts_with('$') {
                    out.entry(w.to_string()).or_insert_with(|| format!("{}:{}", f.display(), i + 1));
                }
            }
            let next_checks = lines.get(i + 1).is_some_and(|n| n.contains("command -v \"$t\""));
            if let Some(list) = l.trim().strip_prefix("for t in ").filter(|_| next_checks) {
                for w in list.split(';').next().unwrap().split_whitespace() {
                    // "$BPFTOOL": its default, from BPFTOOL=${BPFTOOL:-bpftool}
                    let w = w.trim_matches('"');
                    let name = match w.strip_prefix('$') {
                        Some(var) => default_of(&text, var).unwrap_or_else(|| panic!("{}: ${var} has no ${{{var}:-default}}", f.display())),
                        None => w.to_string(),
                    };
                    out.entry(name).or_insert_with(|| format!("{}:{}", f.display(), i + 1));
                }
            }
        }
    }
    out
}

/// `VAR=${VAR:-default}` in a script: the default.
fn default_of(text: &str, var: &str) -> Option<String> {
    let pat = format!("{var}=${{{var}:-");
    let rest = &text[text.find(&pat)? + pat.len()..];
    Some(rest.split('}').next()?.to_string())
}

#[test]
fn every_program_the_code_runs_is_listed() {
    let listed = listed();
    let found: Vec<(String, String)> = rust_programs().into_iter().chain(script_programs()).collect();
    assert!(found.iter().any(|(p, _)| p == "qemu-system-x86_64") && found.iter().any(|(p, _)| p == "perl"), "the scan found too little: {found:?}");
    for (prog, at) in found {
        assert!(listed.contains_key(&prog), "{at} runs `{prog}`, which scripts/programs.tsv does not list with the set-up that installs it");
    }
}
