//! A guest kernel that crashed: found on the VM's console by the patterns
//! kernel/vm/boot.sh also uses to stop the VM, with the plan step that was
//! running (guest/init prints `ringlab-vm: step NAME start`).

use std::path::Path;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// One pattern a line, `#` comments; shared with boot.sh.
const PATTERNS: &str = include_str!("../../vm/crash-patterns.txt");

/// How many console lines a crash keeps, from its first line on.
const KEEP: usize = 16;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Crash {
    /// The plan step that was running, or "(boot)" before the first.
    pub step: String,
    /// The console from the first crash line on, timestamps removed.
    pub lines: Vec<String>,
    /// The whole console.
    pub console: String,
}

impl Crash {
    /// One line: step, first crash line, where the rest is.
    pub fn summary(&self) -> String {
        format!(
            "the guest kernel crashed in plan step {}: {} (console: {})",
            self.step,
            self.lines.first().map(String::as_str).unwrap_or("?"),
            self.console
        )
    }
}

fn patterns() -> Vec<Regex> {
    PATTERNS
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            Regex::new(l).unwrap_or_else(|e| panic!("kernel/vm/crash-patterns.txt: {l:?}: {e}"))
        })
        .collect()
}

/// A console line without its carriage return and printk timestamp.
fn bare(line: &str) -> &str {
    let l = line.trim_end_matches('\r');
    match l.strip_prefix('[').and_then(|r| r.split_once("] ")) {
        Some((t, rest))
            if t.trim_start()
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.')
                && !t.trim().is_empty() =>
        {
            rest
        }
        _ => l,
    }
}

/// The first crash on `text`, if any.
pub fn scan(text: &str, console: &Path) -> Option<Crash> {
    let pats = patterns();
    let mut step = "(boot)".to_string();
    let lines: Vec<&str> = text.lines().map(bare).collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(s) = l
            .strip_prefix("ringlab-vm: step ")
            .and_then(|r| r.strip_suffix(" start"))
        {
            step = s.to_string();
        }
        if pats.iter().any(|p| p.is_match(l)) {
            return Some(Crash {
                step,
                lines: lines[i..]
                    .iter()
                    .take(KEEP)
                    .map(|s| s.to_string())
                    .collect(),
                console: console.display().to_string(),
            });
        }
    }
    None
}

/// The crash on the console of the run in `dir` (console.log), if any.
pub fn find(dir: &Path) -> Option<Crash> {
    let console = dir.join("console.log");
    let bytes = std::fs::read(&console).ok()?;
    scan(&String::from_utf8_lossy(&bytes), &console)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OOPS: &str = "\
[    1.020000] Run /init as init process
ringlab-vm: kernel 6.12.117
ringlab-vm: step probe start
ringlab-vm: probe rc=0 0.41 s
ringlab-vm: step diff-batch16-budget64 start
[    7.712345] BUG: kernel NULL pointer dereference, address: 0000000000000000
[    7.712400] #PF: supervisor write access in kernel mode
[    7.712500] Oops: Oops: 0002 [#1] SMP PTI
[    7.712600] RIP: 0010:xsk_generic_xmit+0x1c5/0x4a0
";

    #[test]
    fn names_the_step_and_keeps_the_first_lines() {
        let c = scan(OOPS, Path::new("/r/console.log")).expect("a crash");
        assert_eq!(c.step, "diff-batch16-budget64");
        assert_eq!(
            c.lines[0],
            "BUG: kernel NULL pointer dereference, address: 0000000000000000"
        );
        assert_eq!(c.lines.len(), 4);
        assert!(
            c.summary()
                .contains("plan step diff-batch16-budget64: BUG: kernel NULL"),
            "{}",
            c.summary()
        );
        assert!(c.summary().contains("/r/console.log"));
    }

    #[test]
    fn every_kind_of_report_is_a_crash() {
        for l in [
            "[ 3.1] Kernel panic - not syncing: Fatal exception",
            "[ 3.1] kernel BUG at net/xdp/xsk.c:812!",
            "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
            "rcu: INFO: rcu_sched self-detected stall on CPU",
            "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [ringlab:80]",
            "watchdog: Watchdog detected hard LOCKUP on cpu 1",
            "INFO: task ringlab:81 blocked for more than 30 seconds.",
            "BUG: KASAN: slab-use-after-free in xsk_destruct_skb+0x2c/0x60",
            "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
            "UBSAN: array-index-out-of-bounds in net/xdp/xsk.c:1080:3",
            "Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP",
            "[ 9.2] WARNING: CPU: 1 PID: 93 at net/core/skbuff.c:381 napi_skb_cache_get_bulk+0x1a3/0x1b0",
        ] {
            assert!(scan(l, Path::new("c")).is_some(), "{l}");
        }
    }

    #[test]
    fn a_crash_during_boot_has_no_step() {
        assert_eq!(
            scan(
                "[ 0.5] BUG: unable to handle page fault for address: ff",
                Path::new("c")
            )
            .unwrap()
            .step,
            "(boot)"
        );
    }

    #[test]
    fn words_inside_a_line_are_not_a_crash() {
        for l in [
            "ringlab-vm: diff-batch16-budget64 rc=1 3.00 s",
            "[ 5.0] FAULT_INJECTION: forcing a failure.",
            "[ 5.0] CPU: 1 PID: 80 Comm: ringlab Not tainted 6.12.117 #1",
            "xskxceiver: SEND_RECEIVE BUG: none",
            "[ 5.0] watchdog: soft lockup detector enabled",
            // a WARN elsewhere than the NAPI skb cache, tun or vhost
            "[ 5.0] WARNING: CPU: 0 PID: 1 at kernel/smp.c:815 smp_call_function_many_cond+0x1/0x2",
        ] {
            assert_eq!(scan(l, Path::new("c")), None, "{l}");
        }
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(patterns().len() >= 10);
    }
}
