//! The fault campaign (src/faults.rs). Without fault injection its rounds
//! run on any kernel and must conserve every frame; with it (a kernel
//! built with CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB, debugfs at
//! /sys/kernel/debug) one allocation fails inside most sendto calls.
//! Prints SKIP with the reason where either cannot run.

use ringlab_kernel::failnth;
use ringlab_kernel::faults::{self, FaultOpts, FaultReport};
use ringlab_kernel::probe::probe;

mod common;

use common::skip;

fn run(batch: u32, budget: u32, rounds: u64, inject: bool) -> FaultReport {
    let seed = 0xfa17_0000 + batch as u64 + budget as u64;
    let rep = faults::run(FaultOpts { batch, budget, rounds, seed, inject, progress: false }).unwrap();
    println!("{}", serde_json::to_string(&rep).unwrap());
    assert!(rep.ok(), "batch {batch}, budget {budget}, seed {seed}: {rep:#?}");
    assert!(rep.submitted > rounds, "{rep:#?}");
    assert_eq!(rep.completed, rep.submitted, "{rep:#?}");
    rep
}

/// The (batch, budget) pairs this kernel takes.
fn options() -> Vec<(u32, u32)> {
    let p = probe().unwrap();
    let mut v = vec![(0, 32)];
    if p.max_tx_budget_supported {
        v.push((0, 64));
    }
    if p.xmit_batch_supported {
        v.extend([(1, 32), (16, 64), (64, 64), (64, 128)]);
    }
    v
}

#[test]
fn rounds_without_faults_conserve_frames() {
    if skip() {
        return;
    }
    for (batch, budget) in options() {
        let rep = run(batch, budget, 150, false);
        assert_eq!(rep.injected, 0);
    }
}

#[test]
fn rounds_with_faults_conserve_frames_and_slots() {
    if skip() {
        return;
    }
    if let Some(why) = failnth::unavailable() {
        println!("SKIP: {why}");
        return;
    }
    for (batch, budget) in options() {
        let rep = run(batch, budget, 300, true);
        assert!(rep.injected > 0, "no fault fired: {rep:#?}");
    }
}
