//! `ringlab kernel-test --series DIR`: a patch series against linux
//! 6.12.117 checked before merging. checkpatch.pl --strict on every patch;
//! every patch applied in turn with `git am` and built with W=1; then the
//! released kernel and the patched one built from kernel/vm/config.fragment,
//! booted in qemu, and in each guest: xskxceiver in SKB mode on veth,
//! ringlab's differential campaigns (the released kernel against the
//! model's 6.12 profile, the patched one against its batch profile at
//! several batch sizes and budgets, and through bpf_redirect_xsk() where
//! the series adds XDP_REDIRECT_XSK), fault-injection campaigns on the
//! transmit and the receive path, kmemleak over all of these, and
//! xskxceiver last, with kmemleak off. A
//! mutant patch (`--mutant`) is tested on top of the series and must be
//! caught. The result is one JSON document (target/ringlab/kernel/kernel.json),
//! the "kernel" section of `ringlab verify --json --kernel`.

pub mod doc;
pub mod kmemleak;
mod print;

pub use print::print;
pub mod results;
pub mod series;
pub mod vm;
pub mod crash;
pub mod repro;
pub mod kernels;

use std::path::{Path, PathBuf};

use clap::Args;

pub use doc::KernelDoc;
use doc::{CampaignRun, DevmemPair, DiffRuns, FaultRun, FaultRuns, Guests, KmemleakPair, MutantRun, MutantTimes, PatchedRuns, ProbePair, Times, TunPair, XskxceiverPair, W1};
use series::{Checkpatch, Series};
use vm::{Campaign, Kernel, Plan, FAULTS_RX_STEP, FAULTS_RX_XSK_STEP, REDIRECT_XSK_STEP};

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
    #[command(flatten)]
    pub empty: crate::empty::AllowEmpty,
}

/// What the arguments ask for makes sense: every mutant a readable file
/// and tested (only the VM tests them), and no campaign of 0.
pub fn check_args(a: &KernelTestArgs) -> Result<(), String> {
    for m in &a.mutants {
        if !m.is_file() {
            return Err(format!("--mutant {}: no such patch file", m.display()));
        }
        if a.no_vm {
            return Err(format!("--mutant {}: mutants are tested only in the VM, which --no-vm leaves out", m.display()));
        }
    }
    if !a.no_vm {
        a.empty.count("--scenarios", a.scenarios)?;
        a.empty.count("--fault-rounds", a.fault_rounds)?;
    }
    Ok(())
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

/// Every series of kernel/patches/ (a folder with a cover letter), by name.
pub fn all_series(root: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = root.join("kernel/patches");
    let rd = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).filter(|p| p.join("0000-cover-letter.patch").is_file()).collect();
    v.sort();
    Ok(v)
}

