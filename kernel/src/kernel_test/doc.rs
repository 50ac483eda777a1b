//! The kernel-test document (target/ringlab/kernel/kernel.json, the
//! "kernel" section of `ringlab verify --json --kernel`) as types: what
//! each step found, and every reason it is not a pass.

use serde::{Deserialize, Serialize};

use ringlab_model::schema::Header;

use super::series::{Checkpatch, Step};
use crate::diff_doc::DiffDoc;
use super::kmemleak::Kmemleak;
use crate::faults::rx::FaultRxReport;
use crate::faults::FaultReport;
use crate::probe::Probe;

/// `ringlab kernel-test`'s whole result.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct KernelDoc {
    #[serde(flatten)]
    pub header: Header,
    /// The series folder (the repository's own by its relative path).
    pub series: String,
    pub patches: usize,
    pub checkpatch_warnings: u64,
    pub checkpatch_errors: u64,
    pub checkpatch_checks: u64,
    pub checkpatch: Vec<Checkpatch>,
    pub w1: W1,
    /// Whether kernels were built and booted (false with --no-vm).
    pub vm: bool,
    pub seed: u64,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub guests: Option<Guests>,
    /// Every reason the document is not a pass, one line each.
    #[serde(default)]
    pub problems: Vec<String>,
    pub ok: bool,
}

/// Every patch applied with `git am` and built with W=1.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct W1 {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub targets: Vec<String>,
    #[serde(default)]
    pub baseline_warnings: u32,
    #[serde(default)]
    pub applied: usize,
    #[serde(default)]
    pub new_warnings: usize,
    #[serde(default)]
    pub steps: Vec<Step>,
}

/// What the released and the patched guest (and each mutant's) returned.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Guests {
    pub xskxceiver: XskxceiverPair,
    pub diff: DiffRuns,
    pub faults: FaultRuns,
    /// What kmemleak found in each guest after the campaigns.
    #[serde(default)]
    pub kmemleak: KmemleakPair,
    pub mutants: Vec<MutantRun>,
    /// `ringlab repro` on the released and the patched kernel, each in a
    /// boot of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repro: Option<super::repro::ReproPair>,
    pub probe: ProbePair,
    pub times: Times,
    pub scenarios_per_campaign: u64,
    /// The tun workload (`ringlab tun-vhost`) of a series that touches
    /// tun, whose guests run it instead of the AF_XDP campaigns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tun: Option<TunPair>,
    /// The devmem receiver (`ringlab devmem`) of a series that changes
    /// devmem, whose guests run it instead of the AF_XDP campaigns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devmem: Option<DevmemPair>,
}

impl Guests {
    /// Whether the guests ran the AF_XDP campaigns (and xskxceiver): not
    /// for a series with a workload of its own.
    pub fn af_xdp(&self) -> bool {
        self.tun.is_none() && self.devmem.is_none()
    }
}

/// `ringlab devmem` in the released and the patched guest.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DevmemPair {
    pub baseline: DevmemRun,
    pub patched: DevmemRun,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DevmemRun {
    /// The token modes the guest was asked to run.
    pub asked: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<crate::devmem::doc::DevmemDoc>,
}

impl DevmemRun {
    /// Why the run is not a pass: no answer, a mode asked for that did
    /// not run (its binding refused, or no frag received: the comparison
    /// could not fail), or any divergence from the model.
    pub fn problems(&self) -> Vec<String> {
        let Some(d) = &self.doc else {
            return vec![self.error.clone().unwrap_or_else(|| "devmem: no result".into())];
        };
        let mut p: Vec<String> = d.problems().into_iter().map(|l| format!("devmem {l}")).collect();
        for m in &self.asked {
            match d.runs.iter().find(|r| &r.mode == m) {
                None => p.push(format!("devmem: mode {m} did not run")),
                Some(r) if r.skipped.is_some() => p.push(format!("devmem {m}: {}", r.skipped.as_deref().unwrap_or_default())),
                Some(r) if r.frags == 0 => p.push(format!("devmem {m}: no frag was received, so nothing was compared")),
                Some(_) => {}
            }
        }
        p
    }
}

