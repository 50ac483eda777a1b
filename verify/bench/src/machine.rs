//! The machine a run measured: CPU model, cores, kernel, date. Figures from
//! different machines are not comparable; ratios from one run are.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub kernel: String,
    /// UTC, `2026-11-21 14:05 UTC`.
    pub date: String,
}

impl Machine {
    pub fn here() -> Machine {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Machine {
            cpu: cpu_model(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()),
            cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            kernel: ringlab_kernel::env::release(),
            date: ringlab_report::page::utc(now),
        }
    }

    pub fn line(&self) -> String {
        format!("machine: {} ({} cores), linux {}; {}", self.cpu, self.cores, self.kernel, self.date)
    }
}

/// The first `model name` of /proc/cpuinfo (else `unknown cpu`).
pub fn cpu_model(cpuinfo: &str) -> String {
    cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "model name").then(|| v.trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown cpu".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_first_model_name() {
        let text = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t: x\nmodel name\t: other\n";
        assert_eq!(cpu_model(text), "AMD EPYC");
        assert_eq!(cpu_model("processor : 0\n"), "unknown cpu");
    }
}
