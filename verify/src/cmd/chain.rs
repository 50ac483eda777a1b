//! The chain from the live kernel to the spec, for a diff campaign: the
//! scenarios the kernel and the model agreed on, projected onto
//! specs/XskCopyTx.tla and validated by TLC (ringlab-tlc's
//! trace::kernel_chain); optionally each trace written as an Apalache ITF
//! file. For the VM's campaigns the host, which has TLC, derives the
//! scenarios again from what the guest printed.

use std::path::Path;

use serde_json::json;

use ringlab_kernel::campaign::{chain_candidates, Summary};
use ringlab_kernel::campaign::Example;
use ringlab_kernel::diff_doc::{ChainDoc, ChainExample, DiffDoc, ExampleOp, ExampleStep};
use ringlab_kernel::devmem::doc::{LiveTrace, TraceVerdict};
use ringlab_kernel::kernel_test::KernelDoc;
use ringlab_model::devmem::Mutant;
use ringlab_tlc::trace::Verdict;
use ringlab_model::afxdp::{spec_trace, Profile, Scenario};
use ringlab_tlc::trace::kernel_chain::report::{Rejection, Unprojected};
use ringlab_tlc::trace::kernel_chain::{validate_scenarios, ChainReport};

/// Rejections and unprojected scenarios the document lists at most.
pub const LISTED: usize = 20;
const SPEC: &str = "XskCopyTx";

/// Validates `cands`, run under `profile`; with `itf`, also writes each
/// projected trace there as `<seed>.itf.json`. `example`, one of them,
/// is shown whole.
pub fn validate(cands: &[(u64, Scenario)], profile: &Profile, itf: Option<&Path>, example: Option<&Example>) -> ChainDoc {
    if let Some(dir) = itf {
        if let Err(e) = write_itf(cands, profile, dir) {
            return ChainDoc { spec: SPEC.into(), error: Some(e), ..Default::default() };
        }
    }
    let r = validate_scenarios(cands, profile).map_err(|e| e.to_string());
    let shown = match (&r, example) {
        (Ok(r), Some(x)) => show(x, profile, !r.rejected.iter().any(|j| j.seed == x.seed)),
        _ => None,
    };
    ChainDoc { example: shown, ..doc(r.as_ref().map_err(Clone::clone)) }
}

/// The chain of a campaign that ran on this machine.
pub fn of_summary(sum: &Summary, itf: Option<&Path>) -> ChainDoc {
    match sum.chain_profile {
        Some(p) => validate(&sum.chain_scenarios(), &p, itf, sum.example.as_ref()),
        None => ChainDoc { spec: SPEC.into(), error: Some("the campaign recorded no profile".into()), ..Default::default() },
    }
}

/// `x` as kernel -> model -> spec: per operation, both sides'
/// observations and the spec steps of the model's run, each with the
/// variables it changed.
pub fn show(x: &Example, profile: &Profile, accepted: bool) -> Option<ChainExample> {
    let t = spec_trace(&x.scenario, profile).ok()?;
    let vars = |k: usize| ringlab_model::copy_tx::tla::variables(&t.config, &t.states[k]);
    let mut ops: Vec<ExampleOp> = x
        .scenario
        .ops
        .iter()
        .enumerate()
        .map(|(i, op)| ExampleOp {
            op: format!("{op:?}"),
            kernel: x.kernel.get(i).map(|o| format!("{o:?}")).unwrap_or_default(),
            model: x.model.get(i).map(|o| format!("{o:?}")).unwrap_or_default(),
            steps: Vec::new(),
        })
        .collect();
    for (k, st) in t.steps.iter().enumerate() {
        let (a, b) = (vars(k), vars(k + 1));
        let changed = a.iter().zip(&b).filter(|(x, y)| x.1 != y.1).map(|(_, (n, v))| format!("{n} = {v}")).collect();
        if let Some(o) = ops.get_mut(st.op) {
            o.steps.push(ExampleStep { action: st.action.into(), changed });
        }
    }
    Some(ChainExample { seed: x.seed, profile: profile.name.into(), accepted, ops })
}

