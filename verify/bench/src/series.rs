//! `ringlab bench series`: a kernel series' transmit cost, in guest
//! instructions a packet. The released and the patched kernel are built
//! (cached) and booted once each in qemu TCG with the instruction-count
//! plugin (kernel/vm/insn-count/insn_count.c); the guest (series_guest.rs)
//! sends exactly N frames a case between two markers. TCG distorts time,
//! not instructions: the counts are the figure, the guest's pps are shown
//! for what they are.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;
use ringlab_kernel::kernel_test::vm::{self, Kernel};

use super::series_print;
use super::series_profile::{by_function, parse_blocks, FnCost, Symbols};
use super::series_table::{cells, parse_plugin, set_ratios, Cell, GuestCase};

#[derive(Args, Debug, Clone)]
pub struct SeriesArgs {
    /// The series folder (patches against 6.12.117)
    #[arg(long, default_value = "kernel/patches/xsk-batch-xmit")]
    pub series: PathBuf,
    /// Frames a case
    #[arg(long, default_value_t = 20000)]
    pub packets: u64,
    /// One JSON document instead of the table
    #[arg(long)]
    pub json: bool,
    /// Also profile each case by kernel function (the plugin's profile=1)
    /// and print the N functions whose cost differs most from the
    /// reference case
    #[arg(long, value_name = "N")]
    pub profile: Option<usize>,
}

/// Both kernels' cells (and, with --profile, each case's cost by
/// function), or why they could not be measured.
pub enum Outcome {
    Measured(Vec<Cell>, Vec<FnCost>),
    Skipped(String),
}

pub fn run(a: &SeriesArgs) -> Result<bool, String> {
    if a.packets == 0 {
        return Err("--packets must be at least 1".into());
    }
    let root = ringlab_model::paths::find_root()?;
    let out = measure(&root, a)?;
    series_print::print(&out, a.packets, a.json, a.profile)
}

fn measure(root: &Path, a: &SeriesArgs) -> Result<Outcome, String> {
    let series = if a.series.is_absolute() { a.series.clone() } else { root.join(&a.series) };
    if !series.is_dir() {
        return Err(format!("--series {}: no such folder", series.display()));
    }
    if Command::new("qemu-system-x86_64").arg("--version").output().is_err() {
        return Ok(Outcome::Skipped("no qemu-system-x86_64 (kernel/vm/deps.sh installs it)".into()));
    }
    let plugin = match build_plugin(root) {
        Ok(p) => p,
        Err(e) => return Ok(Outcome::Skipped(e)),
    };
    let name = series.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let kernels = [
        ("6.12.117", Kernel { label: "baseline".into(), series: None, seed: None }),
        ("patched", Kernel { label: format!("patched-{name}"), series: Some(series.clone()), seed: Some("baseline".into()) }),
    ];
    let mut all = Vec::new();
    let mut profile = Vec::new();
    let mut base_copy = None;
    for (shown, k) in &kernels {
        eprintln!("bench series: {} ({})", shown, k.label);
        let (src, _) = vm::build(root, k)?;
        // read now: a later build of the same label rewrites it
        let syms = if a.profile.is_some() { Some(Symbols::load(&src.join("System.map"))?) } else { None };
        let payload = payload(root, k)?;
        let plan = plan_text(a.packets);
        // boot.sh loads the plugin when this names it (ours alone runs)
        std::env::set_var("RINGLAB_QEMU_PLUGIN", &plugin);
        if a.profile.is_some() {
            std::env::set_var("RINGLAB_QEMU_PLUGIN_ARGS", "profile=1");
        }
        let res = vm::boot_text(root, k, "series", &plan, step_limit(a.packets) + 300, &payload);
        std::env::remove_var("RINGLAB_QEMU_PLUGIN");
        std::env::remove_var("RINGLAB_QEMU_PLUGIN_ARGS");
        let res = res.map_err(String::from)?;
        let (cases, plugin) = read_run(&res)?;
        let counts = parse_plugin(&plugin)?;
        if let Some(syms) = &syms {
            let blocks = parse_blocks(&plugin)?;
            for c in cases.iter().filter(|c| c.refused.is_none() && c.error.is_none()) {
                profile.extend(by_function(&blocks, c.marker + 1, c.packets, syms, &c.case, shown));
            }
        }
        let mut c = cells(shown, &cases, &counts);
        if base_copy.is_none() {
            base_copy = c.first().and_then(|c| c.insn_per_packet);
        }
        all.append(&mut c);
    }
    set_ratios(&mut all, base_copy);
    Ok(Outcome::Measured(all, profile))
}

