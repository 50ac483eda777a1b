//! The test VM's half of `ringlab diff --kernels host,vm:6.12`: 6.12.117
//! as released, booted with the campaign alone, every scenario's answer
//! shipped back as a JSON line; then `ringlab diff --boundary`, its
//! document the last JSON line of its output.

use std::path::Path;

use crate::boundary::BoundaryDoc;
use crate::campaign::Observed;
use crate::diff_doc::DiffDoc;

use super::vm::{self, BootError, Kernel};

/// The plan step.
pub const STEP: &str = "kernels-diff";
/// Where the guest writes its answers (shipped back with /results).
const OBSERVED: &str = "kernels-observed.jsonl";
/// The plan step of the boundary descriptors.
pub const BOUNDARY_STEP: &str = "kernels-boundary";

/// The guest's campaign: its summary and every scenario's answer.
pub struct VmSide {
    pub doc: DiffDoc,
    pub observed: Vec<Observed>,
    /// The guest's `ringlab diff --boundary`, or why there is none.
    pub boundary: Result<BoundaryDoc, String>,
    pub boot_seconds: f64,
}

pub fn plan_text(scenarios: u64, seed: u64) -> String {
    format!(
        "# written by ringlab diff --kernels\nprobe 300 /ringlab/ringlab probe\n{STEP} {} /ringlab/ringlab diff --json --no-chain --profile 6.12 --scenarios {scenarios} --seed {seed} --observe /results/{OBSERVED}\n{BOUNDARY_STEP} 300 /ringlab/ringlab diff --boundary --json\n",
        600 + scenarios / 5
    )
}

/// Builds (or reuses) the released kernel and runs the campaign on it.
pub fn run(root: &Path, scenarios: u64, seed: u64) -> Result<VmSide, String> {
    let t = std::time::Instant::now();
    let k = Kernel { label: "baseline".into(), series: None, seed: None };
    let (src, _) = vm::build(root, &k)?;
    let payload = vm::payload(root, &k, &src)?;
    let limit = 1200 + scenarios / 5;
    let res = match vm::boot_text(root, &k, "kernels", &plan_text(scenarios, seed), limit, &payload) {
        Ok(r) => r,
        Err(BootError::Crashed(c)) => return Err(format!("6.12.117 crashed: {}", c.summary())),
        Err(BootError::Other(e)) => return Err(e),
    };
    let out = res.join(format!("{STEP}.out"));
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let last = text.lines().rev().find(|l| l.starts_with('{')).ok_or_else(|| {
        let err = std::fs::read_to_string(res.join(format!("{STEP}.err"))).unwrap_or_default();
        format!("the guest's campaign printed no JSON ({}): {}", out.display(), err.lines().last().unwrap_or(""))
    })?;
    let doc: DiffDoc = serde_json::from_str(last).map_err(|e| format!("{}: {e}", out.display()))?;
    let file = res.join(OBSERVED);
    let observed = read_observed(&file)?;
    let boundary = last_json(&res, BOUNDARY_STEP).and_then(|(l, out)| serde_json::from_str(&l).map_err(|e| format!("{}: {e}", out.display())));
    Ok(VmSide { doc, observed, boundary, boot_seconds: t.elapsed().as_secs_f64() })
}

/// The last JSON line plan step `step` printed, and the file it is in;
/// Err with the last line of its stderr if there is none.
fn last_json(res: &Path, step: &str) -> Result<(String, std::path::PathBuf), String> {
    let out = res.join(format!("{step}.out"));
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    match text.lines().rev().find(|l| l.starts_with('{')) {
        Some(l) => Ok((l.to_string(), out)),
        None => {
            let err = std::fs::read_to_string(res.join(format!("{step}.err"))).unwrap_or_default();
            Err(format!("the guest's {step} printed no JSON ({}): {}", out.display(), err.lines().last().unwrap_or("")))
        }
    }
}

/// A file of `ringlab diff --observe`: one [`Observed`] a line.
pub fn read_observed(file: &Path) -> Result<Vec<Observed>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: not an observed scenario: {e}", file.display(), i + 1)))
        .collect()
}

/// Writes `observed` as `ringlab diff --observe` does.
pub fn write_observed(file: &Path, observed: &[Observed]) -> Result<(), String> {
    let mut text = String::new();
    for o in observed {
        text += &serde_json::to_string(o).map_err(|e| e.to_string())?;
        text.push('\n');
    }
    std::fs::write(file, text).map_err(|e| format!("{}: {e}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observed_files_round_trip_and_name_a_bad_line() {
        let s = crate::gen::scenario(3);
        let o = Observed { seed: 3, kernel: ringlab_model::afxdp::predict(&s, &ringlab_model::afxdp::V6_12), scenario: s };
        let dir = std::env::temp_dir().join(format!("ringlab-observed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("o.jsonl");
        write_observed(&f, &[o.clone(), o.clone()]).unwrap();
        assert_eq!(read_observed(&f).unwrap(), vec![o.clone(), o]);
        std::fs::write(&f, "{\"seed\": 1}\n").unwrap();
        assert!(read_observed(&f).unwrap_err().contains("o.jsonl:1: not an observed scenario"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_plan_runs_the_campaign_with_its_answers() {
        let t = plan_text(200, 7);
        assert!(t.contains("kernels-diff 640 /ringlab/ringlab diff --json --no-chain --profile 6.12 --scenarios 200 --seed 7 --observe /results/kernels-observed.jsonl"));
        assert!(t.contains("kernels-boundary 300 /ringlab/ringlab diff --boundary --json"));
    }
}
