//! What one guest sent back (guest/init: NAME.out, NAME.err, NAME.rc,
//! NAME.time per plan line), read into JSON.

use std::path::Path;

use serde_json::{json, Value};

/// One plan line's outcome.
#[derive(Debug, Clone)]
pub struct Cmd {
    pub rc: Option<i32>,
    pub out: String,
    pub err: String,
    pub seconds: Option<f64>,
}

pub fn read(dir: &Path, name: &str) -> Option<Cmd> {
    let rd = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).ok();
    let rc = rd("rc")?;
    Some(Cmd {
        rc: rc.trim().parse().ok(),
        out: rd("out").unwrap_or_default(),
        err: rd("err").unwrap_or_default(),
        seconds: rd("time").and_then(|t| t.trim().parse().ok()),
    })
}

/// Why a command gave no usable answer, from its exit code and stderr.
fn failure(name: &str, c: &Option<Cmd>) -> String {
    match c {
        None => format!("{name}: did not run (no result from the guest)"),
        Some(c) if c.rc == Some(124) => format!("{name}: timed out in the guest"),
        Some(c) => {
            let tail: Vec<&str> = c.err.lines().rev().take(3).collect::<Vec<_>>().into_iter().rev().collect();
            format!("{name}: exit {:?}: {}", c.rc, tail.join(" | "))
        }
    }
}

/// The last JSON object a command printed on stdout.
fn json_out(c: &Cmd) -> Option<Value> {
    c.out.lines().rev().find_map(|l| serde_json::from_str::<Value>(l.trim()).ok().filter(Value::is_object))
}

/// xskxceiver-run.sh's `XSKXCEIVER pass=P fail=F skip=S` line and its
/// `XSKXCEIVER-SKIP case: reason` lines.
pub fn xskxceiver(dir: &Path) -> Value {
    let c = read(dir, "xskxceiver");
    let Some(cmd) = &c else { return json!({ "error": failure("xskxceiver", &c) }) };
    let mut v = json!({ "pass": null, "fail": null, "skip": null, "skipped": [], "failed": [], "rc": cmd.rc, "seconds": cmd.seconds });
    for l in cmd.out.lines() {
        if let Some(rest) = l.strip_prefix("XSKXCEIVER ") {
            for kv in rest.split_whitespace() {
                if let Some((k, n)) = kv.split_once('=') {
                    if let Ok(n) = n.parse::<u64>() {
                        v[k] = json!(n);
                    }
                }
            }
        } else if let Some(s) = l.strip_prefix("XSKXCEIVER-SKIP ") {
            v["skipped"].as_array_mut().unwrap().push(json!(s));
        } else if l.starts_with("not ok") {
            v["failed"].as_array_mut().unwrap().push(json!(l));
        }
    }
    if v["pass"].is_null() {
        v["error"] = json!(failure("xskxceiver", &c));
    }
    v
}

/// A campaign's JSON (`ringlab-diff campaign`), or an error.
pub fn campaign(dir: &Path, name: &str) -> Value {
    let c = read(dir, name);
    match c.as_ref().and_then(json_out) {
        Some(mut v) if c.as_ref().is_some_and(|c| matches!(c.rc, Some(0) | Some(1))) => {
            v["name"] = json!(name);
            v["seconds_in_guest"] = json!(c.and_then(|c| c.seconds));
            v
        }
        _ => json!({ "name": name, "error": failure(name, &c) }),
    }
}

/// A fault campaign's JSON (`ringlab-diff faults`), or an error.
pub fn faults(dir: &Path, name: &str) -> Value {
    let c = read(dir, name);
    match c.as_ref().and_then(json_out) {
        Some(mut v) => {
            v["name"] = json!(name);
            v["rc"] = json!(c.and_then(|c| c.rc));
            v
        }
        None => json!({ "name": name, "error": failure(name, &c) }),
    }
}

pub fn probe(dir: &Path) -> Value {
    let c = read(dir, "probe");
    c.as_ref().and_then(json_out).unwrap_or_else(|| json!({ "error": failure("probe", &c) }))
}

/// A number field, 0 when absent.
pub fn n(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(files: &[(&str, &str)]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("ringlab-results-{}-{}", std::process::id(), files.len()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for (f, t) in files {
            std::fs::write(d.join(f), t).unwrap();
        }
        d
    }

    #[test]
    fn xskxceiver_counts_and_skips() {
        let d = dir(&[
            ("xskxceiver.rc", "0\n"),
            ("xskxceiver.out", "ok 1 PASS: SKB SEND_RECEIVE\nok 2 # SKIP SKB UNALIGNED\nXSKXCEIVER pass=1 fail=0 skip=1\nXSKXCEIVER-SKIP UNALIGNED: no hugepages\n"),
        ]);
        let v = xskxceiver(&d);
        assert_eq!((n(&v, "pass"), n(&v, "fail"), n(&v, "skip")), (1, 0, 1));
        assert_eq!(v["skipped"][0], "UNALIGNED: no hugepages");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_campaign_that_timed_out_is_an_error() {
        let d = dir(&[("diff-x.rc", "124\n"), ("diff-x.out", ""), ("diff-x.err", "diff: 10/100\n")]);
        let v = campaign(&d, "diff-x");
        assert!(v["error"].as_str().unwrap().contains("timed out"), "{v}");
        assert!(campaign(&d, "diff-y")["error"].as_str().unwrap().contains("did not run"));
        std::fs::remove_dir_all(&d).ok();
    }
}
