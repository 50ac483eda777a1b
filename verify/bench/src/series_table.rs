//! `ringlab bench series`'s data: the cases, the plugin's output parsed,
//! instructions per packet and their ratios, the seed's figures beside them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The cases in guest order: a name and, for AF_XDP, the
/// XDP_GENERIC_XMIT_BATCH value (None: unset); None: AF_PACKET.
pub const CASES: [(&str, Option<Option<u32>>); 5] = [
    ("copy unbatched", Some(None)),
    ("batch 1", Some(Some(1))),
    ("batch 16", Some(Some(16))),
    ("batch 64", Some(Some(64))),
    ("AF_PACKET bypass", None),
];

/// The seed's packets/s (ixgbe, 64-byte frames, xdpsock -t -S -s 64), by
/// case; copy mode before the series is the reference.
pub const SEED_PPS: [(&str, f64); 4] =
    [("copy unbatched", 1_801_007.0), ("batch 1", 1_976_821.0), ("batch 64", 3_389_704.0), ("AF_PACKET bypass", 1_375_808.0)];

/// The series' earlier public figures: copy mode without and with batching.
pub const ANCHORS: [(&str, f64, f64); 2] = [("i40e", 1.11e6, 2.39e6), ("virtio_net", 0.77e6, 1.06e6)];

/// Patched batch 64 must cost at least this much less than unpatched copy
/// mode, in instructions a packet.
pub const GOAL_CUT: f64 = 0.40;

/// One case as the guest reports it (one JSON line).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GuestCase {
    pub case: String,
    /// Its start marker; the end is marker + 1.
    pub marker: u16,
    pub packets: u64,
    /// The guest clock's time for the packets.
    pub secs: Option<f64>,
    /// sendto (AF_XDP) or sendmmsg (AF_PACKET) calls for the packets: a
    /// sender waiting for completions calls again, at a cost.
    #[serde(default)]
    pub calls: Option<u64>,
    /// Why the kernel refused the case (not an error).
    pub refused: Option<String>,
    pub error: Option<String>,
}

/// The plugin's output: each marker's count (the first, if repeated).
pub fn parse_plugin(text: &str) -> Result<BTreeMap<u16, u64>, String> {
    let mut m = BTreeMap::new();
    for (i, l) in text.lines().enumerate() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let bad = || format!("plugin output line {}: '{l}' is not 'ringlab-insn ID COUNT'", i + 1);
        match w.as_slice() {
            [] => {}
            ["ringlab-insn", "total", n] => {
                n.parse::<u64>().map_err(|_| bad())?;
            }
            ["ringlab-insn", id, n] => {
                let (id, n) = (id.parse::<u16>().map_err(|_| bad())?, n.parse::<u64>().map_err(|_| bad())?);
                m.entry(id).or_insert(n);
            }
            // the profile's (series_profile.rs)
            ["ringlab-prof", ..] => {}
            _ => return Err(bad()),
        }
    }
    Ok(m)
}

/// One measured cell: a case on a kernel.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Cell {
    pub case: String,
    pub kernel: String,
    pub insn_per_packet: Option<f64>,
    /// Guest clock under TCG: distorted.
    pub pps: Option<f64>,
    /// Packets a send call.
    pub per_call: Option<f64>,
    /// insn_per_packet over the unpatched kernel's copy mode's.
    pub ratio: Option<f64>,
    /// Why there is no figure (refused, error, marker missing).
    pub note: Option<String>,
}

/// A kernel's cells from its guest's cases and the plugin's counts.
pub fn cells(kernel: &str, cases: &[GuestCase], counts: &BTreeMap<u16, u64>) -> Vec<Cell> {
    cases
        .iter()
        .map(|c| {
            let mut cell = Cell { case: c.case.clone(), kernel: kernel.into(), insn_per_packet: None, pps: None, per_call: None, ratio: None, note: None };
            if let Some(r) = &c.refused {
                cell.note = Some(r.clone());
            } else if let Some(e) = &c.error {
                cell.note = Some(format!("error: {e}"));
            } else {
                match (counts.get(&c.marker), counts.get(&(c.marker + 1))) {
                    (Some(&a), Some(&b)) if b >= a && c.packets > 0 => cell.insn_per_packet = Some((b - a) as f64 / c.packets as f64),
                    _ => cell.note = Some(format!("no instruction count (markers {} and {})", c.marker, c.marker + 1)),
                }
                cell.per_call = c.calls.filter(|n| *n > 0).map(|n| c.packets as f64 / n as f64);
                cell.pps = c.secs.filter(|s| *s > 0.0).map(|s| c.packets as f64 / s);
            }
            cell
        })
        .collect()
}

