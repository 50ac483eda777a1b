//! ringlab's ring with its protocol checks compiled out: the pump
//! (verify/bench/pump) built a second time, alone, with `--cfg
//! ringlab_unchecked` into target/unchecked, and run once per
//! measurement. Tests and the `ringlab` binary keep the checks; this
//! build shows what they cost.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

pub struct Pump {
    exe: PathBuf,
}

/// The unchecked pump, built on first use; Err says why it cannot run.
pub fn pump() -> Result<&'static Pump, &'static str> {
    static PUMP: OnceLock<Result<Pump, String>> = OnceLock::new();
    PUMP.get_or_init(build).as_ref().map_err(String::as_str)
}

fn build() -> Result<Pump, String> {
    let root = ringlab_model::paths::find_root().map_err(|e| format!("no source tree to build the unchecked ring in: {e}"))?;
    let target = root.join("target/unchecked");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let shown = "RUSTFLAGS='--cfg ringlab_unchecked' cargo build --release -p ringlab-ring-pump";
    let out = Command::new(cargo)
        .current_dir(&root)
        .args(["build", "--release", "-p", "ringlab-ring-pump", "--bin", "ring-pump"])
        .env("RUSTFLAGS", "--cfg ringlab_unchecked")
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .map_err(|e| format!("{shown}: cannot run cargo: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<_> = err.lines().filter(|l| l.starts_with("error")).take(3).collect();
        return Err(format!("{shown} failed: {}", tail.join(" | ")));
    }
    Ok(Pump { exe: target.join("release/ring-pump") })
}

impl Pump {
    /// Entries per second of `peer` (tx or cq), as the bench's own
    /// measurement; Err if the build still has its checks.
    pub fn measure(&self, peer: &str, size: u32, batch: u32, run: Duration) -> Result<f64, String> {
        let out = Command::new(&self.exe)
            .args([peer.to_string(), size.to_string(), batch.to_string(), run.as_millis().to_string()])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.exe.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!("{} failed: {}", self.exe.display(), String::from_utf8_lossy(&out.stderr).trim()));
        }
        parse(&text)
    }
}

/// `entries_per_s=RATE checks=off`.
fn parse(line: &str) -> Result<f64, String> {
    let mut rate = None;
    let mut checks = None;
    for word in line.split_whitespace() {
        match word.split_once('=') {
            Some(("entries_per_s", v)) => rate = v.parse::<f64>().ok(),
            Some(("checks", v)) => checks = Some(v.to_string()),
            _ => {}
        }
    }
    match (rate, checks.as_deref()) {
        (Some(r), Some("off")) if r.is_finite() && r > 0.0 => Ok(r),
        (_, Some("on")) => Err("the unchecked build still has its checks (--cfg ringlab_unchecked not applied)".into()),
        _ => Err(format!("ring-pump printed `{}`, not entries_per_s=RATE checks=off", line.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pump_line_is_read_and_a_checked_build_refused() {
        assert_eq!(parse("entries_per_s=12.5 checks=off\n"), Ok(12.5));
        assert!(parse("entries_per_s=12.5 checks=on").unwrap_err().contains("still has its checks"));
        assert!(parse("entries_per_s=NaN checks=off").is_err());
        assert!(parse("garbage").unwrap_err().contains("garbage"));
    }

    #[test]
    fn the_unchecked_build_runs_without_checks() {
        let pump = pump().expect("the unchecked pump builds");
        let r = pump.measure("tx", 64, 16, Duration::from_millis(5)).unwrap();
        assert!(r > 0.0);
        let r = pump.measure("cq", 64, 1, Duration::from_millis(5)).unwrap();
        assert!(r > 0.0);
    }
}
