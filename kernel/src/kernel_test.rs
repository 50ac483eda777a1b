//! `ringlab kernel-test --series DIR`: a patch series against linux
//! 6.12.117 checked before merging. checkpatch.pl --strict on every patch;
//! every patch applied in turn with `git am` and built with W=1; then the
//! released kernel and the patched one built from kernel/vm/config.fragment,
//! booted in qemu, and in each guest: xskxceiver in SKB mode on veth,
//! ringlab's differential campaigns (the released kernel against the
//! model's 6.12 profile, the patched one against its batch profile at
//! several batch sizes and budgets) and fault-injection campaigns. A
//! mutant patch (`--mutant`) is tested on top of the series and must be
//! caught. The result is one JSON document (target/ringlab/kernel/kernel.json),
//! the "kernel" section of `ringlab verify --json --kernel`.

pub mod results;
pub mod series;
pub mod vm;

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Value};

use results::n;
use series::Series;
use vm::{Campaign, Kernel, Plan};

#[derive(Args, Clone)]
pub struct KernelTestArgs {
    /// A folder of `git format-patch` files against linux 6.12.117 (default: kernel/patches/xsk-batch-xmit)
    #[arg(long, value_name = "DIR")]
    pub series: Option<PathBuf>,
    /// A patch applied on top of the series that the tests must catch (repeatable)
    #[arg(long = "mutant", value_name = "PATCH")]
    pub mutants: Vec<PathBuf>,
    /// Differential scenarios per campaign in each guest
    #[arg(long, default_value_t = SCENARIOS)]
    pub scenarios: u64,
    /// Rounds of each fault-injection campaign
    #[arg(long, default_value_t = FAULT_ROUNDS)]
    pub fault_rounds: u64,
    /// Seed of every campaign (printed; a run replays exactly)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON document on stdout instead of the table
    #[arg(long)]
    pub json: bool,
    /// Only the checks that need no VM: checkpatch, and git am + W=1 per patch
    #[arg(long)]
    pub no_vm: bool,
}

/// Scenarios per campaign and rounds per fault campaign (a few seconds
/// each in the guest).
pub const SCENARIOS: u64 = 500;
pub const FAULT_ROUNDS: u64 = 400;

/// The batch sizes and budgets the patched kernel is compared at; batch 0
/// is the per-descriptor loop on the series' completion design.
pub const PATCHED_CAMPAIGNS: [Campaign; 4] = [
    Campaign { batch: 0, budget: 32 },
    Campaign { batch: 1, budget: 32 },
    Campaign { batch: 16, budget: 64 },
    Campaign { batch: 64, budget: 256 },
];
pub const PATCHED_FAULTS: [Campaign; 2] = [Campaign { batch: 0, budget: 32 }, Campaign { batch: 16, budget: 64 }];
const MUTANT_CAMPAIGNS: [Campaign; 1] = [Campaign { batch: 16, budget: 64 }];

pub fn default_series(root: &Path) -> PathBuf {
    root.join("kernel/patches/xsk-batch-xmit")
}

pub fn run(a: &KernelTestArgs) -> Result<bool, String> {
    let root = ringlab_model::paths::find_root()?;
    let doc = test(&root, a)?;
    let ok = doc["ok"].as_bool().unwrap_or(false);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    } else {
        print(&doc);
    }
    Ok(ok)
}

