//! The VM side of `ringlab kernel-test`: kernels built and booted by the
//! scripts in kernel/vm/, each with a plan of commands the guest runs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::crash::{self, Crash};
use super::kmemleak;

/// One kernel under test.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// baseline, patched, or mutant-<name>.
    pub label: String,
    /// The series folder, or None for 6.12.117 as released.
    pub series: Option<PathBuf>,
    /// A built kernel whose tree a new tree of this one starts from, so
    /// only what its patches touch is compiled (build-kernel.sh --seed).
    pub seed: Option<String>,
}

/// A differential campaign in the guest: a batch size (0: the
/// per-descriptor loop) and a TX budget.
#[derive(Debug, Clone, Copy)]
pub struct Campaign {
    pub batch: u32,
    pub budget: u32,
}

/// What the guest runs and how much.
#[derive(Debug, Clone)]
pub struct Plan {
    pub xskxceiver: bool,
    /// The 6.12 (mainline) profile, for the baseline kernel.
    pub mainline: bool,
    pub campaigns: Vec<Campaign>,
    /// The 6.12 profile's receive scenarios through bpf_redirect_xsk(),
    /// for a series that adds XDP_REDIRECT_XSK.
    pub redirect_xsk: bool,
    pub faults: Vec<Campaign>,
    /// The receive-path fault campaign (faults-rx).
    pub faults_rx: bool,
    pub scenarios: u64,
    pub fault_rounds: u64,
    pub seed: u64,
    /// `ringlab tun-vhost`'s rounds per batch size (0: not run), then the
    /// same under failslab at `tun_failslab`%.
    pub tun_rounds: u64,
    pub tun_failslab: u64,
    /// `ringlab devmem`'s step, for a series that changes devmem.
    pub devmem: Option<DevmemStep>,
}

/// What `ringlab devmem` runs in a guest: its token modes (comma list),
/// rounds, whether the one-mode rule is checked, and its fault rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevmemStep {
    pub modes: &'static str,
    pub rounds: u64,
    pub mode_rule: bool,
    /// Percentage of the receiver's token calls made with an allocation
    /// fault armed.
    pub faults: u32,
}

impl Campaign {
    pub fn name(&self) -> String {
        format!("diff-batch{}-budget{}", self.batch, self.budget)
    }

    pub fn fault_name(&self) -> String {
        format!("faults-batch{}-budget{}", self.batch, self.budget)
    }
}

/// The plan step of the bpf_redirect_xsk() campaign.
pub const REDIRECT_XSK_STEP: &str = "diff-redirect-xsk";
/// The plan step of the receive-path fault campaign.
pub const FAULTS_RX_STEP: &str = "faults-rx";
/// The same campaign through bpf_redirect_xsk(), for a series that adds
/// XDP_REDIRECT_XSK: the only campaign whose frames take a driver's
/// XDP_REDIRECT_XSK path (the diff attaches its program in SKB mode).
pub const FAULTS_RX_XSK_STEP: &str = "faults-rx-xsk";

