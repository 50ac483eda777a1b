//! The reproducers of `ringlab repro` in the VM: each kernel booted once
//! more with them alone, since a kernel without the fix crashes and takes
//! the rest of its plan down with it. The released kernel must crash (else
//! the reproducer no longer shows the bug and could not fail); a series
//! that carries the fix must survive with the fix's answer; any other
//! series' crash is recorded as the released kernel's bug, not its own.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::crash::Crash;
use super::series::Series;
use super::vm::{self, BootError, Kernel};
use crate::repro::RxRingMissing;

/// The plan step, and the fill entries of each run (0: the generic path
/// crashes in xsk_flush(); 4: one step earlier, in __xsk_rcv_zc()).
const STEPS: [(&str, u32); 2] = [("repro-rx-ring-missing-fill0", 0), ("repro-rx-ring-missing-fill4", 4)];
/// Seconds a step may take in the guest (a healthy one takes under 5).
const STEP_LIMIT: u64 = 120;

/// One kernel's answer to the reproducers.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReproRun {
    /// Whether the series this kernel is built from carries the fix.
    pub fixed: bool,
    /// Each step's answer, where the kernel survived it.
    #[serde(default)]
    pub runs: Vec<RxRingMissing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<Crash>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub seconds: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReproPair {
    pub baseline: ReproRun,
    pub patched: ReproRun,
}

/// Whether a patch of `s` adds the check of kernel/patches/xsk-rx-ring-check
/// (a `+` line testing `!xs->rx` in net/xdp/xsk.c's receive check).
pub fn carries_fix(s: &Series) -> bool {
    s.adds(Some("net/xdp/xsk.c"), "unlikely(!xs->rx)")
}

/// The reproducers' plan; with `redirect_xsk` (a series that adds
/// XDP_REDIRECT_XSK) through bpf_redirect_xsk(), whose fallback must take
/// every frame.
pub fn plan_text(redirect_xsk: bool) -> String {
    let mut t = String::from("# written by ringlab kernel-test: the reproducers alone (a kernel without the fix crashes)\n");
    let how = if redirect_xsk { " --redirect xsk" } else { "" };
    for (name, fill) in STEPS {
        t += &format!("{name} {STEP_LIMIT} /ringlab/ringlab repro rx-ring-missing --this-kernel-may-crash --fill {fill}{how}\n");
    }
    t
}

/// Boots `k` with the reproducers (`redirect_xsk`: as plan_text).
pub fn run(root: &Path, k: &Kernel, payload: &Path, fixed: bool, redirect_xsk: bool) -> ReproRun {
    let t = std::time::Instant::now();
    let limit = STEP_LIMIT * STEPS.len() as u64 + 300;
    let mut r = ReproRun { fixed, ..Default::default() };
    match vm::boot_text(root, k, "repro", &plan_text(redirect_xsk), limit, payload) {
        Ok(res) => {
            for (name, _) in STEPS {
                let out = res.join(format!("{name}.out"));
                match std::fs::read_to_string(&out).map_err(|e| e.to_string()).and_then(|s| serde_json::from_str::<RxRingMissing>(s.trim()).map_err(|e| e.to_string())) {
                    Ok(x) => r.runs.push(x),
                    Err(e) => r.error = Some(format!("{name}: no answer in {} ({e})", out.display())),
                }
            }
        }
        Err(BootError::Crashed(c)) => r.crash = Some(c),
        Err(BootError::Other(e)) => r.error = Some(e),
    }
    r.seconds = (t.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    r
}

impl ReproPair {
    /// Every reason the reproducers' answers are not what they must be.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        let b = &self.baseline;
        if let Some(e) = &b.error {
            p.push(format!("repro on the released kernel did not run: {e}"));
        } else if b.crash.is_none() {
            p.push("repro rx-ring-missing: the released kernel did not crash, so the reproducer no longer shows the bug and could not fail".into());
        }
        let k = &self.patched;
        if let Some(e) = &k.error {
            p.push(format!("repro on the patched kernel did not run: {e}"));
        } else if k.fixed {
            if let Some(c) = &k.crash {
                p.push(format!("repro rx-ring-missing: the series carries the fix, yet {}", c.summary()));
            }
            for x in k.runs.iter().filter(|x| !x.ok()) {
                p.push(format!("repro rx-ring-missing (fill {}): {}", x.filled, x.problems.join("; ")));
            }
            if k.crash.is_none() && k.runs.len() != STEPS.len() {
                p.push(format!("repro rx-ring-missing: {} of {} steps answered", k.runs.len(), STEPS.len()));
            }
        }
        p
    }

    /// One line for the table.
    pub fn words(&self) -> String {
        let one = |r: &ReproRun| match (&r.error, &r.crash) {
            (Some(e), _) => format!("did not run ({e})"),
            (None, Some(c)) => format!("crashed ({})", c.lines.first().map(String::as_str).unwrap_or("?")),
            (None, None) if r.runs.iter().all(RxRingMissing::ok) => format!("dropped every frame ({} runs)", r.runs.len()),
            (None, None) => "survived, wrongly".into(),
        };
        format!("released kernel {}; patched kernel {}{}", one(&self.baseline), one(&self.patched), if self.patched.fixed { "" } else { " (the series does not carry the fix)" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crashed() -> ReproRun {
        ReproRun { crash: Some(Crash { step: STEPS[0].0.into(), lines: vec!["BUG: kernel NULL pointer dereference".into()], console: "c".into() }), ..Default::default() }
    }

    fn survived(fixed: bool) -> ReproRun {
        let x = RxRingMissing { kernel: "k".into(), filled: 0, frames_sent: 8, redirected: 8, fill: (0, 0), rx_counters: [0; 3], paths: None, problems: vec![] };
        ReproRun { fixed, runs: vec![x.clone(), RxRingMissing { filled: 4, fill: (4, 0), ..x }], ..Default::default() }
    }

    #[test]
    fn the_fix_passes_and_a_series_without_it_is_not_blamed() {
        assert!(ReproPair { baseline: crashed(), patched: survived(true) }.problems().is_empty());
        assert!(ReproPair { baseline: crashed(), patched: ReproRun { fixed: false, ..crashed() } }.problems().is_empty());
    }

    #[test]
    fn a_released_kernel_that_survives_or_a_fix_that_crashes_fails() {
        let p = ReproPair { baseline: survived(false), patched: survived(true) }.problems();
        assert!(p.len() == 1 && p[0].contains("could not fail"), "{p:?}");
        let p = ReproPair { baseline: crashed(), patched: ReproRun { fixed: true, ..crashed() } }.problems();
        assert!(p.len() == 1 && p[0].contains("carries the fix, yet"), "{p:?}");
        let mut wrong = survived(true);
        wrong.runs[1].problems.push("fill ring moved".into());
        let p = ReproPair { baseline: crashed(), patched: wrong }.problems();
        assert!(p.len() == 1 && p[0].contains("fill 4"), "{p:?}");
    }

    #[test]
    fn the_fix_is_found_in_net_xdp_xsk_c_only() {
        let plan = plan_text(true);
        assert!(plan.lines().filter(|l| !l.starts_with('#')).all(|l| l.ends_with("--redirect xsk")), "{plan}");
        assert!(!plan_text(false).contains("redirect"));
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("patches");
        assert!(carries_fix(&Series::read(&root.join("xsk-rx-ring-check")).unwrap()));
        assert!(carries_fix(&Series::read(&root.join("xsk-redirect-xsk")).unwrap()));
        assert!(!carries_fix(&Series::read(&root.join("xsk-batch-xmit")).unwrap()));
    }
}