/// Runs everything and saves the JSON document.
pub fn test(root: &Path, a: &KernelTestArgs) -> Result<Value, String> {
    let dir = a.series.clone().unwrap_or_else(|| default_series(root));
    let series = Series::read(&dir)?;
    // the repository's own series by its relative path in the report
    let shown = dir.strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| dir.clone());
    eprintln!("kernel-test: series {} ({} patches), seed {}", dir.display(), series.patches.len(), a.seed);
    let base = Kernel { label: "baseline".into(), series: None };
    let patched = Kernel { label: "patched".into(), series: Some(dir.clone()) };

    step("the released tree (6.12.117) for the checks without a VM");
    let (tree, build) = static_tree(root)?;
    step("checkpatch.pl --strict");
    let cp = series::checkpatch(&tree, &series)?;
    step("git am and W=1, one patch at a time");
    let w1 = w1_check(&tree, &build, &series);
    if a.no_vm {
        return finish(root, static_doc(&shown, &series, &cp, &w1, a));
    }
    step("building the released kernel (6.12.117)");
    let (base_src, base_build) = vm::build(root, &base)?;
    step("building the patched kernel");
    let (patched_src, patched_build) = vm::build(root, &patched)?;

    let plan_base = Plan {
        xskxceiver: true,
        mainline: true,
        campaigns: vec![],
        faults: vec![Campaign { batch: 0, budget: 32 }],
        scenarios: a.scenarios,
        fault_rounds: a.fault_rounds,
        seed: a.seed,
    };
    let plan_patched = Plan { mainline: false, campaigns: PATCHED_CAMPAIGNS.to_vec(), faults: PATCHED_FAULTS.to_vec(), ..plan_base.clone() };
    step("booting the released kernel");
    let (base_res, base_boot) = vm::boot(root, &base, &plan_base, &vm::payload(root, &base, &base_src)?)?;
    step("booting the patched kernel");
    let (patched_res, patched_boot) = vm::boot(root, &patched, &plan_patched, &vm::payload(root, &patched, &patched_src)?)?;

    let mut mutants = Vec::new();
    for m in &a.mutants {
        mutants.push(mutant(root, &series, m, a).unwrap_or_else(|e| json!({ "patch": m.display().to_string(), "error": e, "caught": false })));
    }

    let base_diff = results::campaign(&base_res, "diff-mainline");
    let runs: Vec<Value> = plan_patched.campaigns.iter().map(|c| results::campaign(&patched_res, &c.name())).collect();
    let fault_runs: Vec<Value> = plan_base
        .faults
        .iter()
        .map(|c| tagged(results::faults(&base_res, &c.fault_name()), "baseline"))
        .chain(plan_patched.faults.iter().map(|c| tagged(results::faults(&patched_res, &c.fault_name()), "patched")))
        .collect();
    let xsk_base = results::xskxceiver(&base_res);
    let xsk_patched = results::xskxceiver(&patched_res);

    let patched_div: u64 = runs.iter().map(|r| n(r, "divergences")).sum();
    let doc_faults = json!({
        "injected": fault_runs.iter().map(|f| n(f, "injected")).sum::<u64>(),
        "leaks": fault_runs.iter().map(|f| n(f, "leaks")).sum::<u64>(),
        "lost": fault_runs.iter().map(|f| n(f, "lost")).sum::<u64>(),
        "double": fault_runs.iter().map(|f| n(f, "double")).sum::<u64>(),
        "runs": fault_runs,
    });
    let mut doc = static_doc(&shown, &series, &cp, &w1, a);
    let vm_part = json!({
        "xskxceiver": {
            "pass": xsk_patched["pass"], "fail": xsk_patched["fail"], "skip": xsk_patched["skip"],
            "baseline": xsk_base, "patched": xsk_patched,
        },
        "diff": {
            "baseline": base_diff,
            "patched": { "scenarios": runs.iter().map(|r| n(r, "scenarios")).sum::<u64>(), "divergences": patched_div, "runs": runs },
        },
        "faults": doc_faults,
        "mutants": mutants,
        "probe": { "baseline": results::probe(&base_res), "patched": results::probe(&patched_res) },
        "times": {
            "build_baseline_s": round(base_build), "build_patched_s": round(patched_build),
            "boot_baseline_s": round(base_boot), "boot_patched_s": round(patched_boot),
        },
        "scenarios_per_campaign": a.scenarios,
    });
    for (k, v) in vm_part.as_object().unwrap() {
        doc[k] = v.clone();
    }
    doc["vm"] = json!(true);
    finish(root, doc)
}