/// Sets every cell's ratio against `base` (the unpatched copy mode).
pub fn set_ratios(cells: &mut [Cell], base: Option<f64>) {
    for c in cells {
        c.ratio = match (c.insn_per_packet, base) {
            (Some(x), Some(b)) if b > 0.0 => Some(x / b),
            _ => None,
        };
    }
}

/// The seed's instructions-a-packet ratio implied by its pps for `case`
/// (the same work in 1/speed-up the cycles), if it has one.
pub fn seed_ratio(case: &str) -> Option<f64> {
    let base = SEED_PPS[0].1;
    SEED_PPS.iter().find(|(c, _)| *c == case).map(|(_, pps)| base / pps)
}

/// The goal: the cut of patched batch 64 against unpatched copy mode, and
/// whether it is at least [`GOAL_CUT`]; None when either is missing.
pub fn goal(unpatched_copy: Option<f64>, patched_batch64: Option<f64>) -> Option<(f64, bool)> {
    let (u, p) = (unpatched_copy?, patched_batch64?);
    if u <= 0.0 {
        return None;
    }
    let cut = 1.0 - p / u;
    Some((cut, cut >= GOAL_CUT))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str, marker: u16) -> GuestCase {
        GuestCase { case: name.into(), marker, packets: 1000, secs: Some(0.5), calls: Some(100), refused: None, error: None }
    }

    #[test]
    fn plugin_lines_give_each_markers_first_count() {
        let m = parse_plugin("ringlab-insn 0 100\nringlab-insn 1 5100\n\nringlab-insn 1 9999\nringlab-insn total 7\n").unwrap();
        assert_eq!(m.get(&0), Some(&100));
        assert_eq!(m.get(&1), Some(&5100));
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn a_foreign_plugin_line_is_an_error_naming_it() {
        assert!(parse_plugin("ringlab-insn 0 100\nringlab-prof 1 ffff 3\n").is_ok());
        let e = parse_plugin("ringlab-insn 0 100\nhello\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("hello"), "{e}");
        assert!(parse_plugin("ringlab-insn x 1").is_err());
    }

    #[test]
    fn cells_divide_the_delta_by_the_packets() {
        let counts = parse_plugin("ringlab-insn 0 1000\nringlab-insn 1 51000\n").unwrap();
        let c = cells("k", &[case("copy unbatched", 0)], &counts);
        assert_eq!(c[0].insn_per_packet, Some(50.0));
        assert_eq!(c[0].pps, Some(2000.0));
        assert_eq!(c[0].per_call, Some(10.0));
    }

    #[test]
    fn a_refused_case_has_a_note_and_no_figure() {
        let mut g = case("batch 64", 6);
        g.refused = Some("refused (ENOPROTOOPT)".into());
        let c = cells("6.12.117", &[g, case("batch 16", 4)], &BTreeMap::new());
        assert_eq!(c[0].insn_per_packet, None);
        assert!(c[0].note.as_deref().unwrap().contains("ENOPROTOOPT"));
        assert!(c[1].note.as_deref().unwrap().contains("markers 4 and 5"));
    }

    #[test]
    fn ratios_are_against_the_base_and_the_goal_needs_a_40_percent_cut() {
        let counts = parse_plugin("ringlab-insn 0 0\nringlab-insn 1 30000\n").unwrap();
        let mut c = cells("k", &[case("batch 64", 0)], &counts);
        set_ratios(&mut c, Some(50.0));
        assert_eq!(c[0].ratio, Some(0.6));
        assert_eq!(goal(Some(50.0), Some(30.0)).map(|g| g.1), Some(true));
        assert_eq!(goal(Some(50.0), Some(31.0)).map(|g| g.1), Some(false));
        assert_eq!(goal(None, Some(1.0)), None);
    }

    #[test]
    fn the_seeds_88_percent_implies_a_47_percent_cut() {
        let r = seed_ratio("batch 64").unwrap();
        assert!((1.0 - r - 0.469).abs() < 0.001, "{r}");
        assert_eq!(seed_ratio("batch 16"), None);
        assert_eq!(seed_ratio("copy unbatched"), Some(1.0));
    }
}
