//! `ringlab bench series`'s table (or JSON document): instructions a
//! packet by case and kernel, beside the seed's figures, and the goal.

use serde_json::json;

use super::series::Outcome;
use super::series_profile::{by_group, compare, group_names, FnCost};
use super::series_table::{goal, seed_ratio, Cell, ANCHORS, CASES, GOAL_CUT, SEED_PPS};

const TITLE: &str = "batch-xmit series in qemu TCG: guest instructions a packet (kernel and user, every vCPU), 64-byte frames on veth";

pub fn print(out: &Outcome, packets: u64, as_json: bool, top: Option<usize>) -> Result<bool, String> {
    let (cells, profile) = match out {
        Outcome::Skipped(why) => {
            if as_json {
                println!("{}", json!({ "skipped": why }));
            } else {
                println!("{TITLE}\nSKIP: {why}");
            }
            return Ok(true);
        }
        Outcome::Measured(c, p) => (c, p),
    };
    let find = |case: &str, kernel: &str| cells.iter().find(|c| c.case == case && c.kernel == kernel);
    let ipp = |case: &str, kernel: &str| find(case, kernel).and_then(|c| c.insn_per_packet);
    let g = goal(ipp(CASES[0].0, "6.12.117"), ipp("batch 64", "patched"));
    if as_json {
        let doc = json!({
            "title": TITLE,
            "packets": packets,
            "cells": cells,
            "seed_pps": SEED_PPS.iter().map(|(c, p)| json!({"case": c, "pps": p, "insn_ratio": seed_ratio(c)})).collect::<Vec<_>>(),
            "anchors": ANCHORS.iter().map(|(d, a, b)| json!({"driver": d, "copy_pps": a, "batched_pps": b})).collect::<Vec<_>>(),
            "goal": { "cut_needed": GOAL_CUT, "cut": g.map(|x| x.0), "met": g.map(|x| x.1) },
            "profile": profile,
        });
        println!("{}", serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?);
        return Ok(true);
    }
    println!("{TITLE}; {packets} frames a case");
    println!(
        "{:<18} {:<9} {:>12} {:>12} {:>9} {:>9}   {:>14} {:>10}",
        "case", "kernel", "insn/packet", "pps (TCG)", "pkt/call", "ratio", "seed pps", "seed ratio"
    );
    for (case, _) in CASES {
        for kernel in ["6.12.117", "patched"] {
            let Some(c) = find(case, kernel) else { continue };
            let seed = if kernel == "patched" || case == CASES[0].0 || case.starts_with("AF_PACKET") { SEED_PPS.iter().find(|(s, _)| *s == case) } else { None };
            let seed_pps = seed.map(|(_, p)| format!("{p:.0}")).unwrap_or_else(|| "-".into());
            let seed_r = seed.and_then(|(s, _)| seed_ratio(s)).map(|r| format!("{r:.3}")).unwrap_or_else(|| "-".into());
            println!(
                "{:<18} {:<9} {:>12} {:>12} {:>9} {:>9}   {:>14} {:>10}{}",
                case,
                kernel,
                opt(c.insn_per_packet, 1),
                opt(c.pps, 0),
                opt(c.per_call, 2),
                opt(c.ratio, 3),
                seed_pps,
                seed_r,
                note(c)
            );
        }
    }
    println!("ratio: instructions a packet over 6.12.117's copy mode's; seed ratio: the seed's copy-mode pps over the case's (ixgbe, xdpsock -t -S -s 64)");
    println!("pkt/call: packets a sendto (AF_XDP, 64 descriptors offered a call) or sendmmsg (AF_PACKET, 64 a call)");
    println!("pps: the guest's clock under TCG, which emulation distorts; the instruction counts are the measure");
    for (d, a, b) in ANCHORS {
        println!("earlier figures, {d}: copy {:.2} -> {:.2} Mpps batched (ratio {:.3})", a / 1e6, b / 1e6, a / b);
    }
    match g {
        Some((cut, met)) => println!(
            "goal: patched batch 64 costs >= {:.0}% fewer instructions a packet than 6.12.117 copy mode (the seed's +88% implies ~47%): {:.1}% {}: {}",
            GOAL_CUT * 100.0,
            cut.abs() * 100.0,
            if cut >= 0.0 { "fewer" } else { "more" },
            if met { "MET" } else { "NOT MET" }
        ),
        None => println!("goal: patched batch 64 >= {:.0}% fewer instructions a packet than 6.12.117 copy mode: NOT MET (no figure)", GOAL_CUT * 100.0),
    }
    if let Some(top) = top {
        print_profile(profile, top);
    }
    Ok(true)
}

/// Every case's instructions a packet by group (where on the frame's path
/// they go), then each patched case against its reference on 6.12.117
/// (the same case, or copy mode when 6.12.117 refused it): the functions
/// whose instructions a packet differ most.
fn print_profile(profile: &[FnCost], top: usize) {
    let of = |case: &str, kernel: &str| -> Vec<FnCost> { profile.iter().filter(|c| c.case == case && c.kernel == kernel).cloned().collect() };
    println!();
    println!("profile by group (function-name prefixes; series_profile.rs GROUPS), instructions a packet:");
    let groups = group_names();
    print!("  {:<18} {:<9}", "case", "kernel");
    for g in &groups {
        print!(" {:>10}", g.split(' ').next().unwrap_or(g));
    }
    println!();
    for (case, _) in CASES {
        for kernel in ["6.12.117", "patched"] {
            let costs = of(case, kernel);
            if costs.is_empty() {
                continue;
            }
            let g = by_group(&costs);
            print!("  {case:<18} {kernel:<9}");
            for name in &groups {
                print!(" {:>10.1}", g.get(name).copied().unwrap_or(0.0));
            }
            println!();
        }
    }
    println!("  groups: {}", groups.join("; "));
    for (case, _) in CASES {
        let patched = of(case, "patched");
        if patched.is_empty() {
            continue;
        }
        let (mut reference, mut ref_case) = (of(case, "6.12.117"), case);
        if reference.is_empty() {
            (reference, ref_case) = (of(CASES[0].0, "6.12.117"), CASES[0].0);
        }
        if reference.is_empty() {
            continue;
        }
        let total = |v: &[FnCost]| v.iter().map(|c| c.insn_per_packet).sum::<f64>();
        println!();
        println!(
            "profile: patched {case} ({:.1} insn/packet) against 6.12.117 {ref_case} ({:.1}), the {top} functions that differ most",
            total(&patched),
            total(&reference)
        );
        println!("  {:<40} {:>12} {:>12} {:>10}", "function", "6.12.117", "patched", "change");
        let (diffs, rest) = compare(&reference, &patched, top);
        for d in diffs {
            println!("  {:<40} {:>12.1} {:>12.1} {:>+10.1}", d.function, d.reference, d.case, d.case - d.reference);
        }
        println!("  {:<40} {:>12} {:>12} {:>+10.1}", "(every other function)", "", "", rest);
    }
}

fn opt(v: Option<f64>, prec: usize) -> String {
    v.map(|x| format!("{x:.prec$}")).unwrap_or_else(|| "-".into())
}

fn note(c: &Cell) -> String {
    c.note.as_ref().map(|n| format!("   ({n})")).unwrap_or_default()
}