/// `ringlab tun-vhost` in the released and the patched guest.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TunPair {
    pub baseline: TunRun,
    pub patched: TunRun,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TunRun {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<crate::tun_vhost::TunVhostDoc>,
}

impl TunRun {
    /// Why the run is not a pass: no answer, no frame sent, no fault
    /// fired in all its failslab runs (they could not have failed), or
    /// frames not conserved. One batch size's failslab run may see no
    /// fault: the patched kernel calls the slab once per 16 heads or so.
    /// `counts_every_drop`: the kernel has the series, whose tun counts
    /// every frame it drops, so no frame may be lost even under faults;
    /// 6.12.117 may lose one per fault, uncounted.
    pub fn problems(&self, counts_every_drop: bool) -> Vec<String> {
        let Some(d) = &self.doc else {
            return vec![self.error.clone().unwrap_or_else(|| "tun-vhost: no result".into())];
        };
        let mut p = d.problems.clone();
        if counts_every_drop {
            p.extend(d.runs.iter().filter_map(crate::tun_vhost::BatchRun::uncounted_problem));
        }
        if d.runs.iter().all(|r| r.frames == 0) {
            p.push("tun-vhost: no frame was sent".into());
        }
        let faulted: Vec<_> = d.runs.iter().filter(|r| r.failslab > 0).collect();
        if !faulted.is_empty() && faulted.iter().all(|r| r.faults == 0) {
            p.push("tun-vhost: no failslab fault fired, so the fault runs could not fail".into());
        }
        p
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct XskxceiverPair {
    /// The patched kernel's counts, repeated at the top for the summary line.
    pub pass: Option<u64>,
    pub fail: Option<u64>,
    pub skip: Option<u64>,
    pub baseline: Xskxceiver,
    pub patched: Xskxceiver,
}

/// xskxceiver-run.sh's summary in one guest.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Xskxceiver {
    pub pass: Option<u64>,
    pub fail: Option<u64>,
    pub skip: Option<u64>,
    #[serde(default)]
    pub skipped: Vec<String>,
    #[serde(default)]
    pub failed: Vec<String>,
    #[serde(default)]
    pub rc: Option<i32>,
    #[serde(default)]
    pub seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One differential campaign in a guest, or why it gave no answer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CampaignRun {
    /// The plan line's name, e.g. diff-batch16-budget64.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<DiffDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_in_guest: Option<f64>,
}

impl CampaignRun {
    pub fn scenarios(&self) -> u64 {
        self.doc.as_ref().map_or(0, |d| d.scenarios)
    }
    pub fn divergences(&self) -> u64 {
        self.doc.as_ref().map_or(0, |d| d.divergences)
    }
    /// Kernel traces the spec accepted, and rejected, where the host
    /// validated them.
    pub fn chain(&self) -> (u64, u64) {
        self.doc.as_ref().and_then(|d| d.chain.as_ref()).map_or((0, 0), |c| (c.validated, c.rejected))
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct KmemleakPair {
    pub baseline: Kmemleak,
    pub patched: Kmemleak,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DiffRuns {
    pub baseline: CampaignRun,
    pub patched: PatchedRuns,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PatchedRuns {
    pub scenarios: u64,
    pub divergences: u64,
    pub runs: Vec<CampaignRun>,
}

/// One fault-injection campaign in a guest, or why it gave no answer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FaultRun {
    pub name: String,
    /// Which kernel: baseline, patched (a mutant's runs have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The guest could not inject faults, and said why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(default)]
    pub rc: Option<i32>,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub report: Option<FaultReport>,
    /// The receive-path campaign's report (faults-rx).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx: Option<FaultRxReport>,
}

impl FaultRun {
    fn count(&self, f: fn(&FaultReport) -> u64, g: fn(&FaultRxReport) -> u64) -> u64 {
        self.report.as_ref().map_or(0, f) + self.rx.as_ref().map_or(0, g)
    }
    pub fn injected(&self) -> u64 {
        self.count(|r| r.injected, |r| r.injected)
    }
    /// Frames lost: submitted and never completed (TX), in no counter (RX).
    pub fn lost(&self) -> u64 {
        self.count(|r| r.lost, |r| r.lost)
    }
    /// Completed twice (TX); counted twice, or frames or buffers on the
    /// RX ring twice (RX).
    pub fn double(&self) -> u64 {
        self.count(|r| r.double, |r| r.double)
    }
    /// CQ slots leaked (TX), fill-ring buffers lost (RX).
    pub fn leaks(&self) -> u64 {
        self.count(|r| r.leaks, |r| r.leaks)
    }
    /// The ledger's lines where it does not balance.
    pub fn problems(&self) -> Vec<String> {
        match (&self.report, &self.rx) {
            (_, Some(rx)) => rx.problems.clone(),
            (Some(r), None) if self.lost() + self.double() + self.leaks() > 0 => {
                vec![format!("{} lost, {} completed twice, {} CQ slots leaked", r.lost, r.double, r.leaks)]
            }
            _ => vec![],
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FaultRuns {
    pub injected: u64,
    pub leaks: u64,
    pub lost: u64,
    pub double: u64,
    pub runs: Vec<FaultRun>,
}

impl FaultRuns {
    pub fn of(runs: Vec<FaultRun>) -> FaultRuns {
        let sum = |f: fn(&FaultRun) -> u64| runs.iter().map(f).sum();
        FaultRuns { injected: sum(FaultRun::injected), leaks: sum(FaultRun::leaks), lost: sum(FaultRun::lost), double: sum(FaultRun::double), runs }
    }
}

/// A mutant patch on top of the series: built, booted and compared.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MutantRun {
    pub patch: String,
    pub caught: bool,
    #[serde(default)]
    pub caught_by: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub divergence: Option<crate::campaign::Replay>,
    #[serde(default)]
    pub runs: Vec<CampaignRun>,
    #[serde(default)]
    pub faults: Vec<FaultRun>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kmemleak: Option<Kmemleak>,
    /// The guest's kernel crashed (oops, BUG, stall, lockup): what and
    /// in which plan step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<super::crash::Crash>,
    #[serde(default)]
    pub times: Option<MutantTimes>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MutantTimes {
    pub build_s: f64,
    pub boot_s: f64,
}

/// What each guest's kernel offered, or why the probe gave no answer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProbePair {
    pub baseline: ProbeRun,
    pub patched: ProbeRun,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProbeRun {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Probe>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Times {
    pub build_baseline_s: f64,
    pub build_patched_s: f64,
    pub boot_baseline_s: f64,
    pub boot_patched_s: f64,
}

impl KernelDoc {
    pub const DOCUMENT: &'static str = "kernel-test";

    /// Every reason the document is not a pass, one line each.
    pub fn find_problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        if self.checkpatch_errors + self.checkpatch_warnings > 0 {
            p.push(format!("checkpatch --strict: {} errors, {} warnings", self.checkpatch_errors, self.checkpatch_warnings));
        }
        let w1 = &self.w1;
        if let Some(e) = &w1.error {
            p.push(format!("W=1 check did not run: {e}"));
        } else {
            if w1.applied != self.patches {
                p.push(format!("only {} of {} patches apply with git am", w1.applied, self.patches));
            }
            if w1.new_warnings > 0 {
                p.push(format!("W=1 builds add {} warnings", w1.new_warnings));
            }
            for st in &w1.steps {
                if let Some(e) = &st.error {
                    p.push(format!("{}: {e}", st.patch));
                }
            }
        }
        let Some(g) = self.guests.as_ref().filter(|_| self.vm) else {
            return p;
        };
        if let Some(t) = &g.tun {
            for (k, r, exact) in [("baseline", &t.baseline, false), ("patched", &t.patched, true)] {
                p.extend(r.problems(exact).into_iter().map(|l| format!("{k} kernel: {l}")));
            }
        }
        if let Some(dm) = &g.devmem {
            for (k, r) in [("baseline", &dm.baseline), ("patched", &dm.patched)] {
                p.extend(r.problems().into_iter().map(|l| format!("{k} kernel: {l}")));
            }
        }
        // a tun or devmem series' guests run their workload, not the AF_XDP ones
        let xsk: &[(&str, &Xskxceiver)] = if !g.af_xdp() { &[] } else { &[("baseline", &g.xskxceiver.baseline), ("patched", &g.xskxceiver.patched)] };
        for &(k, x) in xsk {
            if let Some(e) = &x.error {
                p.push(format!("xskxceiver on the {k} kernel: {e}"));
            } else if x.fail.unwrap_or(0) > 0 || x.pass.unwrap_or(0) == 0 {
                p.push(format!("xskxceiver on the {k} kernel: {} passed, {} failed", opt(x.pass), opt(x.fail)));
            }
        }
        let campaigns = std::iter::once(("baseline", &g.diff.baseline)).filter(|_| g.af_xdp()).chain(g.diff.patched.runs.iter().map(|r| ("patched", r)));
        for (k, c) in campaigns {
            if let Some(e) = &c.error {
                p.push(format!("{k} {e}"));
            } else if c.divergences() > 0 {
                p.push(format!("{k} {}: {} divergences", c.name, c.divergences()));
            } else if c.scenarios() == 0 {
                p.push(format!("{k} {}: no scenario ran", c.name));
            }
            if c.doc.as_ref().is_some_and(DiffDoc::fast_path_never_taken) {
                p.push(format!("{k} {}: bpf_redirect_xsk()'s fast path was never taken: the check could not fail", c.name));
            }
            if c.doc.as_ref().is_some_and(DiffDoc::fallback_never_taken) {
                p.push(format!("{k} {}: bpf_redirect_xsk()'s fallback was never taken", c.name));
            }
            if let Some(ch) = c.doc.as_ref().and_then(|d| d.chain.as_ref()).filter(|ch| !ch.ok()) {
                p.push(format!("{k} {}: {}", c.name, ch.words()));
            }
        }
        p.extend(g.repro.iter().flat_map(super::repro::ReproPair::problems));
        for f in &g.faults.runs {
            let name = format!("{} {}", f.kernel_label.as_deref().unwrap_or("?"), f.name);
            if let Some(e) = &f.error {
                p.push(format!("{name}: {e}"));
            } else if let Some(why) = &f.skipped {
                p.push(format!("{name}: skipped ({why})"));
            } else if f.injected() == 0 {
                p.push(format!("{name}: no fault was injected, so the campaign could not fail"));
            } else {
                p.extend(f.problems().into_iter().map(|l| format!("{name}: {l}")));
            }
        }
        for (k, m) in [("baseline", &g.kmemleak.baseline), ("patched", &g.kmemleak.patched)] {
            if let Some(l) = m.problem() {
                p.push(format!("{k} kernel: {l}"));
            }
        }
        for m in g.mutants.iter().filter(|m| !m.caught) {
            let why = m.error.as_ref().map(|e| format!(" ({e})")).unwrap_or_default();
            p.push(format!("mutant {} was not caught{why}", m.patch));
        }
        p
    }
}

/// A count that may be missing, as printed.
pub fn opt(n: Option<u64>) -> String {
    n.map_or_else(|| "?".into(), |n| n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaign(name: &str, scenarios: u64, divergences: u64) -> CampaignRun {
        CampaignRun { name: name.into(), doc: Some(DiffDoc { scenarios, divergences, ..Default::default() }), ..Default::default() }
    }

    fn passing() -> KernelDoc {
        let x = Xskxceiver { pass: Some(3), fail: Some(0), ..Default::default() };
        let clean = Kmemleak { scans: 2, ..Default::default() };
        let fault = FaultRun {
            name: "faults-batch0-budget32".into(),
            kernel_label: Some("baseline".into()),
            report: Some(FaultReport { injected: 4, ..Default::default() }),
            ..Default::default()
        };
        KernelDoc {
            patches: 2,
            w1: W1 { applied: 2, ..Default::default() },
            vm: true,
            guests: Some(Guests {
                xskxceiver: XskxceiverPair { baseline: x.clone(), patched: x, ..Default::default() },
                diff: DiffRuns {
                    baseline: campaign("diff-mainline", 5, 0),
                    patched: PatchedRuns { runs: vec![campaign("diff-batch16-budget64", 5, 0)], ..Default::default() },
                },
                faults: FaultRuns::of(vec![fault]),
                kmemleak: KmemleakPair { baseline: clean.clone(), patched: clean },
                mutants: vec![MutantRun { patch: "m.patch".into(), caught: true, ..Default::default() }],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_clean_document_has_no_problems() {
        assert_eq!(passing().find_problems(), Vec::<String>::new());
    }

    #[test]
    fn every_failure_is_named() {
        let mut d = passing();
        d.checkpatch_warnings = 1;
        let g = d.guests.as_mut().unwrap();
        g.diff.patched.runs[0].doc.as_mut().unwrap().divergences = 2;
        g.faults.runs[0].report.as_mut().unwrap().injected = 0;
        g.mutants[0].caught = false;
        g.xskxceiver.patched.fail = Some(1);
        let p = d.find_problems();
        assert_eq!(p.len(), 5, "{p:?}");
        assert!(p.iter().any(|l| l.contains("could not fail")));
        assert!(p.iter().any(|l| l.contains("m.patch was not caught")));
    }

    #[test]
    fn a_redirect_xsk_campaign_that_never_took_a_path_is_named() {
        use crate::bpf::{Paths, Redirect};
        let mut d = passing();
        let mut run = campaign("diff-redirect-xsk", 5, 0);
        run.doc.as_mut().unwrap().redirect = Redirect::Xsk;
        run.doc.as_mut().unwrap().paths = Some(Paths { fast_path: 7, fallback: 2 });
        d.guests.as_mut().unwrap().diff.patched.runs.push(run);
        assert_eq!(d.find_problems(), Vec::<String>::new());
        let paths = &mut d.guests.as_mut().unwrap().diff.patched.runs[1].doc.as_mut().unwrap().paths;
        *paths = Some(Paths { fast_path: 0, fallback: 0 });
        let p = d.find_problems();
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("patched diff-redirect-xsk: bpf_redirect_xsk()'s fast path was never taken: the check could not fail"), "{p:?}");
        assert!(p[1].contains("fallback was never taken"), "{p:?}");
    }

    #[test]
    fn kmemleak_leaks_and_skips_fail_the_run() {
        use super::super::kmemleak::Leak;
        let mut d = passing();
        let g = d.guests.as_mut().unwrap();
        g.kmemleak.patched = Kmemleak {
            scans: 2,
            unreferenced: 3,
            first: Some(Leak { object: "0xffff888004a1c000".into(), size: 232, comm: "\"ringlab\", pid 9".into(), backtrace: vec!["__alloc_skb+0x9c/0x1a0".into(), "veth_xdp_rcv+0x1f3/0x2d0".into()] }),
            ..Default::default()
        };
        g.kmemleak.baseline = Kmemleak { skipped: Some("no /sys/kernel/debug/kmemleak".into()), ..Default::default() };
        let p = d.find_problems();
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[0], "baseline kernel: kmemleak: SKIP (no /sys/kernel/debug/kmemleak): leaks were not checked");
        assert!(p[1].starts_with("patched kernel: kmemleak: 3 unreferenced objects; the first, 0xffff888004a1c000"), "{p:?}");
        assert!(p[1].ends_with("allocated at __alloc_skb+0x9c/0x1a0 <- veth_xdp_rcv+0x1f3/0x2d0"), "{p:?}");
        // a guest whose scan never ran is no pass either
        d.guests.as_mut().unwrap().kmemleak.baseline = Kmemleak::default();
        assert!(d.find_problems()[0].contains("no scan ran"));
    }

    #[test]
    fn a_receive_fault_ledger_that_does_not_balance_fails() {
        use crate::faults::rx::{FaultRxReport, Ledger};
        let mut d = passing();
        let ledger = Ledger { sent: 10, redirected: 9, on_rx_ring: 9, ..Default::default() };
        let rx = FaultRxReport { injected: 5, problems: ledger.check(), lost: 1, ledger, ..Default::default() };
        let run = FaultRun { name: "faults-rx".into(), kernel_label: Some("patched".into()), rx: Some(rx), ..Default::default() };
        d.guests.as_mut().unwrap().faults = FaultRuns::of(vec![run.clone()]);
        let p = d.find_problems();
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("patched faults-rx: 1 frames in no counter: 10 sent"), "{p:?}");
        assert_eq!(d.guests.as_ref().unwrap().faults.lost, 1);
        // none injected: the campaign could not fail
        let mut quiet = run;
        quiet.rx.as_mut().unwrap().injected = 0;
        d.guests.as_mut().unwrap().faults = FaultRuns::of(vec![quiet]);
        assert!(d.find_problems()[0].contains("no fault was injected"));
    }

    #[test]
    fn the_document_reads_back() {
        use crate::faults::rx::{FaultRxReport, Ledger};
        let mut d = passing();
        let rx = FaultRxReport { injected: 3, ledger: Ledger { sent: 4, ..Default::default() }, ..Default::default() };
        let g = d.guests.as_mut().unwrap();
        let mut runs = g.faults.runs.clone();
        runs.push(FaultRun { name: "faults-rx".into(), kernel_label: Some("baseline".into()), rx: Some(rx), ..Default::default() });
        g.faults = FaultRuns::of(runs);
        d.problems = d.find_problems();
        let text = serde_json::to_string(&d).unwrap();
        let back: KernelDoc = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        // The summary keys stay where readers of kernel.json find them.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["diff"]["patched"]["runs"][0]["name"], "diff-batch16-budget64");
        assert_eq!(v["faults"]["injected"], 7);
        assert_eq!(v["faults"]["runs"][1]["rx"]["ledger"]["sent"], 4);
        assert!(back.guests.as_ref().unwrap().faults.runs[1].report.is_none());
        assert_eq!(v["kmemleak"]["patched"]["scans"], 2);
        assert_eq!(v["xskxceiver"]["baseline"]["pass"], 3);
    }

    #[test]
    fn a_devmem_series_is_judged_by_its_receiver() {
        use crate::devmem::doc::{DevmemDoc, ModeRun};
        let ran = |mode: &str| ModeRun { mode: mode.into(), rounds: 2, released: 2, frags: 10, ..Default::default() };
        let run = |asked: &[&str], runs: Vec<ModeRun>| DevmemRun {
            asked: asked.iter().map(|m| m.to_string()).collect(),
            doc: Some(DevmemDoc { runs, ..Default::default() }),
            error: None,
        };
        let pair = DevmemPair { baseline: run(&["xarray"], vec![ran("xarray")]), patched: run(&["xarray", "array"], vec![ran("xarray"), ran("array")]) };
        let clean_leaks = Kmemleak { scans: 2, ..Default::default() };
        let kmemleak = KmemleakPair { baseline: clean_leaks.clone(), patched: clean_leaks };
        let mut d = KernelDoc { vm: true, guests: Some(Guests { devmem: Some(pair), kmemleak, ..Default::default() }), ..Default::default() };
        assert!(!d.guests.as_ref().unwrap().af_xdp());
        assert_eq!(d.find_problems(), Vec::<String>::new(), "no AF_XDP campaign or xskxceiver is wanted of a devmem series");
        fn dm(d: &mut KernelDoc) -> &mut DevmemPair {
            d.guests.as_mut().unwrap().devmem.as_mut().unwrap()
        }
        // a mode asked for but refused, or run without a frag, could not fail
        dm(&mut d).patched = run(&["xarray", "array"], vec![ran("xarray"), ModeRun { skipped: Some("EOPNOTSUPP".into()), ..ran("array") }]);
        assert!(d.find_problems().iter().any(|l| l == "patched kernel: devmem array: EOPNOTSUPP"), "{:?}", d.find_problems());
        dm(&mut d).patched = run(&["xarray", "array"], vec![ran("xarray"), ModeRun { frags: 0, ..ran("array") }]);
        assert!(d.find_problems().iter().any(|l| l.contains("devmem array: no frag was received")));
        dm(&mut d).patched = run(&["xarray", "array"], vec![ran("xarray")]);
        assert!(d.find_problems().iter().any(|l| l == "patched kernel: devmem: mode array did not run"));
        dm(&mut d).patched = run(&["xarray", "array"], vec![ran("xarray"), ModeRun { divergences: vec!["seed 3 round 1: x".into()], ..ran("array") }]);
        assert!(d.find_problems().iter().any(|l| l == "patched kernel: devmem array: seed 3 round 1: x"));
        dm(&mut d).baseline = DevmemRun { asked: vec!["xarray".into()], error: Some("devmem: timed out in the guest".into()), doc: None };
        assert!(d.find_problems().iter().any(|l| l == "baseline kernel: devmem: timed out in the guest"));
    }

    #[test]
    fn a_tun_series_is_judged_by_its_workload() {
        use crate::tun_vhost::{BatchRun, TunVhostDoc};
        let run = |runs: Vec<BatchRun>| {
            let mut d = TunVhostDoc { xdp_attached: true, runs, ..Default::default() };
            d.problems = d.runs.iter().flat_map(BatchRun::problems).collect();
            TunRun { doc: Some(d), error: None }
        };
        let clean = BatchRun { batch: 64, frames: 64, used: 64, received: 64, ..Default::default() };
        // 6.12.117 loses a frame per fault, uncounted; the series counts it
        let faulted = BatchRun { failslab: 10, faults: 3, received: 62, lost: 2, ..clean.clone() };
        let counted = BatchRun { received: 62, dropped: 2, lost: 0, ..faulted.clone() };
        // no xskxceiver nor AF_XDP campaign ran: not counted against it
        let mut d = KernelDoc { vm: true, w1: W1 { applied: 0, ..Default::default() }, ..Default::default() };
        let tun = TunPair { baseline: run(vec![clean.clone(), faulted.clone()]), patched: run(vec![clean.clone(), counted.clone()]) };
        let clean_leaks = Kmemleak { scans: 2, ..Default::default() };
        let kmemleak = KmemleakPair { baseline: clean_leaks.clone(), patched: clean_leaks };
        d.guests = Some(Guests { tun: Some(tun), kmemleak, ..Default::default() });
        assert_eq!(d.find_problems(), Vec::<String>::new());
        // the patched kernel losing frames where faults fired, as 6.12.117 may
        d.guests.as_mut().unwrap().tun.as_mut().unwrap().patched = run(vec![clean.clone(), faulted.clone()]);
        let p = d.find_problems();
        assert!(p.len() == 1 && p[0].starts_with("patched kernel: batch 64 (failslab 10%): 2 frames neither received nor counted dropped (3 faults fired)"), "{p:?}");
        // a frame lost with no fault fired, on the patched kernel
        let lost = BatchRun { received: 63, lost: 1, ..clean.clone() };
        d.guests.as_mut().unwrap().tun.as_mut().unwrap().patched = run(vec![lost, counted.clone()]);
        let p = d.find_problems();
        assert!(p.len() == 1 && p[0].starts_with("patched kernel: batch 64 (failslab 0%): 1 frames lost with 0 faults"), "{p:?}");
        // failslab runs in which no fault fired could not have failed;
        // one quiet batch size among others that fired is fine
        let quiet = BatchRun { faults: 0, lost: 0, received: 64, ..faulted.clone() };
        d.guests.as_mut().unwrap().tun.as_mut().unwrap().patched = run(vec![clean.clone(), quiet.clone(), counted]);
        assert_eq!(d.find_problems(), Vec::<String>::new());
        d.guests.as_mut().unwrap().tun.as_mut().unwrap().patched = run(vec![clean, quiet]);
        assert!(d.find_problems()[0].contains("no failslab fault fired"), "{:?}", d.find_problems());
        // no answer from the guest
        d.guests.as_mut().unwrap().tun.as_mut().unwrap().baseline = TunRun { error: Some("tun-vhost: timed out in the guest".into()), doc: None };
        assert!(d.find_problems().iter().any(|l| l == "baseline kernel: tun-vhost: timed out in the guest"));
    }
}
