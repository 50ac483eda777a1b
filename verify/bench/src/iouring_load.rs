//! How busy the machine was: the 1-minute load average and a fixed
//! calibration loop, sampled before and after the run on the measuring
//! CPU. A loaded machine or a loop that ran at a different speed after than
//! before marks the figures as taken on a busy machine: lower and noisier
//! than this machine can do, though ratios of one run still compare.

use std::hint::black_box;
use std::time::Instant;

/// Steps of the calibration loop (a few milliseconds on a current core).
const CALIBRATION_STEPS: u64 = 1 << 22;
/// Runs of the loop per sample; the fastest is kept (interruptions only slow it).
const CALIBRATION_RUNS: usize = 5;
/// Load per core above which the machine is called busy before the run
/// (the sender itself adds about one while it runs).
const BUSY_LOAD_PER_CORE: f64 = 0.5;
/// The loop's after/before drift beyond which the CPU's speed moved.
const BUSY_DRIFT: f64 = 0.10;

#[derive(Clone, Copy, Debug)]
pub struct Load {
    /// /proc/loadavg's first field.
    pub load1: Option<f64>,
    /// The calibration loop's fastest run, in milliseconds.
    pub calib_ms: f64,
}

fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// xorshift64 steps: integer work the compiler cannot fold away.
fn calibration_ms() -> f64 {
    (0..CALIBRATION_RUNS)
        .map(|_| {
            let t = Instant::now();
            let mut x = black_box(0x9e37_79b9_7f4a_7c15u64);
            for _ in 0..black_box(CALIBRATION_STEPS) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            black_box(x);
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

pub fn sample() -> Load {
    Load { load1: loadavg(), calib_ms: calibration_ms() }
}

/// Why the run counts as taken on a busy machine, if it does.
pub fn busy(before: &Load, after: &Load, cores: usize) -> Option<String> {
    let mut why = Vec::new();
    if let Some(l) = before.load1 {
        if l > BUSY_LOAD_PER_CORE * cores as f64 {
            why.push(format!("load average {l:.2} on {cores} cores before the run"));
        }
    }
    let drift = after.calib_ms / before.calib_ms - 1.0;
    if drift.abs() > BUSY_DRIFT {
        why.push(format!("the calibration loop's time moved {:+.0}% from before to after the run", drift * 100.0));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// `load 1.23, calibration 4.56 ms`.
pub fn line(l: &Load) -> String {
    let load = l.load1.map_or("load ?".into(), |x| format!("load {x:.2}"));
    format!("{load}, calibration loop {:.2} ms", l.calib_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_names_the_load_and_the_drift() {
        let calm = Load { load1: Some(0.2), calib_ms: 4.0 };
        assert_eq!(busy(&calm, &calm, 2), None);
        let loaded = Load { load1: Some(1.5), calib_ms: 4.0 };
        assert_eq!(busy(&loaded, &calm, 2).as_deref(), Some("load average 1.50 on 2 cores before the run"));
        let slow = Load { load1: Some(0.2), calib_ms: 5.0 };
        assert_eq!(busy(&calm, &slow, 2).as_deref(), Some("the calibration loop's time moved +25% from before to after the run"));
        assert_eq!(busy(&Load { load1: None, calib_ms: 4.0 }, &calm, 2), None);
    }
}