/// The kernel mutants of `series`: kernel/patches/mutants/<its name>/*.patch.
pub fn mutants_of(root: &Path, series: &Path) -> Vec<PathBuf> {
    let Some(name) = series.file_name() else { return Vec::new() };
    let dir = root.join("kernel/patches/mutants").join(name);
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "patch")).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Runs everything and saves the document.
pub fn test(root: &Path, a: &KernelTestArgs) -> Result<KernelDoc, String> {
    check_args(a)?;
    let dir = a.series.clone().unwrap_or_else(|| default_series(root));
    let series = Series::read(&dir)?;
    // the repository's own series by its relative path in the report
    let shown = dir.strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| dir.clone());
    eprintln!("kernel-test: series {} ({} patches), seed {}", dir.display(), series.patches.len(), a.seed);
    let base = Kernel { label: "baseline".into(), series: None, seed: None };
    // a label (and source tree) per series, so testing two series in turn
    // rebuilds neither from scratch
    let patched = Kernel { label: patched_label(&dir), series: Some(dir.clone()), seed: Some(base.label.clone()) };

    step("the released tree (6.12.117) for the checks without a VM");
    let (tree, build) = static_tree(root)?;
    step("checkpatch.pl --strict");
    let mut cp = series::checkpatch(&tree, &series)?;
    // the VM's own test-only patches go into every kernel booted: they are
    // held to the same style
    let test_patches = Series::read(&vm::test_patches(root))?;
    cp.extend(series::checkpatch(&tree, &test_patches)?.into_iter().map(|c| Checkpatch { patch: format!("kernel/vm/patches/{}", c.patch), ..c }));
    step("git am and W=1, one patch at a time");
    let w1 = w1_check(&tree, &build, &series);
    if a.no_vm {
        return finish(root, static_doc(&shown, &series, &cp, w1, a));
    }
    step("building the released kernel (6.12.117)");
    let (base_src, base_build) = vm::build(root, &base)?;
    step("building the patched kernel");
    let (patched_src, patched_build) = vm::build(root, &patched)?;

    let tun = touches_tun(&series);
    let devmem = touches_devmem(&series);
    let plan_base = if tun {
        tun_plan(a)
    } else if devmem {
        devmem_plan(a)
    } else {
        base_plan(a)
    };
    let batch = adds_xmit_batch(&series);
    let redirect_xsk = adds_redirect_xsk(&series);
    if tun {
        eprintln!("kernel-test: the series changes tun: both guests run the tun workload (ringlab tun-vhost) instead of the AF_XDP campaigns");
    }
    if devmem {
        eprintln!("kernel-test: the series changes devmem: both guests run the devmem receiver (ringlab devmem) instead of the AF_XDP campaigns");
    }
    if !batch {
        eprintln!("kernel-test: the series adds no XDP_GENERIC_XMIT_BATCH: its guest runs the 6.12 profile, as the released kernel's does");
    }
    let plan_patched = Plan { devmem: plan_base.devmem.clone().map(|d| devmem_patched(d, adds_autorelease(&series))), ..patched_plan(&plan_base, batch, redirect_xsk) };
    if redirect_xsk {
        eprintln!("kernel-test: the series adds XDP_REDIRECT_XSK: its guest also runs receive scenarios through bpf_redirect_xsk() ({REDIRECT_XSK_STEP})");
    }
    let base_payload = vm::payload(root, &base, &base_src)?;
    let base_run = released_run(root, &base, &plan_base, &base_payload)?;
    let (base_res, base_boot) = (base_run.res.clone(), base_run.boot_s);
    step("booting the patched kernel");
    let patched_payload = vm::payload(root, &patched, &patched_src)?;
    let (patched_res, patched_boot) = vm::boot(root, &patched, &plan_patched, &patched_payload)?;

    let fixed = repro::carries_fix(&series);
    // the reproducers are AF_XDP's: a tun or devmem series' guests have no use for them
    let repro = (!tun && !devmem).then(|| {
        step("booting the patched kernel once more with the reproducers alone (a kernel without the fix crashes)");
        repro::ReproPair { baseline: base_run.repro, patched: repro::run(root, &patched, &patched_payload, fixed, redirect_xsk) }
    });

    let mut mutants = Vec::new();
    for m in &a.mutants {
        mutants.push(mutant(root, &series, &patched, &mutant_plan(&plan_patched, batch), m).unwrap_or_else(|e| MutantRun { patch: m.display().to_string(), error: Some(e), ..Default::default() }));
    }

    let runs = diff_runs(&plan_patched, &patched_res);
    let fault_runs: Vec<FaultRun> = fault_runs(&plan_base, &base_res)
        .into_iter()
        .map(|f| tagged(f, "baseline"))
        .chain(fault_runs(&plan_patched, &patched_res).into_iter().map(|f| tagged(f, "patched")))
        .collect();
    let (xsk_base, xsk_patched) = (results::xskxceiver(&base_res), results::xskxceiver(&patched_res));
    let mut doc = static_doc(&shown, &series, &cp, w1, a);
    doc.vm = true;
    doc.guests = Some(Guests {
        xskxceiver: XskxceiverPair { pass: xsk_patched.pass, fail: xsk_patched.fail, skip: xsk_patched.skip, baseline: xsk_base, patched: xsk_patched },
        diff: DiffRuns {
            baseline: results::campaign(&base_res, "diff-mainline"),
            patched: PatchedRuns {
                scenarios: runs.iter().map(CampaignRun::scenarios).sum(),
                divergences: runs.iter().map(CampaignRun::divergences).sum(),
                runs,
            },
        },
        faults: FaultRuns::of(fault_runs),
        kmemleak: KmemleakPair { baseline: results::kmemleak(&base_res), patched: results::kmemleak(&patched_res) },
        mutants,
        repro,
        probe: ProbePair { baseline: results::probe(&base_res), patched: results::probe(&patched_res) },
        times: Times {
            build_baseline_s: round(base_build),
            build_patched_s: round(patched_build),
            boot_baseline_s: round(base_boot),
            boot_patched_s: round(patched_boot),
        },
        scenarios_per_campaign: a.scenarios,
        tun: tun.then(|| TunPair { baseline: results::tun(&base_res), patched: results::tun(&patched_res) }),
        devmem: match (&plan_base.devmem, &plan_patched.devmem) {
            (Some(b), Some(p)) => Some(DevmemPair { baseline: results::devmem(&base_res, b), patched: results::devmem(&patched_res, p) }),
            _ => None,
        },
    });
    finish(root, doc)
}

