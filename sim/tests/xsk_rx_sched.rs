//! AF_XDP receive under the seeded deterministic scheduler: many seeds on
//! each path, each run checking every invariant of specs/XskRx.tla after
//! every step, then a drain (receives finished, the poll ended, releases
//! done, descriptors read) after which every buffer is in one place. A
//! failure names the seed and the invariant.
//!
//! Kills (`ringlab mutants`): xsk-gen-rx-race (BufConservation),
//! xdp-missing-flush (FlushedAtPollEnd), redirect-xsk-ignore-key
//! (DeliveredToKey), redirect-xsk-batch-tail-lost (FlushedAtPollEnd):
//! with the mutant in, the clean runs below fail, and
//! the mutant's own test checks it is its invariant that breaks.

use ringlab_model::xsk_rx::{Config, State};
use ringlab_sim::harness::{self, Sched};
use ringlab_sim::xsk_rx::{Report, XskRx, XskRxConfig};

mod common;

const SEEDS: u64 = 200;
const STEPS: u64 = 400;

/// The spec's model constants, resized by the seed: 2 to 4 buffers, 12
/// packets, budgets of 1 to 3, rings of 1, 2 or 4.
fn cfg(base: Config, seed: u64) -> XskRxConfig {
    let mut c = XskRxConfig::from_spec(base).seed(seed);
    c.spec.n_bufs = 2 + (seed % 3) as u8;
    c.spec.max_pkts = 12;
    c.spec.poll_budget = 1 + (seed / 3 % 3) as u32;
    c.spec.fq_size = [1, 2, 4][(seed / 9 % 3) as usize];
    c.spec.rx_size = [1, 2][(seed / 27 % 2) as usize];
    c
}

fn runs(what: &str, base: Config) -> Vec<Report> {
    (0..SEEDS)
        .map(|seed| {
            harness::run::<XskRx>(cfg(base.clone(), seed), STEPS, None)
                .unwrap_or_else(|f| panic!("{what}: seed {seed}: {f}"))
        })
        .collect()
}

fn fates(rs: &[Report], fate: &str) -> u64 {
    rs.iter()
        .map(|r| r.fates.get(fate).copied().unwrap_or(0))
        .sum()
}

#[test]
fn the_driver_path_keeps_every_invariant() {
    let rs = runs("driver", Config::driver());
    let rx = fates(&rs, "rx");
    assert!(rx > SEEDS / 2, "only {rx} packets received");
    let rs = runs(
        "driver, no close",
        Config {
            closes: false,
            ..Config::driver()
        },
    );
    let rx = fates(&rs, "rx");
    assert!(rx > SEEDS * 2, "only {rx} packets received");
    assert!(rs.iter().map(|r| r.cost.polls).sum::<u64>() > SEEDS * 3);
}

#[test]
fn the_generic_path_on_a_shared_umem_keeps_every_invariant() {
    let rs = runs("generic", Config::shared_umem());
    assert!(fates(&rs, "rx") > SEEDS * 3);
}

#[test]
fn the_fast_path_keeps_every_invariant() {
    runs("fast, late bind", Config::fast());
    let rs = runs("fast, one socket", Config::fast_one());
    let fast: u64 = rs.iter().map(|r| r.cost.fast).sum();
    assert!(fast > SEEDS, "only {fast} packets on the fast path");
}

/// The driver's batch on one socket alone, batches of up to three.
fn batch_one() -> Config {
    Config {
        batch: 3,
        ..Config::fast_one()
    }
}

/// Socket 2 with the XDP_REDIRECT path beside the batch: socket 1 alone
/// keeps the fast path until socket 2 binds.
fn batch_two() -> Config {
    Config {
        verdicts: vec![ringlab_model::xsk_rx::Verdict::Redirect],
        ..Config::batch()
    }
}

