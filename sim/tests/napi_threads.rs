//! The NAPI skb cache on real threads: a thread per CPU running its NAPI
//! polls (CPU 1 also vhost-net's tun batches) and answering IPIs, and a
//! receiver on CPU 2 freeing every skb with skb_attempt_defer_free(), so
//! CPU 1's skbs go back through CPU 1's defer list and CPU 2's own into
//! its cache against its softirq. Rounds of fresh systems, each Path,
//! defer lists small enough to fill and kick, the slab failing at times.
//! Each round checks as it runs (every cache access its CPU's with BH
//! off, every flushed skb its CPU's, no head freed twice), then every
//! invariant at the joins, then drains. Seeds: RINGLAB_NAPI_SEED (default
//! 1) and the next two, printed.
//!
//! Kills (`ringlab mutants`): napi-virtio-cache and napi-tun-no-bh (the
//! cache's lock assertion), napi-defer-wrong-cpu (a flush finds CPU 1's
//! skbs on CPU 2's list), napi-bulk-lost-head (heads missing at the
//! joins), napi-flush-count-kept (a count left behind its list).
#![cfg(not(loom))]

use ringlab_model::napi_cache::{Config, Path};
use ringlab_sim::protocols::napi_cache::{threads, NapiCacheConfig};

fn base_seed() -> u64 {
    std::env::var("RINGLAB_NAPI_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

#[test]
fn threads_return_every_head_once() {
    for path in Path::ALL {
        let spec = Config {
            ncpu: 2,
            nskb: 24,
            cache_size: 8,
            bulk: 4,
            defer_max: 4,
            batch: 4,
            nframes: 48,
            path,
            clone: false,
            slab_fail: true,
            ..Config::small()
        };
        for seed in base_seed()..base_seed() + 3 {
            eprintln!("{} seed {seed} (RINGLAB_NAPI_SEED)", path.id());
            let cfg = NapiCacheConfig::from_spec(spec.clone()).seed(seed);
            let r = threads::run(cfg, 40).unwrap_or_else(|f| panic!("{}: {f}", path.id()));
            eprintln!("{r:?}");
            assert_eq!(r.rounds, 40);
            assert_eq!(r.rcvd + r.dropped, r.frames, "{r:?}");
            assert!(r.deferred > 0 && r.flushes > 0, "remote frees went through CPU 1's list: {r:?}");
            assert!(r.batches > 0 && r.polls > 0, "{r:?}");
        }
    }
}