/// kmemleak off first: the debug kernels track every allocation, a cost
/// per packet that the released kernels of the seed's figures do not have.
fn plan_text(packets: u64) -> String {
    format!(
        "{} 60 sh /ringlab/kmemleak.sh off\nseries {} /ringlab/ringlab bench series-guest --packets {packets}\n",
        ringlab_kernel::kernel_test::kmemleak::OFF_STEP,
        step_limit(packets)
    )
}

/// A generous limit: about 100 000 guest instructions a frame at a few
/// million a second under TCG with the plugin, five cases and warm-ups.
fn step_limit(packets: u64) -> u64 {
    600 + packets / 50
}

/// The guest's case lines and the plugin's output of one run.
fn read_run(results: &Path) -> Result<(Vec<GuestCase>, String), String> {
    let read = |p: PathBuf| std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()));
    let out = read(results.join("series.out"))?;
    let cases: Vec<GuestCase> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{}: '{l}': {e}", results.join("series.out").display())))
        .collect::<Result<_, _>>()?;
    if cases.is_empty() {
        let err = std::fs::read_to_string(results.join("series.err")).unwrap_or_default();
        return Err(format!("the guest reported no case: {}", err.trim()));
    }
    Ok((cases, read(results.parent().unwrap_or(results).join("plugin.out"))?))
}

/// The plugin built with the host's cc into the work folder.
fn build_plugin(root: &Path) -> Result<PathBuf, String> {
    compile_plugin(root, &vm::work_dir(root).join("insn-count"))
}

/// cc with every warning an error: the plugin is small and loaded into
/// qemu, where a mistake shows only as a wrong count.
fn compile_plugin(root: &Path, dir: &Path) -> Result<PathBuf, String> {
    let src = root.join("kernel/vm/insn-count/insn_count.c");
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let so = dir.join("insn_count.so");
    let o = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&so)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run cc to build the qemu plugin: {e}"))?;
    if !o.status.success() {
        return Err(format!("cc could not build {}: {}", src.display(), String::from_utf8_lossy(&o.stderr).trim()));
    }
    Ok(so)
}

/// The guest needs ringlab (without its debug information) and the
/// kmemleak switch.
fn payload(root: &Path, k: &Kernel) -> Result<PathBuf, String> {
    let bin = root.join("target/release/ringlab");
    if !bin.is_file() {
        return Err(format!("{}: missing (cargo build --release -p ringlab)", bin.display()));
    }
    let dir = vm::work_dir(root).join("payload").join(format!("{}-series", k.label));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let to = dir.join("ringlab");
    let stripped = Command::new("objcopy").arg("--strip-debug").arg(&bin).arg(&to).status().is_ok_and(|s| s.success());
    if !stripped {
        std::fs::copy(&bin, &to).map_err(|e| format!("copying {}: {e}", bin.display()))?;
    }
    let leak = root.join("kernel/vm/guest/kmemleak.sh");
    std::fs::copy(&leak, dir.join("kmemleak.sh")).map_err(|e| format!("{}: {e}", leak.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_compiles_without_a_warning() {
        let root = ringlab_model::paths::find_root().unwrap();
        let dir = std::env::temp_dir().join(format!("ringlab-insn-count-{}", std::process::id()));
        let so = compile_plugin(&root, &dir).unwrap();
        assert!(so.is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_plan_turns_kmemleak_off_then_sends() {
        let t = plan_text(500);
        let l: Vec<&str> = t.lines().collect();
        assert_eq!(l[0], "kmemleak-off 60 sh /ringlab/kmemleak.sh off");
        assert_eq!(l[1], "series 610 /ringlab/ringlab bench series-guest --packets 500");
    }
}
