//! io_uring SEND_ZC under the seeded deterministic scheduler: many seeds
//! of the spec's two models, resized by the seed (requests, units, skbs,
//! ring sizes, linking and the registered buffer), each run checking
//! every invariant of specs/IoUringZcNotif.tla after every step, then a
//! drain (every request completed, every skb freed, every CQE reaped)
//! after which every notification has posted its one CQE and no page is
//! pinned. A failure names the seed, which replays it:
//! `ringlab sim iouring-zc --seed S ...`.
//!
//! Kills (`ringlab mutants`): iou-skip-notif (NotifForEveryPrep or
//! MoreMeansNotif), iou-notif-order (ReqBeforeNotif), iou-fixedbuf-life
//! (FixedBufPinned): with the mutant in, the clean runs below fail, and
//! the test of that mutant checks it is its invariant that breaks.

use ringlab_model::iouring_zc::{Config, Fail, State};
use ringlab_sim::harness::{self, Sched};
use ringlab_sim::protocols::iouring_zc::{IoUringZc, IoUringZcConfig, Report};

mod common;

const SEEDS: u64 = 300;
const STEPS: u64 = 300;

/// The spec's model constants, resized by the seed: 2 to 4 requests of 1
/// to 3 units, 1 to 3 skbs, an SQ of 2 or 4, a CQ of 1 or 2, the rings'
/// counters wrapping past u32::MAX.
fn cfg(base: Config, seed: u64) -> IoUringZcConfig {
    let mut c = IoUringZcConfig::from_spec(base).seed(seed);
    c.spec.n_reqs = 2 + (seed % 3) as u8;
    c.spec.req_len = 1 + (seed / 3 % 3) as u32;
    c.spec.max_skbs = 1 + (seed / 9 % 3) as u8;
    c.spec.sq_size = 2 << (seed / 27 % 2);
    c.spec.cq_size = 1 << (seed / 54 % 2);
    c
}

fn runs(what: &str, base: Config) -> Vec<Report> {
    (0..SEEDS)
        .map(|seed| {
            harness::run::<IoUringZc>(cfg(base.clone(), seed), STEPS, None)
                .unwrap_or_else(|f| panic!("{what}: {f}"))
        })
        .collect()
}

fn total(rs: &[Report], action: &str) -> u64 {
    rs.iter().map(|r| r.actions.get(action).copied().unwrap_or(0)).sum()
}

/// The runs reach what they are for: notifications posted by the stack's
/// last free and by the submitter's flush, CQEs overflowed, links made.
fn covered(what: &str, rs: &[Report], linked: bool) {
    let notifs: u64 = rs.iter().map(|r| r.notif_cqes).sum();
    let overflowed: u64 = rs.iter().map(|r| r.overflowed).sum();
    eprintln!(
        "{what}: {notifs} notifications, {overflowed} overflowed CQEs, {} links, {} skb frees, {} task works",
        rs.iter().map(|r| r.linked).sum::<u64>(),
        total(rs, "SkbFree"),
        total(rs, "IoRunTaskWork")
    );
    assert!(notifs > SEEDS, "{what}: {notifs} notifications");
    assert!(overflowed > SEEDS / 4, "{what}: {overflowed} CQEs overflowed");
    assert!(total(rs, "IoPollRetry") > SEEDS / 4, "{what}: {} retries", total(rs, "IoPollRetry"));
    if linked {
        assert!(rs.iter().any(|r| r.linked > 0), "{what}: no notification was linked");
    }
}

#[test]
fn the_zc_notif_model_keeps_every_invariant() {
    let rs = runs("zc-notif", Config::zc_notif());
    covered("zc-notif", &rs, true);
    assert!(total(&rs, "IoUringUnregisterBuffers") > 0);
}

#[test]
fn the_batch1_model_keeps_every_invariant() {
    let rs = runs("batch1", Config::batch1());
    covered("batch1", &rs, true);
}