/// The plan file guest/init reads: `NAME TIMEOUT_SECONDS COMMAND...`.
pub fn plan_text(p: &Plan) -> String {
    let d = "/ringlab/ringlab";
    let mut t = String::from("# written by ringlab kernel-test\n");
    t += &format!("probe 300 {d} probe\n");
    // every campaign's leaks, and only theirs: what boot left is forgotten
    t += &format!("{} 120 sh /ringlab/kmemleak.sh clear\n", kmemleak::CLEAR_STEP);
    let (diff, faults) = (step_limit(p.scenarios), step_limit(p.fault_rounds));
    if p.mainline {
        t += &format!("diff-mainline {diff} {d} diff --json --no-chain --profile 6.12 --scenarios {} --seed {}\n", p.scenarios, p.seed);
    }
    if p.redirect_xsk {
        t += &format!(
            "{REDIRECT_XSK_STEP} {diff} {d} diff --json --no-chain --profile 6.12 --redirect xsk --scenarios {} --seed {}\n",
            p.scenarios, p.seed
        );
    }
    // each campaign its own seed (seed + its place), so no two draw the
    // same scenarios; every seed is in the campaign's JSON
    for (i, c) in p.campaigns.iter().enumerate() {
        t += &format!(
            "{} {diff} {d} diff --json --no-chain --profile batch --batch {} --budget {} --scenarios {} --seed {}\n",
            c.name(),
            c.batch,
            c.budget,
            p.scenarios,
            p.seed + 1 + i as u64
        );
    }
    for (i, c) in p.faults.iter().enumerate() {
        t += &format!(
            "{} {faults} {d} faults --json --batch {} --budget {} --rounds {} --seed {}\n",
            c.fault_name(),
            c.batch,
            c.budget,
            p.fault_rounds,
            p.seed + i as u64
        );
    }
    if p.tun_rounds > 0 {
        t += &format!("{} 900 {d} tun-vhost --json --rounds {} --failslab {}\n", super::results::TUN_STEP, p.tun_rounds, p.tun_failslab);
    }
    if let Some(dm) = &p.devmem {
        let rule = if dm.mode_rule { " --mode-rule" } else { "" };
        t += &format!(
            "{} 900 {d} devmem --json --modes {} --rounds {} --steps 60 --socks 3 --faults {} --seed {}{rule}\n",
            super::results::DEVMEM_STEP,
            dm.modes,
            dm.rounds,
            dm.faults,
            p.seed
        );
    }
    if p.faults_rx {
        t += &format!("{FAULTS_RX_STEP} {faults} {d} faults --rx --json --rounds {} --seed {}\n", p.fault_rounds, p.seed);
        if p.redirect_xsk {
            t += &format!(
                "{FAULTS_RX_XSK_STEP} {faults} {d} faults --rx --redirect xsk --json --rounds {} --seed {}\n",
                p.fault_rounds, p.seed
            );
        }
    }
    t += &format!("{} 600 sh /ringlab/kmemleak.sh scan\n", kmemleak::SCAN_STEP);
    if p.xskxceiver {
        // Last, with kmemleak off: its 9K cases' receive loop has a
        // compiled-in 3 s limit, which kmemleak's cost per allocation
        // under TCG pushes them past. The run script's own budget stops
        // starting cases before the plan's timeout, so its summary is
        // always printed.
        t += &format!("{} 60 sh /ringlab/kmemleak.sh off\n", kmemleak::OFF_STEP);
        t += "xskxceiver 2400 sh /ringlab/xskxceiver/xskxceiver-run.sh --exclude /ringlab/xskxceiver/exclude.txt --budget 2000\n";
    }
    t
}

/// A campaign step's limit in the guest: 500 scenarios take about 20 s
/// under TCG, so 0.2 s each plus ten minutes is several times what a
/// healthy kernel needs, and a hung one is stopped in minutes, not hours.
fn step_limit(n: u64) -> u64 {
    600 + n / 5
}

/// The whole VM's limit: every step's own, plus boot and shipping the
/// results. The last resort only: a crash stops the VM in seconds.
pub fn vm_limit(p: &Plan) -> u64 {
    let steps: u64 = plan_text(p).lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()).sum();
    steps + 300
}

/// Why a boot gave no results.
#[derive(Debug)]
pub enum BootError {
    /// The guest's kernel crashed (boot.sh stopped the VM).
    Crashed(Crash),
    Other(String),
}

impl From<BootError> for String {
    fn from(e: BootError) -> String {
        match e {
            BootError::Crashed(c) => format!("{}\n    {}", c.summary(), c.lines.join("\n    ")),
            BootError::Other(s) => s,
        }
    }
}

/// Where everything of the pipeline lives (built trees, kernels, runs).
pub fn work_dir(root: &Path) -> PathBuf {
    std::env::var_os("RINGLAB_KERNEL_VM_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target/ringlab/kernel-vm"))
}

/// Runs a script of kernel/vm/, its output passed through, and returns
/// its stdout.
fn script(root: &Path, name: &str, args: &[String]) -> Result<String, String> {
    let path = root.join("kernel/vm").join(name);
    let mut cmd = Command::new("bash");
    cmd.arg(&path).args(args).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::inherit());
    // a SIGINT or SIGTERM of ours stops the script, its builds and its VM
    let o = crate::interrupt::output_in_group(&mut cmd).map_err(|e| format!("{}: {e}", path.display()))?;
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    for l in out.lines() {
        eprintln!("  {l}");
    }
    if o.status.success() {
        Ok(out)
    } else {
        Err(format!("kernel/vm/{name} {} failed ({})", args.join(" "), o.status))
    }
}