/// What the checks without a VM found.
fn static_doc(dir: &Path, s: &Series, cp: &[series::Checkpatch], w1: &Value, a: &KernelTestArgs) -> Value {
    let sum = |f: fn(&series::Checkpatch) -> u32| cp.iter().map(|c| u64::from(f(c))).sum::<u64>();
    json!({
        "series": dir.display().to_string(),
        "patches": s.patches.len(),
        "checkpatch_warnings": sum(|c| c.warnings),
        "checkpatch_errors": sum(|c| c.errors),
        "checkpatch_checks": sum(|c| c.checks),
        "checkpatch": cp,
        "w1": w1,
        "vm": false,
        "seed": a.seed,
    })
}

/// Names the problems, sets "ok" and saves the document.
fn finish(root: &Path, mut doc: Value) -> Result<Value, String> {
    let problems = problems(&doc);
    doc["problems"] = json!(problems);
    doc["ok"] = json!(problems.is_empty());
    let out = ringlab_model::paths::out_dir(root).join("kernel");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    std::fs::write(out.join("kernel.json"), serde_json::to_string_pretty(&doc).unwrap()).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("kernel-test: {}", out.join("kernel.json").display());
    Ok(doc)
}

fn step(s: &str) {
    eprintln!("kernel-test: {s}");
}

fn round(s: f64) -> f64 {
    (s * 10.0).round() / 10.0
}

fn tagged(mut v: Value, kernel: &str) -> Value {
    v["kernel_label"] = json!(kernel);
    v
}

/// The released tree the checks without a VM use, a git repository with
/// the tag `base`, and its W=1 build folder (x86_64_defconfig with AF_XDP):
/// extracted once from Debian's linux-source-6.12 and kept.
fn static_tree(root: &Path) -> Result<(PathBuf, PathBuf), String> {
    let w = vm::work_dir(root).join("w1");
    let tree = w.join("tree");
    let build = w.join("build");
    let sh = |cmd: &str, dir: &Path| -> Result<(), String> {
        let o = std::process::Command::new("bash").args(["-c", cmd]).current_dir(dir).output().map_err(|e| format!("{cmd}: {e}"))?;
        if o.status.success() {
            Ok(())
        } else {
            Err(format!("{cmd}: {}", String::from_utf8_lossy(&o.stderr).lines().last().unwrap_or("failed")))
        }
    };
    if !tree.join(".git/refs/tags/base").is_file() {
        sh("bash kernel/vm/deps.sh >&2", root)?;
        let _ = std::fs::remove_dir_all(&w);
        std::fs::create_dir_all(&tree).map_err(|e| format!("{}: {e}", tree.display()))?;
        let tarball = std::env::var("RINGLAB_LINUX_TARBALL").unwrap_or_else(|_| "/usr/src/linux-source-6.12.tar.xz".into());
        sh(&format!("tar -xJf '{tarball}' --strip-components=1"), &tree)?;
        // Debian's top-level .gitignore ignores everything: add -f.
        sh("git init -q && git add -f -A . && git -c user.name=ringlab -c user.email=ringlab@example.org commit -qm 'linux 6.12.117' && git tag base", &tree)?;
    }
    if !build.join("include/generated/autoconf.h").is_file() {
        std::fs::create_dir_all(&build).map_err(|e| format!("{}: {e}", build.display()))?;
        let b = build.display();
        sh(
            &format!(
                "make -s O={b} x86_64_defconfig && scripts/config --file {b}/.config -e BPF_SYSCALL -e XDP_SOCKETS && make -s O={b} olddefconfig && make -s -j2 O={b} prepare"
            ),
            &tree,
        )
        .inspect_err(|_| {
            let _ = std::fs::remove_file(build.join(".config"));
        })?;
    }
    Ok((tree, build))
}