/// The released kernel's two boots: its plan's results and the reproducers.
#[derive(Clone)]
struct ReleasedRun {
    plan: String,
    res: PathBuf,
    boot_s: f64,
    repro: repro::ReproRun,
}

/// The released kernel's runs of this process: `ringlab verify --kernel`
/// tests every series against the same released kernel and plan, so it is
/// booted once (its results folder, runs/baseline, is written by no other
/// boot).
static RELEASED: std::sync::Mutex<Option<ReleasedRun>> = std::sync::Mutex::new(None);

/// Boots the released kernel with `plan` and then with the reproducers,
/// unless this process already did with the same plan.
fn released_run(root: &Path, base: &Kernel, plan: &Plan, payload: &Path) -> Result<ReleasedRun, String> {
    let text = vm::plan_text(plan);
    let mut cache = RELEASED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = cache.as_ref().filter(|r| r.plan == text && r.res.is_dir()) {
        eprintln!("kernel-test: the released kernel already ran this plan in this run: its results ({}) are read again", r.res.display());
        return Ok(r.clone());
    }
    step("booting the released kernel");
    let (res, boot_s) = vm::boot(root, base, plan, payload)?;
    // the reproducers are AF_XDP's, of no use to the tun or devmem plans
    let repro = if plan.tun_rounds > 0 || plan.devmem.is_some() {
        repro::ReproRun::default()
    } else {
        step("booting the released kernel once more with the reproducers alone (it must crash)");
        repro::run(root, base, payload, false, false)
    };
    let r = ReleasedRun { plan: text, res, boot_s, repro };
    *cache = Some(r.clone());
    Ok(r)
}

/// The patched kernel's label: `patched-` and the series folder's name.
fn patched_label(series: &Path) -> String {
    let name: String = series
        .file_name()
        .map(|n| n.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect())
        .unwrap_or_default();
    if name.is_empty() {
        "patched".into()
    } else {
        format!("patched-{name}")
    }
}

/// Whether a patch of `s` adds XDP_GENERIC_XMIT_BATCH (a `+` line naming
/// it), the knob the batch campaigns set.
fn adds_xmit_batch(s: &Series) -> bool {
    s.adds(None, "XDP_GENERIC_XMIT_BATCH")
}

/// Whether a patch of `s` adds XDP_REDIRECT_XSK, the action of
/// bpf_redirect_xsk() that the diff-redirect-xsk campaign takes.
fn adds_redirect_xsk(s: &Series) -> bool {
    s.adds(None, "XDP_REDIRECT_XSK")
}

/// The diff campaigns `plan` ran, read from a guest's results.
fn diff_runs(plan: &Plan, res: &Path) -> Vec<CampaignRun> {
    let mut runs: Vec<CampaignRun> = plan.campaigns.iter().map(|c| results::campaign(res, &c.name())).collect();
    if plan.mainline {
        runs.insert(0, results::campaign(res, "diff-mainline"));
    }
    if plan.redirect_xsk {
        runs.push(results::campaign(res, REDIRECT_XSK_STEP));
    }
    runs
}

/// The fault campaigns `plan` ran, read from a guest's results.
fn fault_runs(plan: &Plan, res: &Path) -> Vec<FaultRun> {
    let mut runs: Vec<FaultRun> = plan.faults.iter().map(|c| results::faults(res, &c.fault_name())).collect();
    if plan.faults_rx {
        runs.push(results::faults_rx(res, FAULTS_RX_STEP));
        if plan.redirect_xsk {
            runs.push(results::faults_rx(res, FAULTS_RX_XSK_STEP));
        }
    }
    runs
}