/// Each trace as an ITF document in `dir`.
pub fn write_itf(cands: &[(u64, Scenario)], profile: &Profile, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (seed, s) in cands {
        let Ok(t) = spec_trace(s, profile) else { continue };
        let meta = json!({
            "description": format!("ringlab diff scenario seed {seed:#x} under profile {} (batch {}, budget {}), projected from the afxdp model", profile.name, profile.tx_batch, profile.tx_budget),
            "constants": ringlab_model::copy_tx::tla::constants(&t.config),
        });
        let path = dir.join(format!("{seed:016x}.itf.json"));
        let text = serde_json::to_string(&t.itf(meta)).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The document of a validation (or of the error that stopped it).
pub fn doc(r: Result<&ChainReport, String>) -> ChainDoc {
    match r {
        Ok(r) => counts_doc(SPEC, r.validated, &r.rejected, &r.unprojected, r.steps, r.tlc_runs, r.seconds),
        Err(e) => ChainDoc { spec: SPEC.into(), error: Some(e), ..Default::default() },
    }
}

/// The document of a validation of `spec` that ran: its counts, and the
/// first LISTED rejections and unprojected scenarios.
pub(super) fn counts_doc(
    spec: &str,
    validated: usize,
    rejected: &[Rejection],
    unprojected: &[Unprojected],
    steps: usize,
    tlc_runs: usize,
    seconds: f64,
) -> ChainDoc {
    ChainDoc {
        spec: spec.into(),
        validated: validated as u64,
        rejected: rejected.len() as u64,
        unprojected: unprojected.len() as u64,
        steps: steps as u64,
        tlc_runs: tlc_runs as u64,
        seconds: (seconds * 10.0).round() / 10.0,
        rejections: rejected.iter().take(LISTED).map(|x| x.to_string()).collect(),
        unprojected_why: unprojected.iter().take(LISTED).map(|u| format!("seed {:#x}: {}", u.seed, u.why)).collect(),
        ..Default::default()
    }
}

/// The profile a VM campaign ran under, from its document.
pub fn vm_profile(c: &DiffDoc) -> Profile {
    if c.profile == Profile::design_b(0).name {
        return Profile::batch(c.batch, c.budget);
    }
    Profile { tx_budget: c.budget, ..Profile::for_release(&c.profile) }
}

/// The chain of a VM campaign: its scenarios derived again from its seed,
/// those that diverged left out.
pub fn vm_campaign(c: &DiffDoc) -> ChainDoc {
    if c.divergences as usize != c.diverged_seeds.len() {
        let e = "the campaign's document does not list the seeds that diverged".to_string();
        return ChainDoc { spec: SPEC.into(), error: Some(e), ..Default::default() };
    }
    let p = vm_profile(c);
    let cands: Vec<(u64, Scenario)> =
        chain_candidates(c.seed, c.scenarios, c.receive_only(), &c.diverged_seeds, &p).into_iter().map(|c| (c.seed, c.scenario)).collect();
    validate(&cands, &p, None, c.example.as_ref())
}

/// Validates every diff campaign of a `ringlab kernel-test` document (the
/// released kernel's and each of the patched kernel's), then names its
/// problems again. A mutant kernel's campaigns are left out: the traces
/// are the model's, and the model is the same for a mutant.
pub fn vm_doc(doc: &mut KernelDoc) {
    let Some(g) = doc.guests.as_mut() else { return };
    for run in std::iter::once(&mut g.diff.baseline).chain(g.diff.patched.runs.iter_mut()) {
        if let Some(d) = run.doc.as_mut() {
            d.chain = Some(vm_campaign(d));
        }
    }
    if let Some(dm) = g.devmem.as_mut() {
        for d in [&mut dm.baseline, &mut dm.patched].into_iter().filter_map(|r| r.doc.as_mut()) {
            for t in d.runs.iter_mut().filter_map(|r| r.trace.as_mut()) {
                t.chain = Some(devmem_trace(t));
            }
        }
    }
    doc.problems = doc.find_problems();
    doc.ok = doc.problems.is_empty();
}

/// TLC's verdict on one devmem round as the model lived it, against the
/// correct spec.
pub fn devmem_trace(t: &LiveTrace) -> TraceVerdict {
    let cfg = t.config.clone().with_mutant(Mutant::None);
    match ringlab_tlc::trace::devmem::validate(&cfg, &t.states) {
        Ok(Verdict::Accepted { steps, .. }) => TraceVerdict { accepted: true, words: format!("{steps} steps accepted") },
        Ok(Verdict::Rejected { step, reason, .. }) => TraceVerdict { accepted: false, words: format!("step {step}: {reason}") },
        Err(e) => TraceVerdict { accepted: false, words: format!("TLC did not run: {e}") },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_kernel::kernel_test::doc::{CampaignRun, DiffRuns, Guests, PatchedRuns};

    #[test]
    fn a_devmem_round_is_checked_by_tlc_and_a_wrong_step_is_caught() {
        use ringlab_kernel::devmem::oracle::Oracle;
        use ringlab_model::devmem::Mode;
        let mut o = Oracle::bound(Mode::Array, 2, 3, 4, true).unwrap();
        let t = o.received(0, 2).unwrap();
        o.received(1, 0).unwrap();
        assert_eq!(o.dontneed(1, t, 2).unwrap(), Some(1));
        o.close(0).unwrap();
        o.unbind().unwrap();
        o.close(1).unwrap();
        o.settle().unwrap();
        let mut trace = LiveTrace { config: o.config().clone(), states: o.states.clone().unwrap(), chain: None };
        let v = devmem_trace(&trace);
        assert!(v.accepted, "{}", v.words);
        // a net_iov back in the pool while still referenced is no step of the spec
        trace.states[3].pool[2] = 1;
        let v = devmem_trace(&trace);
        assert!(!v.accepted && v.words.starts_with("step 3"), "{}", v.words);
    }

    /// What a guest prints for a campaign of `n` scenarios that diverged
    /// on none.
    fn campaign(profile: &str, batch: u32, budget: u32, n: u64) -> DiffDoc {
        DiffDoc {
            kernel: "6.12.117".into(),
            profile: profile.into(),
            batch,
            budget,
            seed: 7,
            scenarios: n,
            chain_candidates: n,
            ..Default::default()
        }
    }

    #[test]
    fn a_vm_campaign_names_its_profile() {
        assert_eq!(vm_profile(&campaign("6.12+batch", 16, 64, 1)), Profile::batch(16, 64));
        assert_eq!(vm_profile(&campaign("6.12", 0, 32, 1)), Profile::for_release("6.12"));
    }

    #[test]
    fn the_host_validates_a_vm_campaigns_scenarios() {
        let run = |name: &str, d: DiffDoc| CampaignRun { name: name.into(), doc: Some(d), ..Default::default() };
        let timed_out = CampaignRun { name: "x".into(), error: Some("timed out".into()), ..Default::default() };
        let mut doc = KernelDoc {
            vm: true,
            guests: Some(Guests {
                diff: DiffRuns {
                    baseline: run("diff-mainline", campaign("6.12", 0, 32, 3)),
                    patched: PatchedRuns { runs: vec![run("diff-batch16-budget64", campaign("6.12+batch", 16, 64, 2)), timed_out], ..Default::default() },
                },
                ..Default::default()
            }),
            ..Default::default()
        };
        vm_doc(&mut doc);
        let g = doc.guests.as_ref().unwrap();
        let chain = |r: &CampaignRun| r.doc.as_ref().and_then(|d| d.chain.clone());
        assert_eq!(chain(&g.diff.baseline).map(|c| c.validated), Some(3));
        assert_eq!(chain(&g.diff.patched.runs[0]).map(|c| (c.validated, c.rejected)), Some((2, 0)));
        assert!(chain(&g.diff.patched.runs[1]).is_none());
        // A guest that did not list the seeds that diverged cannot be checked.
        let old = DiffDoc { divergences: 1, ..campaign("6.12", 0, 32, 3) };
        assert!(vm_campaign(&old).error.unwrap().contains("seeds that diverged"));
    }
}