/// Every patch applied in turn with git am and the files it touches built
/// with W=1; compared with the released tree's own W=1 warnings.
fn w1_check(tree: &Path, build: &Path, s: &Series) -> Value {
    let targets = series::w1_targets(s);
    match series::apply_and_build(tree, build, "base", s, &targets) {
        Ok((base_warnings, steps)) => {
            let applied = steps.iter().filter(|st| st.applied).count();
            let new: usize = steps.iter().map(|st| st.new_warnings.len()).sum();
            json!({ "targets": targets, "baseline_warnings": base_warnings, "applied": applied, "new_warnings": new, "steps": steps })
        }
        Err(e) => json!({ "error": e }),
    }
}

/// The series plus one mutant patch, built, booted and compared: caught
/// when a campaign diverges or a fault campaign finds a lost, doubly
/// completed or leaked frame.
fn mutant(root: &Path, s: &Series, patch: &Path, a: &KernelTestArgs) -> Result<Value, String> {
    let stem = patch.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let dir = vm::work_dir(root).join("mutant-series").join(&stem);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for p in &s.patches {
        std::fs::copy(p, dir.join(series::name(p))).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    std::fs::copy(patch, dir.join(format!("9999-{stem}.patch"))).map_err(|e| format!("{}: {e}", patch.display()))?;
    let k = Kernel { label: format!("mutant-{stem}"), series: Some(dir) };
    step(&format!("building and booting mutant {stem}"));
    let (src, build_s) = vm::build(root, &k)?;
    let plan = Plan {
        xskxceiver: false,
        mainline: false,
        campaigns: MUTANT_CAMPAIGNS.to_vec(),
        faults: MUTANT_CAMPAIGNS.to_vec(),
        scenarios: a.scenarios,
        fault_rounds: a.fault_rounds,
        seed: a.seed,
    };
    let (res, boot_s) = vm::boot(root, &k, &plan, &vm::payload(root, &k, &src)?)?;
    let runs: Vec<Value> = plan.campaigns.iter().map(|c| results::campaign(&res, &c.name())).collect();
    let faults: Vec<Value> = plan.faults.iter().map(|c| results::faults(&res, &c.fault_name())).collect();
    let diverged = runs.iter().any(|r| n(r, "divergences") > 0);
    let broke = |k: &str| faults.iter().any(|f| n(f, k) > 0);
    let caught_by: Vec<&str> = [("diff", diverged), ("faults:lost", broke("lost")), ("faults:double", broke("double")), ("faults:leaks", broke("leaks"))]
        .into_iter()
        .filter_map(|(name, hit)| hit.then_some(name))
        .collect();
    let first = runs.iter().find(|r| n(r, "divergences") > 0).map(|r| r["first_divergence"].clone()).unwrap_or(Value::Null);
    Ok(json!({
        "patch": patch.display().to_string(),
        "caught": !caught_by.is_empty(),
        "caught_by": caught_by,
        "divergence": first,
        "runs": runs,
        "faults": faults,
        "times": { "build_s": round(build_s), "boot_s": round(boot_s) },
    }))
}

/// Every reason the document is not a pass, one line each.
pub fn problems(d: &Value) -> Vec<String> {
    let mut p = Vec::new();
    if n(d, "checkpatch_errors") + n(d, "checkpatch_warnings") > 0 {
        p.push(format!("checkpatch --strict: {} errors, {} warnings", d["checkpatch_errors"], d["checkpatch_warnings"]));
    }
    let w1 = &d["w1"];
    if let Some(e) = w1["error"].as_str() {
        p.push(format!("W=1 check did not run: {e}"));
    } else {
        if n(w1, "applied") as usize != d["patches"].as_u64().unwrap_or(0) as usize {
            p.push(format!("only {} of {} patches apply with git am", w1["applied"], d["patches"]));
        }
        if n(w1, "new_warnings") > 0 {
            p.push(format!("W=1 builds add {} warnings", w1["new_warnings"]));
        }
        for st in w1["steps"].as_array().into_iter().flatten() {
            if let Some(e) = st["error"].as_str() {
                p.push(format!("{}: {e}", st["patch"].as_str().unwrap_or("?")));
            }
        }
    }
    if d["vm"].as_bool() == Some(false) {
        return p;
    }
    for k in ["baseline", "patched"] {
        let x = &d["xskxceiver"][k];
        if let Some(e) = x["error"].as_str() {
            p.push(format!("xskxceiver on the {k} kernel: {e}"));
        } else if n(x, "fail") > 0 || n(x, "pass") == 0 {
            p.push(format!("xskxceiver on the {k} kernel: {} passed, {} failed", x["pass"], x["fail"]));
        }
    }
    let mut campaigns = vec![("baseline", &d["diff"]["baseline"])];
    for r in d["diff"]["patched"]["runs"].as_array().into_iter().flatten() {
        campaigns.push(("patched", r));
    }
    for (k, c) in campaigns {
        if let Some(e) = c["error"].as_str() {
            p.push(format!("{k} {e}"));
        } else if n(c, "divergences") > 0 {
            p.push(format!("{k} {}: {} divergences", c["name"].as_str().unwrap_or("?"), c["divergences"]));
        } else if n(c, "scenarios") == 0 {
            p.push(format!("{k} {}: no scenario ran", c["name"].as_str().unwrap_or("?")));
        }
    }
    for f in d["faults"]["runs"].as_array().into_iter().flatten() {
        let name = format!("{} {}", f["kernel_label"].as_str().unwrap_or("?"), f["name"].as_str().unwrap_or("?"));
        if let Some(e) = f["error"].as_str() {
            p.push(format!("{name}: {e}"));
        } else if let Some(why) = f["skipped"].as_str() {
            p.push(format!("{name}: skipped ({why})"));
        } else if n(f, "injected") == 0 {
            p.push(format!("{name}: no fault was injected, so the campaign could not fail"));
        } else if n(f, "lost") + n(f, "double") + n(f, "leaks") > 0 {
            p.push(format!("{name}: {} lost, {} completed twice, {} CQ slots leaked", f["lost"], f["double"], f["leaks"]));
        }
    }
    for m in d["mutants"].as_array().into_iter().flatten() {
        if !m["caught"].as_bool().unwrap_or(false) {
            let why = m["error"].as_str().map(|e| format!(" ({e})")).unwrap_or_default();
            p.push(format!("mutant {} was not caught{why}", m["patch"].as_str().unwrap_or("?")));
        }
    }
    p
}

fn print(d: &Value) {
    println!("series {} ({} patches, linux 6.12.117)", d["series"].as_str().unwrap_or("?"), d["patches"]);
    println!(
        "  checkpatch --strict   {} errors, {} warnings, {} checks",
        d["checkpatch_errors"], d["checkpatch_warnings"], d["checkpatch_checks"]
    );
    let w1 = &d["w1"];
    match w1["error"].as_str() {
        Some(e) => println!("  git am + W=1          did not run: {e}"),
        None => println!(
            "  git am + W=1          {}/{} applied, {} new warnings ({})",
            w1["applied"],
            d["patches"],
            w1["new_warnings"],
            w1["targets"].as_array().map(|t| t.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(" ")).unwrap_or_default()
        ),
    }
    if d["vm"].as_bool() == Some(false) {
        println!("  VM                    not run (--no-vm): no kernel built or booted");
    }
    let t = &d["times"];
    for k in ["baseline", "patched"].into_iter().filter(|_| d["vm"].as_bool() != Some(false)) {
        let x = &d["xskxceiver"][k];
        let xs = match x["error"].as_str() {
            Some(e) => format!("error: {e}"),
            None => format!("{} pass, {} fail, {} skip", x["pass"], x["fail"], x["skip"]),
        };
        println!(
            "  {k:<9} build {:>6}s  boot+tests {:>6}s  xskxceiver {xs}",
            t[format!("build_{k}_s")],
            t[format!("boot_{k}_s")]
        );
    }
    let line = |c: &Value| match c["error"].as_str() {
        Some(e) => format!("error: {e}"),
        None => format!("{} scenarios, {} operations, {} divergences", c["scenarios"], c["operations"], c["divergences"]),
    };
    if d["vm"].as_bool() != Some(false) {
        println!("  diff baseline  profile 6.12            {}", line(&d["diff"]["baseline"]));
    }
    for r in d["diff"]["patched"]["runs"].as_array().into_iter().flatten() {
        println!("  diff patched   {:<24} {}", r["name"].as_str().unwrap_or("?"), line(r));
    }
    for f in d["faults"]["runs"].as_array().into_iter().flatten() {
        let s = match (f["error"].as_str(), f["skipped"].as_str()) {
            (Some(e), _) => format!("error: {e}"),
            (_, Some(w)) => format!("SKIPPED: {w}"),
            _ => format!("{} rounds, {} faults injected, {} lost, {} double, {} leaked", f["rounds"], f["injected"], f["lost"], f["double"], f["leaks"]),
        };
        println!("  faults {:<8} {:<24} {s}", f["kernel_label"].as_str().unwrap_or("?"), f["name"].as_str().unwrap_or("?"));
    }
    for m in d["mutants"].as_array().into_iter().flatten() {
        let how = if m["caught"].as_bool().unwrap_or(false) { format!("caught by {}", m["caught_by"]) } else { "NOT caught".into() };
        println!("  mutant {}: {how}", m["patch"].as_str().unwrap_or("?"));
        if !m["divergence"].is_null() {
            println!("    first divergence: {}", m["divergence"]["mismatch"]);
        }
    }
    let probs = d["problems"].as_array().cloned().unwrap_or_default();
    if probs.is_empty() {
        println!("kernel-test: PASS");
    } else {
        for p in &probs {
            println!("  problem: {}", p.as_str().unwrap_or("?"));
        }
        println!("kernel-test: FAIL ({} problems)", probs.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passing() -> Value {
        json!({
            "patches": 2, "checkpatch_errors": 0, "checkpatch_warnings": 0,
            "w1": { "applied": 2, "new_warnings": 0, "steps": [] },
            "xskxceiver": { "baseline": { "pass": 3, "fail": 0 }, "patched": { "pass": 3, "fail": 0 } },
            "diff": { "baseline": { "name": "diff-mainline", "scenarios": 5, "divergences": 0 },
                      "patched": { "runs": [ { "name": "diff-batch16-budget64", "scenarios": 5, "divergences": 0 } ] } },
            "faults": { "runs": [ { "name": "faults-batch0-budget32", "kernel_label": "baseline", "injected": 4, "lost": 0, "double": 0, "leaks": 0 } ] },
            "mutants": [ { "patch": "m.patch", "caught": true } ],
        })
    }

    #[test]
    fn a_clean_document_has_no_problems() {
        assert_eq!(problems(&passing()), Vec::<String>::new());
    }

    #[test]
    fn every_failure_is_named() {
        let mut d = passing();
        d["checkpatch_warnings"] = json!(1);
        d["diff"]["patched"]["runs"][0]["divergences"] = json!(2);
        d["faults"]["runs"][0]["injected"] = json!(0);
        d["mutants"][0]["caught"] = json!(false);
        d["xskxceiver"]["patched"]["fail"] = json!(1);
        let p = problems(&d);
        assert_eq!(p.len(), 5, "{p:?}");
        assert!(p.iter().any(|l| l.contains("could not fail")));
        assert!(p.iter().any(|l| l.contains("m.patch was not caught")));
    }
}