/// Builds `k` (cached by kernel/vm/build-kernel.sh); returns its source
/// tree and the build's wall time.
pub fn build(root: &Path, k: &Kernel) -> Result<(PathBuf, f64), String> {
    let kdir = work_dir(root).join("kernels").join(&k.label);
    let series = k.series.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "none".into());
    let t = Instant::now();
    let mut args = vec!["--series".into(), series, "--out".into(), kdir.display().to_string(), "--label".into(), k.label.clone()];
    if let Some(seed) = &k.seed {
        args.extend(["--seed".into(), seed.clone()]);
    }
    script(root, "build-kernel.sh", &args)?;
    let src = std::fs::read_to_string(kdir.join("src-path")).map_err(|e| format!("{}/src-path: {e}", kdir.display()))?;
    Ok((PathBuf::from(src.trim()), t.elapsed().as_secs_f64()))
}

/// The VM's test-only patches (kernel/vm/patches), which build-kernel.sh
/// applies to every kernel before its series.
pub fn test_patches(root: &Path) -> PathBuf {
    root.join("kernel/vm/patches")
}

/// The guest payload of `k`: ringlab (without its debug information) and
/// xskxceiver built from `src`.
pub fn payload(root: &Path, k: &Kernel, src: &Path) -> Result<PathBuf, String> {
    let bin = root.join("target/release/ringlab");
    if !bin.is_file() {
        return Err(format!("{}: missing (cargo build --release -p ringlab)", bin.display()));
    }
    let dir = work_dir(root).join("payload").join(&k.label);
    let xsk = work_dir(root).join("xskxceiver").join(&k.label);
    script(root, "xskxceiver.sh", &["--src".into(), src.display().to_string(), "--out".into(), xsk.display().to_string()])?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("xskxceiver")).map_err(|e| format!("{}: {e}", dir.display()))?;
    strip_copy(&bin, &dir.join("ringlab"))?;
    let leak = root.join("kernel/vm/guest/kmemleak.sh");
    std::fs::copy(&leak, dir.join("kmemleak.sh")).map_err(|e| format!("{}: {e}", leak.display()))?;
    let exclude = root.join("kernel/vm/xskxceiver-exclude.txt");
    std::fs::copy(&exclude, dir.join("xskxceiver/exclude.txt")).map_err(|e| format!("{}: {e}", exclude.display()))?;
    for e in std::fs::read_dir(&xsk).map_err(|e| format!("{}: {e}", xsk.display()))?.flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), dir.join("xskxceiver").join(e.file_name())).map_err(|er| format!("{}: {er}", e.path().display()))?;
        }
    }
    Ok(dir)
}

/// Boots `k` with `plan`; returns the folder holding the guest's results
/// (NAME.out, NAME.rc, ...) and the boot's wall time, or the crash that
/// ended the VM.
pub fn boot(root: &Path, k: &Kernel, plan: &Plan, payload: &Path) -> Result<(PathBuf, f64), BootError> {
    let t = Instant::now();
    let res = boot_text(root, k, "", &plan_text(plan), vm_limit(plan), payload)?;
    Ok((res, t.elapsed().as_secs_f64()))
}

