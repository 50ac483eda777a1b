//! What one guest sent back (guest/init: NAME.out, NAME.err, NAME.rc,
//! NAME.time per plan line), read into the typed document.

use std::path::Path;

use serde::de::DeserializeOwned;

use super::doc::{CampaignRun, FaultRun, ProbeRun, Xskxceiver};
use super::kmemleak::{self, Kmemleak};
use crate::diff_doc::DiffDoc;
use crate::faults::rx::FaultRxReport;
use crate::faults::FaultReport;
use crate::probe::Probe;

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

/// The last line of stdout that reads as a `T` (each command prints its
/// document as one JSON object).
fn json_out<T: DeserializeOwned>(c: &Cmd) -> Option<T> {
    c.out.lines().rev().find_map(|l| serde_json::from_str::<T>(l.trim()).ok())
}

/// xskxceiver-run.sh's `XSKXCEIVER pass=P fail=F skip=S` line and its
/// `XSKXCEIVER-SKIP case: reason` lines.
pub fn xskxceiver(dir: &Path) -> Xskxceiver {
    let c = read(dir, "xskxceiver");
    let Some(cmd) = &c else { return Xskxceiver { error: Some(failure("xskxceiver", &c)), ..Default::default() } };
    let mut v = Xskxceiver { rc: cmd.rc, seconds: cmd.seconds, ..Default::default() };
    for l in cmd.out.lines() {
        if let Some(rest) = l.strip_prefix("XSKXCEIVER ") {
            for kv in rest.split_whitespace() {
                let Some((k, n)) = kv.split_once('=') else { continue };
                let Ok(n) = n.parse::<u64>() else { continue };
                match k {
                    "pass" => v.pass = Some(n),
                    "fail" => v.fail = Some(n),
                    "skip" => v.skip = Some(n),
                    _ => {}
                }
            }
        } else if let Some(s) = l.strip_prefix("XSKXCEIVER-SKIP ") {
            v.skipped.push(s.to_string());
        } else if l.starts_with("not ok") {
            v.failed.push(l.to_string());
        }
    }
    if v.pass.is_none() {
        v.error = Some(failure("xskxceiver", &c));
    }
    v
}

/// A campaign's document (`ringlab diff --json` in the guest), or why
/// there is none. A campaign exits 0 (agreed) or 1 (diverged).
pub fn campaign(dir: &Path, name: &str) -> CampaignRun {
    let c = read(dir, name);
    let doc = c.as_ref().filter(|c| matches!(c.rc, Some(0) | Some(1))).and_then(json_out::<DiffDoc>);
    match doc {
        Some(doc) => CampaignRun { name: name.into(), doc: Some(doc), seconds_in_guest: c.and_then(|c| c.seconds), error: None },
        None => CampaignRun { name: name.into(), error: Some(failure(name, &c)), ..Default::default() },
    }
}

/// What a fault campaign printed: its report (`ringlab faults --json`:
/// FaultReport; with `--rx`: FaultRxReport), or why it could not inject.
#[derive(serde::Deserialize)]
struct FaultOut<R> {
    #[serde(default)]
    skipped: Option<String>,
    #[serde(flatten)]
    report: R,
}

/// A fault campaign's document, or why there is none.
pub fn faults(dir: &Path, name: &str) -> FaultRun {
    fault_run(dir, name, |r, report: FaultReport| r.report = Some(report))
}

/// The receive-path fault campaign's document, or why there is none.
pub fn faults_rx(dir: &Path, name: &str) -> FaultRun {
    fault_run(dir, name, |r, report: FaultRxReport| r.rx = Some(report))
}

/// Step `name`'s fault document, its report put in place by `put`.
fn fault_run<R: DeserializeOwned>(dir: &Path, name: &str, put: impl FnOnce(&mut FaultRun, R)) -> FaultRun {
    let c = read(dir, name);
    let mut run = FaultRun { name: name.into(), rc: c.as_ref().and_then(|c| c.rc), ..Default::default() };
    match c.as_ref().and_then(json_out::<FaultOut<R>>) {
        Some(FaultOut { skipped: Some(why), .. }) => run.skipped = Some(why),
        Some(FaultOut { report, .. }) => put(&mut run, report),
        None => run.error = Some(failure(name, &c)),
    }
    run
}

/// kmemleak's clear before the campaigns and its report after them.
pub fn kmemleak(dir: &Path) -> Kmemleak {
    let clear = read(dir, kmemleak::CLEAR_STEP);
    match &clear {
        Some(c) if c.out.contains("KMEMLEAK-SKIP ") => return kmemleak::parse_output(&c.out),
        Some(c) if c.rc == Some(0) && c.out.contains("KMEMLEAK cleared") => {}
        _ => return Kmemleak { error: Some(failure(kmemleak::CLEAR_STEP, &clear)), ..Default::default() },
    }
    let scan = read(dir, kmemleak::SCAN_STEP);
    match &scan {
        Some(c) if c.rc == Some(0) => kmemleak::parse_output(&c.out),
        _ => Kmemleak { error: Some(failure(kmemleak::SCAN_STEP, &scan)), ..Default::default() },
    }
}