#[test]
fn a_seed_replays_its_run() {
    let run = |seed| {
        let mut s = Sched::<IoUringZc>::new(cfg(Config::zc_notif(), seed)).unwrap();
        let mut actions = Vec::new();
        while let Some(a) = s.step_random().unwrap() {
            actions.push(a);
            if actions.len() == 150 {
                break;
            }
        }
        (actions, s.sys.model_state())
    };
    for seed in [42, 7, 1 << 40] {
        eprintln!("seed {seed}");
        assert_eq!(run(seed), run(seed), "seed {seed}");
    }
    assert_ne!(run(42).0, run(43).0);
}

/// The model takes every step the simulator takes, to the state the
/// simulator projects to.
#[test]
fn the_model_follows_every_step() {
    for base in [Config::zc_notif(), Config::batch1()] {
        for seed in 0..60 {
            let c = cfg(base.clone(), seed);
            let spec = c.spec.clone();
            let mut s = Sched::<IoUringZc>::new(c).unwrap();
            let mut st = State::init(&spec);
            assert_eq!(s.sys.model_state(), st);
            loop {
                let a = match s.step_random().unwrap_or_else(|f| panic!("{f}")) {
                    Some(a) => a,
                    None => match s.drain_step().unwrap_or_else(|f| panic!("{f}")) {
                        Some(a) => a,
                        None => break,
                    },
                };
                st = st
                    .step(&spec, &a)
                    .unwrap_or_else(|| panic!("seed {seed}: the model cannot take {a}"));
                assert_eq!(s.sys.model_state(), st, "seed {seed}: after {a}");
                if s.steps() >= STEPS {
                    break;
                }
            }
        }
    }
}

/// Some seed breaks one of `invariants` in the spec's model `base`, and
/// every seed that breaks, breaks one of them.
fn mutant_breaks(base: Config, invariants: &[&str]) {
    let fs: Vec<_> = (0..SEEDS)
        .filter_map(|seed| {
            harness::run::<IoUringZc>(cfg(base.clone(), seed), STEPS, None)
                .err()
                .map(|e| e.into_failure(seed))
        })
        .collect();
    let other: Vec<String> = fs
        .iter()
        .filter(|f| !f.invariant.is_some_and(|i| invariants.contains(&i)))
        .map(|f| f.to_string())
        .collect();
    assert!(other.is_empty(), "{other:?}");
    assert!(!fs.is_empty(), "no seed broke {invariants:?}");
    eprintln!("{} of {SEEDS} seeds broke {invariants:?}; first: {}", fs.len(), fs[0]);
}

#[test]
fn skip_notif_leaves_a_failed_request_without_its_notification() {
    if !ringlab_mutant::on("mutant-iou-skip-notif") {
        return;
    }
    mutant_breaks(Config::zc_notif(), &["NotifForEveryPrep", "MoreMeansNotif"]);
}

#[test]
fn notif_order_posts_a_notification_before_its_request_cqe() {
    if !ringlab_mutant::on("mutant-iou-notif-order") {
        return;
    }
    mutant_breaks(Config::zc_notif(), &["ReqBeforeNotif"]);
}

#[test]
fn fixedbuf_life_frees_pages_skbs_carry() {
    if !ringlab_mutant::on("mutant-iou-fixedbuf-life") {
        return;
    }
    mutant_breaks(Config::zc_notif(), &["FixedBufPinned"]);
}

/// Without a failure class, the runs meet none of its results.
#[test]
fn a_run_without_failures_sends_everything() {
    let mut base = Config::zc_notif();
    base.fails = vec![Fail::Eagain];
    for seed in 0..40 {
        let c = cfg(base.clone(), seed);
        let req_len = i64::from(c.spec.req_len);
        let mut s = Sched::<IoUringZc>::new(c).unwrap();
        s.run(STEPS).unwrap_or_else(|f| panic!("seed {seed}: {f}"));
        let st = s.sys.model_state();
        assert!(st.posted.iter().filter(|c| !c.notif).all(|c| c.res == req_len || c.res == ringlab_model::iouring_zc::EFAULT), "seed {seed}: {:?}", st.posted);
    }
}