/// What the checks without a VM found.
fn static_doc(dir: &Path, s: &Series, cp: &[series::Checkpatch], w1: W1, a: &KernelTestArgs) -> KernelDoc {
    let sum = |f: fn(&series::Checkpatch) -> u32| cp.iter().map(|c| u64::from(f(c))).sum::<u64>();
    KernelDoc {
        header: ringlab_model::schema::Header::new(KernelDoc::DOCUMENT),
        series: dir.display().to_string(),
        patches: s.patches.len(),
        checkpatch_warnings: sum(|c| c.warnings),
        checkpatch_errors: sum(|c| c.errors),
        checkpatch_checks: sum(|c| c.checks),
        checkpatch: cp.to_vec(),
        w1,
        vm: false,
        seed: a.seed,
        ..Default::default()
    }
}

/// Names the problems, sets `ok` and saves the document.
fn finish(root: &Path, mut doc: KernelDoc) -> Result<KernelDoc, String> {
    doc.problems = doc.find_problems();
    doc.ok = doc.problems.is_empty();
    save(root, &doc)?;
    Ok(doc)
}

/// Writes target/ringlab/kernel/kernel.json (the last run) and
/// target/ringlab/kernel/<series folder>.json (that series' last run).
pub fn save(root: &Path, doc: &KernelDoc) -> Result<(), String> {
    let out = ringlab_model::paths::out_dir(root).join("kernel");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let text = serde_json::to_string_pretty(doc).map_err(|e| e.to_string())?;
    for name in ["kernel.json".to_string(), doc_name(&doc.series)] {
        std::fs::write(out.join(&name), &text).map_err(|e| format!("{}: {e}", out.join(&name).display()))?;
    }
    eprintln!("kernel-test: {}", out.join(doc_name(&doc.series)).display());
    Ok(())
}

/// Where `save` keeps the document of `series` (a folder path), relative
/// to the repository.
pub fn doc_path(series: &str) -> String {
    format!("target/ringlab/kernel/{}", doc_name(series))
}

fn doc_name(series: &str) -> String {
    let name = Path::new(series).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    if name.is_empty() || name == "kernel" {
        "series.json".into()
    } else {
        format!("{name}.json")
    }
}

fn step(s: &str) {
    eprintln!("kernel-test: {s}");
}

fn round(s: f64) -> f64 {
    (s * 10.0).round() / 10.0
}

fn tagged(mut f: FaultRun, kernel: &str) -> FaultRun {
    f.kernel_label = Some(kernel.into());
    f
}

