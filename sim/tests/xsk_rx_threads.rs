//! AF_XDP receive on real threads: the scheduler tests' configs (driver,
//! generic on a shared umem, the fast path), several seeds each, each run
//! rounds of packets whose threads check what they own as they run, then
//! every invariant at the joins, the drain and the quiescence check. A
//! run that received no packet fails.

use ringlab_model::xsk_rx::Config;
use ringlab_sim::xsk_rx::threads::{run, Report};
use ringlab_sim::xsk_rx::XskRxConfig;

const SEEDS: u64 = 12;
/// Packets a run, in rounds of MAX_PKTS.
const PACKETS: u64 = 4_000;
const MAX_PKTS: u8 = 200;

/// The spec's model constants, resized by the seed as the scheduler
/// tests do (2 to 4 buffers, budgets of 1 to 3, rings of 1, 2 or 4), with
/// rounds of 200 packets.
fn cfg(base: Config, seed: u64) -> XskRxConfig {
    let mut c = XskRxConfig::from_spec(base).seed(seed);
    c.spec.n_bufs = 2 + (seed % 3) as u8;
    c.spec.max_pkts = MAX_PKTS;
    c.spec.poll_budget = 1 + (seed / 3 % 3) as u32;
    c.spec.fq_size = [1, 2, 4][(seed / 2 % 3) as usize];
    c.spec.rx_size = [1, 2][(seed % 2) as usize];
    c
}

fn runs(what: &str, base: Config) -> Vec<Report> {
    (0..SEEDS)
        .map(|seed| {
            eprintln!("{what}: seed {seed}");
            let r = run(cfg(base.clone(), seed), PACKETS)
                .unwrap_or_else(|f| panic!("{what}: seed {seed}: {f}"));
            assert_eq!(r.packets, PACKETS, "{what}: seed {seed}: {r:?}");
            assert!(r.received() > 0, "{what}: seed {seed}: no packet received: {r:?}");
            assert!(r.thread_checks > 0 && r.checks >= r.rounds, "{what}: seed {seed}: {r:?}");
            r
        })
        .collect()
}

fn sum(rs: &[Report], f: impl Fn(&Report) -> u64) -> u64 {
    rs.iter().map(f).sum()
}

fn action(r: &Report, name: &str) -> u64 {
    r.actions.get(name).copied().unwrap_or(0)
}

#[test]
fn the_driver_path_on_threads_keeps_every_invariant() {
    let rs = runs("driver", Config::driver());
    assert!(sum(&rs, |r| r.cost.polls) > SEEDS * 10);
    assert!(sum(&rs, |r| action(r, "XskReleaseDone")) > 0, "no release");
    let rs = runs(
        "driver, no close",
        Config {
            closes: false,
            ..Config::driver()
        },
    );
    assert!(sum(&rs, |r| action(r, "XskRcvCheckRoom")) > 0);
}

#[test]
fn the_generic_path_on_a_shared_umem_on_threads_keeps_every_invariant() {
    let rs = runs("generic", Config::shared_umem());
    assert!(sum(&rs, |r| action(r, "RxLock")) > SEEDS * 100);
    assert!(sum(&rs, Report::received) > SEEDS * 100);
}

#[test]
fn the_fast_path_on_threads_keeps_every_invariant() {
    let rs = runs("fast, late bind", Config::fast());
    assert!(sum(&rs, |r| action(r, "XskBind")) > 0);
    let rs = runs("fast, one socket", Config::fast_one());
    assert!(sum(&rs, |r| r.cost.fast) > SEEDS * 10, "too few packets on the fast path");
}

#[test]
fn the_batched_fast_path_on_threads_keeps_every_invariant() {
    runs("batch, late bind", Config::batch());
    let one = Config {
        batch: 4,
        ..Config::fast_one()
    };
    let rs = runs("batch, one socket", one);
    assert!(sum(&rs, |r| action(r, "XskRcvBatch")) > SEEDS * 10, "too few packets received from a batch");
}