/// `ringlab tun-vhost --json`'s document, or why there is none.
pub fn tun(dir: &Path) -> super::doc::TunRun {
    let c = read(dir, TUN_STEP);
    match c.as_ref().and_then(json_out::<crate::tun_vhost::TunVhostDoc>) {
        Some(d) => super::doc::TunRun { doc: Some(d), error: None },
        None => super::doc::TunRun { error: Some(failure(TUN_STEP, &c)), doc: None },
    }
}

pub const TUN_STEP: &str = "tun-vhost";

/// `ringlab devmem --json`'s document, or why there is none.
pub fn devmem(dir: &Path, step: &super::vm::DevmemStep) -> super::doc::DevmemRun {
    let c = read(dir, DEVMEM_STEP);
    let asked = step.modes.split(',').map(String::from).collect();
    match c.as_ref().and_then(json_out::<crate::devmem::doc::DevmemDoc>) {
        Some(d) => super::doc::DevmemRun { asked, doc: Some(d), error: None },
        None => super::doc::DevmemRun { asked, error: Some(failure(DEVMEM_STEP, &c)), doc: None },
    }
}

pub const DEVMEM_STEP: &str = "devmem";

pub fn probe(dir: &Path) -> ProbeRun {
    let c = read(dir, "probe");
    match c.as_ref().and_then(json_out::<Probe>) {
        Some(p) => ProbeRun { probe: Some(p), error: None },
        None => ProbeRun { error: Some(failure("probe", &c)), probe: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(files: &[(&str, &str)]) -> std::path::PathBuf {
        // one folder per call: tests run in parallel
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let k = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("ringlab-results-{}-{k}", std::process::id()));
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
        assert_eq!((v.pass, v.fail, v.skip), (Some(1), Some(0), Some(1)));
        assert_eq!(v.skipped[0], "UNALIGNED: no hugepages");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn kmemleak_read_from_both_steps() {
        let d = dir(&[
            ("kmemleak-clear.rc", "0\n"),
            ("kmemleak-clear.out", "KMEMLEAK cleared\n"),
            ("kmemleak.rc", "0\n"),
            ("kmemleak.out", "KMEMLEAK scans=2\nunreferenced object 0xffff888004a1c000 (size 64):\n  comm \"ringlab\", pid 9, jiffies 1\n  backtrace (crc 1):\n    __alloc_skb+0x9c/0x1a0\n"),
        ]);
        let k = kmemleak(&d);
        assert_eq!((k.scans, k.unreferenced), (2, 1));
        assert_eq!(k.first.unwrap().backtrace, vec!["__alloc_skb+0x9c/0x1a0"]);
        std::fs::write(d.join("kmemleak-clear.out"), "KMEMLEAK-SKIP no /sys/kernel/debug/kmemleak\n").unwrap();
        assert_eq!(kmemleak(&d).skipped.as_deref(), Some("no /sys/kernel/debug/kmemleak"));
        std::fs::remove_file(d.join("kmemleak-clear.rc")).unwrap();
        assert!(kmemleak(&d).error.unwrap().contains("kmemleak-clear: did not run"));
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn each_fault_report_goes_to_its_field() {
        let tx = serde_json::to_string(&FaultReport { injected: 3, ..Default::default() }).unwrap();
        let mut rx = serde_json::to_value(FaultRxReport::default()).unwrap();
        rx["skipped"] = "no failslab".into();
        let d = dir(&[("f-tx.rc", "0\n"), ("f-tx.out", &tx), ("f-rx.rc", "0\n"), ("f-rx.out", &rx.to_string())]);
        let t = faults(&d, "f-tx");
        assert!(t.report.is_some_and(|r| r.injected == 3) && t.rx.is_none() && t.error.is_none());
        let r = faults_rx(&d, "f-rx");
        assert!(r.skipped.as_deref() == Some("no failslab") && r.rx.is_none() && r.report.is_none(), "{r:?}");
        assert!(faults_rx(&d, "f-none").error.unwrap().contains("did not run"));
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_campaign_that_timed_out_is_an_error() {
        let d = dir(&[("diff-x.rc", "124\n"), ("diff-x.out", ""), ("diff-x.err", "diff: 10/100\n")]);
        let v = campaign(&d, "diff-x");
        assert!(v.error.as_deref().unwrap().contains("timed out"), "{v:?}");
        assert!(campaign(&d, "diff-y").error.unwrap().contains("did not run"));
        std::fs::remove_dir_all(&d).ok();
    }
}