/// Drivers the W=1 build configures beside AF_XDP, for the series that
/// touch them (UDMABUF gives the dma-buf core that NET_DEVMEM needs, with
/// veth's page pool, so devmem-autorelease's net/core/devmem.c builds).
const W1_DRIVERS: [&str; 5] = ["PCI", "I40E", "VETH", "TUN", "UDMABUF"];

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
    // i40e, veth, tun and udmabuf: the drivers a series may need
    // (xsk-redirect-xsk's last two patches, tun-napi-cache,
    // devmem-autorelease); none is in x86_64_defconfig.
    let configured = std::fs::read_to_string(build.join(".config")).is_ok_and(|c| W1_DRIVERS.iter().all(|d| c.contains(&format!("\nCONFIG_{d}=y\n"))));
    if !build.join("include/generated/autoconf.h").is_file() || !configured {
        std::fs::create_dir_all(&build).map_err(|e| format!("{}: {e}", build.display()))?;
        let b = build.display();
        sh(
            &format!(
                "make -s O={b} x86_64_defconfig && scripts/config --file {b}/.config -e BPF_SYSCALL -e XDP_SOCKETS {} && make -s O={b} olddefconfig && make -s -j2 O={b} prepare",
                W1_DRIVERS.map(|d| format!("-e {d}")).join(" ")
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
fn w1_check(tree: &Path, build: &Path, s: &Series) -> W1 {
    let targets = series::w1_targets(s);
    match series::apply_and_build(tree, build, "base", s, &targets) {
        Ok((baseline_warnings, steps)) => W1 {
            applied: steps.iter().filter(|st| st.applied).count(),
            new_warnings: steps.iter().map(|st| st.new_warnings.len()).sum(),
            targets,
            baseline_warnings,
            steps,
            error: None,
        },
        Err(e) => W1 { error: Some(e), ..Default::default() },
    }
}

/// What the released kernel's guest runs.
fn base_plan(a: &KernelTestArgs) -> Plan {
    Plan {
        xskxceiver: true,
        mainline: true,
        campaigns: vec![],
        redirect_xsk: false,
        faults: vec![Campaign { batch: 0, budget: 32 }],
        faults_rx: true,
        scenarios: a.scenarios,
        fault_rounds: a.fault_rounds,
        seed: a.seed,
        tun_rounds: 0,
        tun_failslab: 0,
        devmem: None,
    }
}

/// Rounds of the devmem receiver per token mode, and the percentage of
/// its token calls (recvmsg, SO_DEVMEM_DONTNEED) made with an allocation
/// fault armed.
pub const DEVMEM_ROUNDS: u64 = 20;
pub const DEVMEM_FAULTS: u32 = 10;

/// What both guests of a series that changes devmem run: the devmem
/// receiver in 6.12's token mode (the socket's xarray) between kmemleak's
/// clear and scan, and none of the AF_XDP campaigns.
fn devmem_plan(a: &KernelTestArgs) -> Plan {
    Plan {
        xskxceiver: false,
        mainline: false,
        faults: vec![],
        faults_rx: false,
        devmem: Some(vm::DevmemStep { modes: "xarray", rounds: DEVMEM_ROUNDS, mode_rule: false, faults: DEVMEM_FAULTS }),
        ..base_plan(a)
    }
}

/// The patched guest's devmem step: both token modes and the one-mode
/// rule where the series adds NETDEV_A_DMABUF_AUTORELEASE.
fn devmem_patched(d: vm::DevmemStep, autorelease: bool) -> vm::DevmemStep {
    if autorelease {
        vm::DevmemStep { modes: "xarray,array", mode_rule: true, ..d }
    } else {
        d
    }
}

/// Whether a patch of `s` changes net/core/devmem.c.
fn touches_devmem(s: &Series) -> bool {
    s.patches.iter().any(|p| std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l == "+++ b/net/core/devmem.c")))
}

/// Whether the series adds the bind-rx attribute that picks the token mode.
fn adds_autorelease(s: &Series) -> bool {
    s.patches.iter().any(|p| std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l.starts_with('+') && l.contains("NETDEV_A_DMABUF_AUTORELEASE"))))
}

/// Kicks per batch size of the tun workload, and failslab's percentage in
/// its fault run.
pub const TUN_ROUNDS: u64 = 20;
pub const TUN_FAILSLAB: u64 = 20;

/// What both guests of a series that touches tun run: the tun workload
/// between kmemleak's clear and scan, and none of the AF_XDP campaigns,
/// which such a series leaves alone.
fn tun_plan(a: &KernelTestArgs) -> Plan {
    Plan {
        xskxceiver: false,
        mainline: false,
        faults: vec![],
        faults_rx: false,
        tun_rounds: TUN_ROUNDS,
        tun_failslab: TUN_FAILSLAB,
        ..base_plan(a)
    }
}

/// Whether a patch of `s` changes drivers/net/tun.c.
fn touches_tun(s: &Series) -> bool {
    s.patches.iter().any(|p| std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l == "+++ b/drivers/net/tun.c")))
}

/// What the patched kernel's guest runs: the batch campaigns, which set
/// XDP_GENERIC_XMIT_BATCH, where the series adds it, otherwise the
/// released kernel's plan; the bpf_redirect_xsk() campaign where it adds
/// XDP_REDIRECT_XSK.
fn patched_plan(base: &Plan, batch: bool, redirect_xsk: bool) -> Plan {
    if batch {
        Plan { mainline: false, campaigns: PATCHED_CAMPAIGNS.to_vec(), faults: PATCHED_FAULTS.to_vec(), redirect_xsk, ..base.clone() }
    } else {
        Plan { redirect_xsk, ..base.clone() }
    }
}

/// What a mutant's guest runs: its series' patched plan without
/// xskxceiver, and for a series that adds XDP_GENERIC_XMIT_BATCH one
/// batch campaign and its faults instead of all of them.
fn mutant_plan(patched: &Plan, batch: bool) -> Plan {
    let mut p = Plan { xskxceiver: false, ..patched.clone() };
    if batch {
        (p.campaigns, p.faults) = (MUTANT_CAMPAIGNS.to_vec(), MUTANT_CAMPAIGNS.to_vec());
    }
    p
}

