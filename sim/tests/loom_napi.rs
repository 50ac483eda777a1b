//! loom: the defer-list handoff under every interleaving (up to
//! LOOM_MAX_PREEMPTIONS, default 3) of a task on CPU 2 freeing skbs that
//! CPU 1 allocated (skb_attempt_defer_free: defer_count read without the
//! lock, the skb queued under it, the IPI at half of defer_max) and CPU 1
//! in NET_RX flushing its list (skb_defer_free_flush: the list taken and
//! the count reset under the lock, each skb consumed into its cache).
//! After a last flush on CPU 1, every skb is freed exactly once (in the
//! slab or one cache slot, no head freed twice), nothing is left on a
//! list, and each count is its list's length.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p ringlab-sim --release --test loom_napi`
//!
//! Kills (`ringlab mutants`): napi-defer-wrong-cpu (the skbs wait on CPU
//! 2's list, which nobody flushes: lost), napi-flush-count-kept (the count
//! outlives the list it counted), napi-remote-put (the bypass frees into
//! CPU 1's cache from CPU 2: the cache's lock assertion).
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use ringlab_sim::protocols::napi_cache::{Net, Shape, TunPath};

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(f);
}

/// Two CPUs, `skbs` skbs built in CPU 1's poll and handed to a task on
/// CPU 2 (their last reference held there), defer lists of `defer_max`.
fn system(skbs: u8, defer_max: u32) -> Arc<Net> {
    let net = Net::new(Shape {
        n_cpu: 2,
        n_skb: skbs,
        cache_size: 4,
        // One head a refill: the skbs built are 1, 2, 3 in that order.
        bulk: 1,
        defer_max,
        batch: 1,
        n_frames: u32::from(skbs),
        path: TunPath::Bulk,
    });
    net.net_rx_action(1);
    for _ in 0..skbs {
        net.frames.take(1);
        net.napi_build_skb(1, false).expect("a head");
    }
    net.napi_complete(1);
    Arc::new(net)
}

/// The task on CPU 2 frees each skb it holds.
fn remote_frees(net: &Arc<Net>, skbs: &'static [u8]) -> thread::JoinHandle<()> {
    let net = net.clone();
    thread::spawn(move || {
        for &s in skbs {
            net.skb_attempt_defer_free(2, s);
        }
    })
}

/// CPU 1 runs NET_RX: a flush on entry and one at the end.
fn owner_poll(net: &Arc<Net>) -> thread::JoinHandle<()> {
    let net = net.clone();
    thread::spawn(move || {
        net.net_rx_action(1);
        net.napi_complete(1);
    })
}

/// After a last poll on CPU 1: every head in exactly one place, none
/// freed twice, no list holding anything, each count its list's length.
fn settled(net: &Net) {
    net.net_rx_action(1);
    net.napi_complete(1);
    for c in [1, 2] {
        let cpu = net.cpu(c);
        assert_eq!(cpu.defer.count() as usize, cpu.defer.skbs().len(), "CPU {c}'s defer_count");
        assert!(cpu.defer.skbs().is_empty(), "CPU {c}'s list still holds {:?}", cpu.defer.skbs());
        assert_eq!(cpu.cache.splat(), None);
    }
    assert_eq!(net.slab.freed_twice(), Vec::<u8>::new(), "heads freed twice");
    let mut places = vec![0; net.skbs.len()];
    for s in net.slab.free_ids() {
        places[usize::from(s) - 1] += 1;
    }
    for c in [1, 2] {
        for s in net.cpu(c).cache.heads() {
            places[usize::from(s) - 1] += 1;
        }
    }
    for s in net.skbs.ids() {
        let skb = net.skbs.get(s);
        assert_eq!((skb.users(), skb.held()), (0, 0), "skb {s} still referenced");
        assert_eq!(places[usize::from(s) - 1], 1, "skb {s} is in {} places", places[usize::from(s) - 1]);
    }
}

#[test]
fn a_remote_free_races_the_owners_flush() {
    model(|| {
        let net = system(2, 4);
        let (a, b) = (remote_frees(&net, &[1, 2]), owner_poll(&net));
        a.join().unwrap();
        b.join().unwrap();
        settled(&net);
    });
}

/// defer_max 2: a free that finds the count at half kicks CPU 1, and one
/// that finds the list full (no flush came between) frees into CPU 2's
/// own cache instead.
#[test]
fn a_full_list_is_bypassed_while_the_owner_flushes() {
    model(|| {
        let net = system(3, 2);
        let (a, b) = (remote_frees(&net, &[1, 2, 3]), owner_poll(&net));
        a.join().unwrap();
        b.join().unwrap();
        settled(&net);
    });
}
