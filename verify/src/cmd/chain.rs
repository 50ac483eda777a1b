//! The chain from the live kernel to the spec, for a diff campaign: the
//! scenarios the kernel and the model agreed on, projected onto
//! specs/XskCopyTx.tla and validated by TLC (ringlab-tlc's
//! trace::kernel_chain); optionally each trace written as an Apalache
//! ITF file. For the VM campaigns, the host derives the scenarios again
//! from what the guest printed.

use std::path::Path;

use serde_json::{json, Value};

use ringlab_kernel::campaign::{chain_candidates, Summary};
use ringlab_model::afxdp::{spec_trace, Profile, Scenario};
use ringlab_tlc::trace::kernel_chain::{validate_scenarios, ChainReport};

/// Rejections and unprojected scenarios listed in the JSON at most.
const LISTED: usize = 20;

/// Validates the chain candidates of a campaign run under `profile`;
/// with `itf`, also writes each projected trace there as
/// `<seed>.itf.json`.
pub fn validate(cands: &[(u64, Scenario)], profile: &Profile, itf: Option<&Path>) -> Result<ChainReport, String> {
    if let Some(dir) = itf {
        write_itf(cands, profile, dir)?;
    }
    validate_scenarios(cands, profile).map_err(|e| e.to_string())
}

/// The chain of a campaign on this machine.
pub fn of_summary(sum: &Summary, itf: Option<&Path>) -> Result<ChainReport, String> {
    let p = sum.chain_profile.ok_or("the campaign recorded no profile")?;
    validate(&sum.chain_scenarios(), &p, itf)
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

/// The `"chain"` JSON of a report (or of the error that stopped it).
pub fn section(r: &Result<ChainReport, String>) -> Value {
    match r {
        Ok(r) => json!({
            "spec": "XskCopyTx",
            "validated": r.validated,
            "rejected": r.rejected.len(),
            "unprojected": r.unprojected.len(),
            "steps": r.steps,
            "tlc_runs": r.tlc_runs,
            "seconds": (r.seconds * 10.0).round() / 10.0,
            "rejections": r.rejected.iter().take(LISTED).map(|x| x.to_string()).collect::<Vec<_>>(),
            "unprojected_why": r.unprojected.iter().take(LISTED).map(|u| format!("seed {:#x}: {}", u.seed, u.why)).collect::<Vec<_>>(),
        }),
        Err(e) => json!({ "spec": "XskCopyTx", "error": e }),
    }
}

/// Whether a `"chain"` JSON says every trace checked was accepted.
pub fn ok(chain: &Value) -> bool {
    chain["error"].is_null() && chain["rejected"].as_u64() == Some(0)
}

/// The profile a VM campaign's JSON (`ringlab-diff campaign`) ran under.
pub fn vm_profile(c: &Value) -> Option<Profile> {
    let budget = c["budget"].as_u64()? as u32;
    let batch = c["batch"].as_u64().unwrap_or(0) as u32;
    let name = c["profile"].as_str()?;
    if name == Profile::design_b(0).name {
        return Some(Profile::batch(batch, budget));
    }
    Some(Profile { tx_budget: budget, ..Profile::for_release(name) })
}

/// The chain of a VM campaign, from its JSON: its scenarios derived
/// again from its seed, those that diverged left out.
pub fn vm_campaign(c: &Value) -> Result<ChainReport, String> {
    let p = vm_profile(c).ok_or("the campaign's JSON names no profile or budget")?;
    let (seed, n) = (c["seed"].as_u64().ok_or("no seed")?, c["scenarios"].as_u64().ok_or("no scenario count")?);
    let diverged: Vec<u64> = c["diverged_seeds"].as_array().map_or(Vec::new(), |a| a.iter().filter_map(Value::as_u64).collect());
    if c["divergences"].as_u64().unwrap_or(0) as usize != diverged.len() {
        return Err("the campaign's JSON does not list the seeds that diverged".into());
    }
    let cands: Vec<(u64, Scenario)> =
        chain_candidates(seed, n, &diverged, p.tx_budget).into_iter().map(|c| (c.seed, c.scenario)).collect();
    validate(&cands, &p, None)
}

/// Adds `"chain"` to every diff campaign of a `ringlab kernel-test`
/// document (diff.baseline and each of diff.patched.runs), and their sums
/// as diff.chain_validated and diff.chain_rejected.
pub fn vm_doc(doc: &mut Value) {
    let (mut valid, mut rejected) = (0, 0);
    let mut check = |c: &mut Value| {
        if !c.is_object() || !c["error"].is_null() {
            return;
        }
        let r = vm_campaign(c);
        if let Ok(r) = &r {
            valid += r.validated;
            rejected += r.rejected.len();
        }
        c["chain"] = section(&r);
    };
    if let Some(b) = doc.pointer_mut("/diff/baseline") {
        check(b);
    }
    if let Some(Value::Array(runs)) = doc.pointer_mut("/diff/patched/runs") {
        runs.iter_mut().for_each(&mut check);
    }
    if doc["diff"].is_object() {
        doc["diff"]["chain_validated"] = json!(valid);
        doc["diff"]["chain_rejected"] = json!(rejected);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `ringlab-diff campaign` prints, for a campaign of `n`
    /// scenarios that diverged on none.
    fn campaign(profile: &str, batch: u32, budget: u32, n: u64) -> Value {
        json!({"kernel": "6.12.117", "profile": profile, "batch": batch, "budget": budget, "seed": 7,
               "scenarios": n, "divergences": 0, "chain_candidates": n, "diverged_seeds": []})
    }

    #[test]
    fn a_vm_campaign_names_its_profile() {
        assert_eq!(vm_profile(&campaign("6.12+batch", 16, 64, 1)), Some(Profile::batch(16, 64)));
        assert_eq!(vm_profile(&campaign("6.12", 0, 32, 1)), Some(Profile::for_release("6.12")));
        assert_eq!(vm_profile(&json!({"profile": "6.12"})), None);
    }

    #[test]
    fn the_host_validates_a_vm_campaigns_scenarios() {
        let mut doc = json!({"diff": {
            "baseline": campaign("6.12", 0, 32, 3),
            "patched": {"runs": [campaign("6.12+batch", 16, 64, 2), {"name": "x", "error": "timed out"}]},
        }});
        vm_doc(&mut doc);
        assert_eq!(doc["diff"]["chain_validated"], 5, "{doc:#}");
        assert_eq!(doc["diff"]["chain_rejected"], 0);
        assert_eq!(doc["diff"]["baseline"]["chain"]["validated"], 3);
        assert!(doc["diff"]["patched"]["runs"][1]["chain"].is_null());
        // A guest that did not list the seeds that diverged cannot be checked.
        let old = json!({"profile": "6.12", "budget": 32, "seed": 7, "scenarios": 3, "divergences": 1});
        assert!(vm_campaign(&old).unwrap_err().contains("seeds that diverged"));
    }
}