#[test]
fn the_batched_fast_path_keeps_every_invariant() {
    runs("batch, late bind", Config::batch());
    runs("batch, redirect only", batch_two());
    let rs = runs("batch, one socket", batch_one());
    let batched: u64 = rs
        .iter()
        .map(|r| r.actions.get("XskRcvBatch").copied().unwrap_or(0))
        .sum();
    assert!(batched > SEEDS * 2, "only {batched} packets received from a batch");
}

#[test]
fn a_seed_replays_its_run() {
    let run = |seed| {
        let mut s = Sched::<XskRx>::new(cfg(Config::driver(), seed)).unwrap();
        let mut actions = Vec::new();
        while let Some(a) = s.step_random().unwrap() {
            actions.push(a);
        }
        (actions, s.sys.model_state())
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42).0, run(43).0);
}

/// A recorded trace replays exactly.
#[test]
fn a_recorded_trace_replays_exactly() {
    use ringlab_sim::harness::{RawTrace, SharedBuf};
    let seed = 7;
    eprintln!("seed {seed}");
    let buf = SharedBuf::default();
    let mut s = Sched::<XskRx>::new(cfg(Config::fast(), seed)).unwrap();
    s.record(Box::new(buf.clone()), STEPS).unwrap();
    s.run(STEPS).unwrap();
    let raw = RawTrace::parse(&buf.bytes()[..]).unwrap();
    let replayed = ringlab_sim::protocols::replay(&raw).unwrap();
    assert!(replayed.ok(), "{replayed:?}");
}

/// The model takes every step the simulator takes, to the state the
/// simulator projects to.
#[test]
fn the_model_follows_every_step() {
    for (base, seeds) in [
        (Config::driver(), 30),
        (Config::shared_umem(), 30),
        (Config::fast(), 30),
        (Config::batch(), 30),
        (batch_one(), 30),
    ] {
        for seed in 0..seeds {
            let c = cfg(base.clone(), seed);
            let spec = c.spec.clone();
            let mut s = Sched::<XskRx>::new(c).unwrap();
            let mut st = State::init(&spec);
            while let Some(a) = s.step_random().unwrap_or_else(|f| panic!("{f}")) {
                st = st
                    .step(&spec, &a)
                    .unwrap_or_else(|| panic!("seed {seed}: the model cannot take {a}"));
                assert_eq!(s.sys.model_state(), st, "seed {seed}: after {a}");
            }
        }
    }
}

/// A bad config is an error, not a panic.
#[test]
fn a_ring_size_not_a_power_of_two_is_refused() {
    let mut c = cfg(Config::driver(), 0);
    c.spec.fq_size = 3;
    let e = XskRx::new(c).unwrap_err();
    assert!(e.contains("FqSize = 3"), "{e}");
}

/// Some seed breaks `invariant` in the spec's model `base`, and every
/// seed that breaks, breaks it.
fn mutant_breaks(base: Config, invariant: &str) {
    common::mutant_breaks::<XskRx>(SEEDS, STEPS, |seed| cfg(base.clone(), seed), invariant);
}

#[test]
fn gen_rx_race_hands_a_buffer_out_twice() {
    if !ringlab_mutant::on("mutant-xsk-gen-rx-race") {
        return;
    }
    mutant_breaks(Config::shared_umem(), "BufConservation");
}

#[test]
fn missing_flush_leaves_descriptors_unpublished() {
    if !ringlab_mutant::on("mutant-xdp-missing-flush") {
        return;
    }
    mutant_breaks(Config::driver(), "FlushedAtPollEnd");
}

#[test]
fn ignore_key_delivers_to_the_wrong_socket() {
    if !ringlab_mutant::on("mutant-redirect-xsk-ignore-key") {
        return;
    }
    mutant_breaks(Config::fast(), "DeliveredToKey");
}

#[test]
fn batch_tail_lost_leaves_a_batch_past_the_poll() {
    if !ringlab_mutant::on("mutant-redirect-xsk-batch-tail-lost") {
        return;
    }
    mutant_breaks(batch_one(), "FlushedAtPollEnd");
}