/// Boots `k` with the plan `text`, `limit` seconds at most; its run folder
/// is runs/<label> and `suffix` (`-suffix`) when that is not empty.
pub fn boot_text(root: &Path, k: &Kernel, suffix: &str, text: &str, limit: u64, payload: &Path) -> Result<PathBuf, BootError> {
    let name = if suffix.is_empty() { k.label.clone() } else { format!("{}-{suffix}", k.label) };
    let out = work_dir(root).join("runs").join(name);
    let _ = std::fs::remove_dir_all(&out);
    let io = |p: &Path, e: std::io::Error| BootError::Other(format!("{}: {e}", p.display()));
    std::fs::create_dir_all(&out).map_err(|e| io(&out, e))?;
    let plan_file = out.join("plan");
    std::fs::write(&plan_file, text).map_err(|e| io(&plan_file, e))?;
    let series = k.series.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "none".into());
    script(
        root,
        "run.sh",
        &[
            "--label".into(),
            k.label.clone(),
            "--series".into(),
            series,
            "--plan".into(),
            plan_file.display().to_string(),
            "--out".into(),
            out.display().to_string(),
            "--payload".into(),
            payload.display().to_string(),
            "--timeout".into(),
            limit.to_string(),
        ],
    )
    .map_err(|e| crash::find(&out).map(BootError::Crashed).unwrap_or(BootError::Other(e)))?;
    Ok(out.join("results"))
}

/// Copies an executable without its debug sections (objcopy), which the
/// guest has no use for and which would triple the initramfs; a plain copy
/// where objcopy is missing.
fn strip_copy(from: &Path, to: &Path) -> Result<(), String> {
    let stripped = Command::new("objcopy").arg("--strip-debug").arg(from).arg(to).status().is_ok_and(|s| s.success());
    if !stripped {
        std::fs::copy(from, to).map_err(|e| format!("copying {}: {e}", from.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_lines_name_timeout_command() {
        let p = Plan {
            xskxceiver: true,
            mainline: true,
            campaigns: vec![Campaign { batch: 16, budget: 64 }],
            redirect_xsk: true,
            faults: vec![Campaign { batch: 0, budget: 32 }],
            faults_rx: true,
            scenarios: 7,
            fault_rounds: 9,
            seed: 3,
            tun_rounds: 0,
            tun_failslab: 0,
            devmem: None,
        };
        let t = plan_text(&p);
        for l in t.lines().filter(|l| !l.starts_with('#')) {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert!(w.len() >= 3 && w[1].parse::<u64>().is_ok(), "{l}");
        }
        // probe 300, kmemleak 120 + 600 + 60, xskxceiver 2400, mainline,
        // redirect-xsk, one diff, one fault, faults-rx, faults-rx-xsk: 601
        // each
        assert_eq!(vm_limit(&p), 300 + 120 + 600 + 60 + 2400 + 6 * 601 + 300);
        assert!(t.contains("\nkmemleak-clear 120 sh /ringlab/kmemleak.sh clear\n"), "{t}");
        assert!(t.contains("faults-rx 601 /ringlab/ringlab faults --rx --json --rounds 9 --seed 3\n"), "{t}");
        assert!(t.contains("faults-rx-xsk 601 /ringlab/ringlab faults --rx --redirect xsk --json --rounds 9 --seed 3\n"), "{t}");
        let map_only = plan_text(&Plan { redirect_xsk: false, ..p.clone() });
        assert!(!map_only.contains("faults-rx-xsk"), "{map_only}");
        // the campaigns scanned, then kmemleak off for xskxceiver
        assert!(t.contains("\nkmemleak 600 sh /ringlab/kmemleak.sh scan\nkmemleak-off 60 sh /ringlab/kmemleak.sh off\nxskxceiver 2400 "), "{t}");
        let t = plan_text(&Plan { xskxceiver: false, ..p.clone() });
        assert!(t.ends_with("kmemleak 600 sh /ringlab/kmemleak.sh scan\n"), "{t}");
        // cleared after the probe, before every campaign
        assert!(t.lines().nth(2).unwrap().starts_with("kmemleak-clear "), "{t}");
        assert!(t.contains("diff-redirect-xsk 601 /ringlab/ringlab diff --json --no-chain --profile 6.12 --redirect xsk --scenarios 7 --seed 3\n"), "{t}");
        assert!(!plan_text(&Plan { redirect_xsk: false, ..p }).contains("redirect"));
        assert!(t.contains("diff-batch16-budget64 601 /ringlab/ringlab diff --json --no-chain --profile batch --batch 16 --budget 64 --scenarios 7 --seed 4"));
        assert!(t.contains("faults-batch0-budget32 601 /ringlab/ringlab faults --json --batch 0 --budget 32 --rounds 9 --seed 3"));
    }
}
