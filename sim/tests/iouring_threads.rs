//! io_uring SEND_ZC on real threads: a submitter, a network stack freeing
//! skbs in any order and a reaper, over rounds of fresh systems of the
//! spec's zc-notif shape (four requests of three units, three skbs that
//! link, a registered buffer the reaper may unregister midway, every
//! failure class, a CQ of two so that CQEs overflow). Each round checks
//! as it runs (no freed page transmitted, no notification before its
//! request CQE, no buffer written while pinned), then every invariant at
//! the joins, then drains. Seeds: RINGLAB_IOU_SEED (default 1) and the
//! next three, printed.
#![cfg(not(loom))]

use ringlab_model::iouring_zc::Config;
use ringlab_sim::protocols::iouring_zc::{threads, IoUringZcConfig};

fn base_seed() -> u64 {
    std::env::var("RINGLAB_IOU_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

#[test]
fn threads_post_every_notification_once_after_its_request() {
    let spec = Config {
        n_reqs: 4,
        req_len: 3,
        max_skbs: 3,
        sq_size: 2,
        cq_size: 2,
        ..Config::zc_notif()
    };
    for seed in base_seed()..base_seed() + 4 {
        eprintln!("seed {seed} (RINGLAB_IOU_SEED)");
        let cfg = IoUringZcConfig::from_spec(spec.clone()).seed(seed);
        let r = threads::run(cfg, 400).unwrap_or_else(|f| panic!("{f}"));
        eprintln!("{r:?}");
        assert_eq!(r.rounds, 100);
        assert!(r.notifs > 0 && r.skbs_freed > 0, "{r:?}");
        assert!(r.reaped >= r.requests, "every request CQE reaped: {r:?}");
    }
}