/// The series plus one mutant patch, built, booted and compared: caught
/// when a campaign diverges, a fault campaign finds a lost, doubly
/// completed or leaked frame, kmemleak reports a leak, or the guest's
/// kernel crashes.
fn mutant(root: &Path, s: &Series, patched: &Kernel, plan: &Plan, patch: &Path) -> Result<MutantRun, String> {
    let stem = patch.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let dir = vm::work_dir(root).join("mutant-series").join(&stem);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for p in &s.patches {
        std::fs::copy(p, dir.join(series::name(p))).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    std::fs::copy(patch, dir.join(format!("9999-{stem}.patch"))).map_err(|e| format!("{}: {e}", patch.display()))?;
    let k = Kernel { label: format!("mutant-{stem}"), series: Some(dir), seed: Some(patched.label.clone()) };
    step(&format!("building and booting mutant {stem}"));
    let (src, build_s) = vm::build(root, &k)?;
    let payload = vm::payload(root, &k, &src)?;
    let t = std::time::Instant::now();
    let (res, boot_s) = match vm::boot(root, &k, plan, &payload) {
        Ok(r) => r,
        // a kernel that crashes is caught, by the crash
        Err(vm::BootError::Crashed(c)) => {
            return Ok(MutantRun {
                patch: patch.display().to_string(),
                caught: true,
                caught_by: vec![format!("crash:{}", c.step)],
                crash: Some(c),
                times: Some(MutantTimes { build_s: round(build_s), boot_s: round(t.elapsed().as_secs_f64()) }),
                ..Default::default()
            })
        }
        Err(e) => return Err(e.into()),
    };
    let runs = diff_runs(plan, &res);
    let faults = fault_runs(plan, &res);
    let leaks = results::kmemleak(&res);
    // the mutant kernel has the series: its tun counts every drop
    let tun_broke = plan.tun_rounds > 0 && !results::tun(&res).problems(true).is_empty();
    let devmem_broke = plan.devmem.as_ref().is_some_and(|d| !results::devmem(&res, d).problems().is_empty());
    let diverged = runs.iter().any(|r| r.divergences() > 0);
    let broke = |f: fn(&FaultRun) -> u64| faults.iter().any(|r| f(r) > 0);
    let caught_by: Vec<String> = [
        ("diff", diverged),
        ("faults:lost", broke(FaultRun::lost)),
        ("faults:double", broke(FaultRun::double)),
        ("faults:leaks", broke(FaultRun::leaks)),
        ("kmemleak", leaks.unreferenced > 0),
        ("tun", tun_broke),
        ("devmem", devmem_broke),
    ]
    .into_iter()
    .filter_map(|(name, hit)| hit.then(|| name.to_string()))
    .collect();
    let divergence = runs.iter().filter_map(|r| r.doc.as_ref()).find(|d| d.divergences > 0).and_then(|d| d.first_divergence.clone());
    Ok(MutantRun {
        patch: patch.display().to_string(),
        caught: !caught_by.is_empty(),
        caught_by,
        error: None,
        divergence,
        runs,
        faults,
        kmemleak: Some(leaks),
        crash: None,
        times: Some(MutantTimes { build_s: round(build_s), boot_s: round(boot_s) }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_batch_series_gets_the_batch_campaigns() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let batch = Series::read(&root.join("patches/xsk-batch-xmit")).unwrap();
        let redirect = Series::read(&root.join("patches/xsk-redirect-xsk")).unwrap();
        assert!(adds_xmit_batch(&batch));
        assert!(!adds_xmit_batch(&redirect));
        assert!(adds_redirect_xsk(&redirect));
        assert!(!adds_redirect_xsk(&batch));
    }

    #[test]
    fn a_mutant_runs_what_its_series_kernel_can() {
        let a = KernelTestArgs {
            series: None,
            mutants: vec![],
            scenarios: 5,
            fault_rounds: 3,
            seed: 1,
            json: false,
            no_vm: false,
            empty: Default::default(),
        };
        let plan = |batch, redirect_xsk| mutant_plan(&patched_plan(&base_plan(&a), batch, redirect_xsk), batch);
        let text = vm::plan_text(&plan(true, false));
        assert!(text.contains("--profile batch --batch 16") && !text.contains("diff-mainline") && !text.contains("xskxceiver"), "{text}");
        assert!(!text.contains("--redirect"), "{text}");
        let text = vm::plan_text(&plan(false, false));
        assert!(text.contains("--profile 6.12") && text.contains("faults --json --batch 0") && !text.contains("--profile batch"), "{text}");
        assert!(!text.contains("xskxceiver") && !text.contains("--redirect"), "{text}");
        // xsk-redirect-xsk's mutants: caught only through bpf_redirect_xsk()
        let text = vm::plan_text(&plan(false, true));
        assert!(text.contains("diff-mainline") && text.contains("faults --json --batch 0"), "{text}");
        assert!(text.contains("diff-redirect-xsk 601 /ringlab/ringlab diff --json --no-chain --profile 6.12 --redirect xsk --scenarios 5 --seed 1\n"), "{text}");
    }

    #[test]
    fn a_devmem_series_runs_the_devmem_receiver_alone() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let devmem = Series::read(&root.join("patches/devmem-autorelease")).unwrap();
        assert!(touches_devmem(&devmem) && adds_autorelease(&devmem));
        let batch = Series::read(&root.join("patches/xsk-batch-xmit")).unwrap();
        assert!(!touches_devmem(&batch) && !adds_autorelease(&batch));
        let a = KernelTestArgs { series: None, mutants: vec![], scenarios: 5, fault_rounds: 3, seed: 9, json: false, no_vm: false, empty: Default::default() };
        let base = devmem_plan(&a);
        let base_text = vm::plan_text(&base);
        assert!(base_text.contains("\ndevmem 900 /ringlab/ringlab devmem --json --modes xarray --rounds 20 --steps 60 --socks 3 --faults 10 --seed 9\n"), "{base_text}");
        assert!(!base_text.contains(" diff ") && !base_text.contains("xskxceiver") && !base_text.contains(" faults "), "{base_text}");
        let patched = Plan { devmem: base.devmem.clone().map(|d| devmem_patched(d, true)), ..base.clone() };
        let text = vm::plan_text(&mutant_plan(&patched, false));
        assert!(text.contains("devmem --json --modes xarray,array --rounds 20 --steps 60 --socks 3 --faults 10 --seed 9 --mode-rule\n"), "{text}");
        assert!(text.find("kmemleak-clear").unwrap() < text.find("devmem 900").unwrap() && text.find("devmem 900").unwrap() < text.find("kmemleak 600").unwrap(), "{text}");
        // a series without the attribute keeps 6.12's mode alone
        assert_eq!(devmem_patched(base.devmem.clone().unwrap(), false), base.devmem.unwrap());
        assert!(!vm::plan_text(&base_plan(&a)).contains("devmem"));
    }

    #[test]
    fn a_tun_series_runs_the_tun_workload_alone() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(touches_tun(&Series::read(&root.join("patches/tun-napi-cache")).unwrap()));
        assert!(!touches_tun(&Series::read(&root.join("patches/xsk-batch-xmit")).unwrap()));
        let a = KernelTestArgs { series: None, mutants: vec![], scenarios: 5, fault_rounds: 3, seed: 1, json: false, no_vm: false, empty: Default::default() };
        let text = vm::plan_text(&mutant_plan(&patched_plan(&tun_plan(&a), false, false), false));
        assert!(text.contains("\ntun-vhost 900 /ringlab/ringlab tun-vhost --json --rounds 20 --failslab 20\n"), "{text}");
        // between kmemleak's clear and its scan, and no AF_XDP campaign
        assert!(text.find("kmemleak-clear").unwrap() < text.find("tun-vhost").unwrap() && text.find("tun-vhost").unwrap() < text.find("kmemleak 600").unwrap(), "{text}");
        assert!(!text.contains(" diff ") && !text.contains(" faults ") && !text.contains("xskxceiver"), "{text}");
        assert!(!vm::plan_text(&base_plan(&a)).contains("tun-vhost"));
    }

    #[test]
    fn each_series_has_its_own_patched_label() {
        assert_eq!(patched_label(Path::new("kernel/patches/xsk-batch-xmit")), "patched-xsk-batch-xmit");
        assert_eq!(patched_label(Path::new("/tmp/my series/")), "patched-my_series");
        assert_eq!(patched_label(Path::new("/")), "patched");
    }
}
