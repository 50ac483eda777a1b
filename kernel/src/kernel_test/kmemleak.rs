//! kmemleak in the guests: guest/kmemleak.sh clears it before the
//! campaigns (`clear`), after them scans twice and prints
//! /sys/kernel/debug/kmemleak (`scan`), then turns it off for xskxceiver
//! (`off`); here the report is read into a count of
//! unreferenced objects and the first one's backtrace. A kernel without
//! kmemleak says so (`KMEMLEAK-SKIP why`), which the document records
//! as a skip, never as a pass.

use serde::{Deserialize, Serialize};

/// The plan steps: before the campaigns, after them, and before
/// xskxceiver, which runs with kmemleak off.
pub const CLEAR_STEP: &str = "kmemleak-clear";
pub const SCAN_STEP: &str = "kmemleak";
pub const OFF_STEP: &str = "kmemleak-off";

/// One object kmemleak reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Leak {
    /// `unreferenced object 0x... (size N):` as printed.
    pub object: String,
    pub size: u64,
    /// `comm "x", pid N, jiffies J`.
    #[serde(default)]
    pub comm: String,
    /// The allocation's stack, innermost first, as printed (`%pS`).
    #[serde(default)]
    pub backtrace: Vec<String>,
}

/// What one guest's kmemleak found, or why it could not look.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kmemleak {
    /// The kernel has no kmemleak (or it disabled itself): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The steps did not run or gave no report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Scans run before the report was read.
    #[serde(default)]
    pub scans: u32,
    pub unreferenced: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<Leak>,
}

impl Kmemleak {
    /// Whether the guest was checked and nothing leaked.
    pub fn clean(&self) -> bool {
        self.skipped.is_none() && self.error.is_none() && self.scans > 0 && self.unreferenced == 0
    }

    /// Why it is not clean, in one line; None when clean.
    pub fn problem(&self) -> Option<String> {
        if let Some(e) = &self.error {
            return Some(format!("kmemleak: {e}"));
        }
        if let Some(why) = &self.skipped {
            return Some(format!("kmemleak: SKIP ({why}): leaks were not checked"));
        }
        if self.scans == 0 {
            return Some("kmemleak: no scan ran".into());
        }
        let Some(first) = self.first.as_ref() else {
            return (self.unreferenced > 0).then(|| format!("kmemleak: {} unreferenced objects", self.unreferenced));
        };
        Some(format!(
            "kmemleak: {} unreferenced objects; the first, {} ({}), allocated at {}",
            self.unreferenced,
            first.object,
            first.comm,
            first.backtrace.iter().take(8).map(String::as_str).collect::<Vec<_>>().join(" <- ")
        ))
    }
}

/// The objects of a /sys/kernel/debug/kmemleak report, in its order.
pub fn parse_report(text: &str) -> Vec<Leak> {
    let mut leaks: Vec<Leak> = Vec::new();
    let mut in_trace = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("unreferenced object ") {
            let (object, size) = match rest.split_once(" (size ") {
                Some((o, s)) => (o.to_string(), s.trim_end_matches("):").trim().parse().unwrap_or(0)),
                None => (rest.trim_end_matches(':').to_string(), 0),
            };
            leaks.push(Leak { object, size, ..Default::default() });
            in_trace = false;
            continue;
        }
        let Some(cur) = leaks.last_mut() else { continue };
        if let Some(c) = t.strip_prefix("comm ") {
            cur.comm = c.to_string();
        } else if t.starts_with("backtrace") {
            in_trace = true;
        } else if t.starts_with("hex dump") {
            in_trace = false;
        } else if in_trace && !t.is_empty() {
            cur.backtrace.push(t.to_string());
        }
    }
    leaks
}

/// guest/kmemleak.sh's output at the end: `KMEMLEAK-SKIP why`, or
/// `KMEMLEAK scans=N` followed by the report.
pub fn parse_output(out: &str) -> Kmemleak {
    if let Some(why) = out.lines().find_map(|l| l.strip_prefix("KMEMLEAK-SKIP ")) {
        return Kmemleak { skipped: Some(why.trim().to_string()), ..Default::default() };
    }
    let Some((head, report)) = out.split_once("KMEMLEAK scans=") else {
        return Kmemleak { error: Some("no KMEMLEAK line in the scan step's output".into()), ..Default::default() };
    };
    let _ = head;
    let (n, report) = report.split_once('\n').unwrap_or((report, ""));
    let leaks = parse_report(report);
    Kmemleak { scans: n.trim().parse().unwrap_or(0), unreferenced: leaks.len() as u64, first: leaks.into_iter().next(), ..Default::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two objects as 6.12's kmemleak prints them.
    const REPORT: &str = "\
unreferenced object 0xffff888004a1c000 (size 2048):
  comm \"ringlab\", pid 131, jiffies 4294903119
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
    ff ff ff ff ff ff 02 00 00 00 00 01 88 b5 07 00  ................
  backtrace (crc 5b2a8e1c):
    kmemleak_alloc+0x4a/0x80
    __kmalloc_node_track_caller_noprof+0x2e1/0x3e0
    kmalloc_reserve+0x62/0xf0
    __alloc_skb+0x9c/0x1a0
    veth_xdp_rcv+0x1f3/0x2d0
unreferenced object 0xffff888004a1e800 (size 232):
  comm \"softirq\", pid 0, jiffies 4294903120
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
  backtrace (crc 0):
    kmem_cache_alloc_noprof+0x1e1/0x2b0
";

    #[test]
    fn a_report_is_read_object_by_object() {
        let l = parse_report(REPORT);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].object, "0xffff888004a1c000");
        assert_eq!(l[0].size, 2048);
        assert_eq!(l[0].comm, "\"ringlab\", pid 131, jiffies 4294903119");
        assert_eq!(l[0].backtrace.len(), 5);
        assert_eq!(l[0].backtrace[4], "veth_xdp_rcv+0x1f3/0x2d0");
        assert_eq!(l[1].size, 232);
        assert_eq!(l[1].backtrace, vec!["kmem_cache_alloc_noprof+0x1e1/0x2b0"]);
        assert!(parse_report("").is_empty());
    }

    #[test]
    fn a_leak_fails_naming_the_first_backtrace() {
        let k = parse_output(&format!("KMEMLEAK scans=2\n{REPORT}"));
        assert_eq!((k.scans, k.unreferenced), (2, 2));
        assert!(!k.clean());
        let p = k.problem().unwrap();
        assert!(p.contains("2 unreferenced objects; the first, 0xffff888004a1c000"), "{p}");
        assert!(p.contains("__alloc_skb+0x9c/0x1a0 <- veth_xdp_rcv+0x1f3/0x2d0"), "{p}");
    }

    #[test]
    fn clean_skipped_and_missing_are_told_apart() {
        let k = parse_output("KMEMLEAK scans=2\n");
        assert!(k.clean() && k.problem().is_none(), "{k:?}");
        let k = parse_output("KMEMLEAK-SKIP no /sys/kernel/debug/kmemleak (kernel without CONFIG_DEBUG_KMEMLEAK)\n");
        assert!(!k.clean());
        assert!(k.problem().unwrap().contains("SKIP (no /sys/kernel/debug/kmemleak"), "{k:?}");
        let k = parse_output("");
        assert!(!k.clean() && k.error.is_some());
    }
}
