//! The NAPI skb cache under the seeded deterministic scheduler: many
//! seeds of the spec's models (napi-cache with Path flush, -bulk, -slab,
//! -clone, -batch-over-cache), resized by the seed (heads, frames, cache
//! and defer-list sizes), each run checking every invariant of
//! specs/NapiSkbCache.tla after every step, then a drain (batches ended,
//! every frame built, every skb freed, every defer list flushed) after
//! which every head is back in the slab or one cache. A failure names
//! the seed, which replays it: `ringlab sim napi-cache --seed S ...`.
//!
//! Kills (`ringlab mutants`): napi-kfree-list (RefsAccounted),
//! napi-virtio-cache, napi-tun-no-bh, napi-remote-put (CacheLocal),
//! napi-return-overflow (CacheBounded), napi-put-unreleased
//! (CachedReleased), napi-consume-no-unref, napi-bulk-lost-head
//! (OnePlace), napi-defer-wrong-cpu (DeferOwner), napi-flush-count-kept
//! (DeferCountMatches), napi-xdp-drop-uncounted (FramesConserved),
//! napi-gro-self (NoLeak), napi-defer-no-kick (no run sends an IPI): with
//! the mutant in, the clean runs below fail, and the test of that mutant
//! checks it is its invariant that breaks.

use ringlab_model::napi_cache::{Config, Path, State};
use ringlab_sim::harness::{self, Sched};
use ringlab_sim::protocols::napi_cache::{NapiCacheConfig, NapiSkbCache, Report};

mod common;

const SEEDS: u64 = 200;
const STEPS: u64 = 300;

/// The spec's models' constants.
fn model(name: &str) -> Config {
    let small = Config::small();
    match name {
        "napi-cache" => small,
        "napi-cache-bulk" => small.with_path(Path::Bulk),
        "napi-cache-slab" => small.with_path(Path::Slab),
        "napi-cache-clone" => Config { ncpu: 1, clone: true, ..small },
        "napi-cache-batch-over-cache" => Config {
            ncpu: 1,
            cache_size: 2,
            batch: 3,
            slab_fail: false,
            ..small
        },
        _ => panic!("no model {name}"),
    }
}

const MODELS: [&str; 5] = [
    "napi-cache",
    "napi-cache-bulk",
    "napi-cache-slab",
    "napi-cache-clone",
    "napi-cache-batch-over-cache",
];

/// A model's constants resized by the seed: 4 to 9 heads, 6 to 17
/// frames, defer lists of 2 or 3.
fn cfg(base: &Config, seed: u64) -> NapiCacheConfig {
    let mut c = NapiCacheConfig::from_spec(base.clone()).seed(seed);
    c.spec.nskb = base.nskb + (seed % 6) as u8;
    c.spec.nframes = 6 + (seed / 6 % 12) as u32;
    c.spec.defer_max = base.defer_max + (seed / 72 % 2) as u32;
    c
}

fn runs(name: &str) -> Vec<Report> {
    let base = model(name);
    (0..SEEDS)
        .map(|seed| {
            harness::run::<NapiSkbCache>(cfg(&base, seed), STEPS, None).unwrap_or_else(|f| panic!("{name}: {f}"))
        })
        .collect()
}

fn total(rs: &[Report], action: &str) -> u64 {
    rs.iter().map(|r| r.actions.get(action).copied().unwrap_or(0)).sum()
}

#[test]
fn every_model_keeps_every_invariant() {
    for name in MODELS {
        let rs = runs(name);
        let sum = |f: fn(&Report) -> u64| rs.iter().map(f).sum::<u64>();
        let (rcvd, dropped) = (sum(|r| u64::from(r.rcvd)), sum(|r| u64::from(r.dropped)));
        let (flushes, kicks) = (sum(|r| u64::from(r.flushes)), sum(|r| u64::from(r.kicks)));
        eprintln!(
            "{name}: {} steps, {rcvd} frames delivered, {dropped} dropped, {flushes} flushes, {kicks} IPIs, slab calls {:?}",
            sum(|r| r.steps),
            [0, 1, 2, 3].map(|i| rs.iter().map(|r| u64::from(r.slab_calls[i])).sum::<u64>())
        );
        assert!(rcvd > SEEDS * 3, "{name}: {rcvd} frames delivered");
        assert!(total(&rs, "TunSendmsg") > SEEDS, "{name}: {} batches", total(&rs, "TunSendmsg"));
        if model(name).ncpu > 1 {
            assert!(flushes > SEEDS / 4 && kicks > 0, "{name}: {flushes} flushes, {kicks} IPIs");
        }
        if model(name).clone {
            assert!(total(&rs, "PskbCopy") > 0 && total(&rs, "SkbGroReceiveList") > SEEDS / 4, "{name}");
        }
    }
}

#[test]
fn a_seed_replays_its_run() {
    let run = |seed| {
        let mut s = Sched::<NapiSkbCache>::new(cfg(&model("napi-cache-clone"), seed)).unwrap();
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
        assert_eq!(run(seed), run(seed), "seed {seed}");
    }
    assert_ne!(run(42).0, run(43).0);
}

/// The model (of the run's mutant) takes every step the simulator
/// takes, the drain's too, to the state the simulator projects to.
#[test]
fn the_model_follows_every_step() {
    for name in MODELS {
        for seed in 0..40 {
            let c = cfg(&model(name), seed);
            let spec = c.spec.clone();
            let mut s = Sched::<NapiSkbCache>::new(c).unwrap();
            let mut st = State::init(&spec);
            assert_eq!(s.sys.model_state(), st);
            loop {
                let next = match s.step_random() {
                    Ok(Some(a)) => Some(a),
                    Ok(None) => s.drain_step().unwrap_or_else(|f| panic!("{name} seed {seed}: {f}")),
                    Err(f) => panic!("{name} seed {seed}: {f}"),
                };
                let Some(a) = next else { break };
                st = st.step(&spec, &a).unwrap_or_else(|| panic!("{name} seed {seed}: the model cannot take {a}"));
                assert_eq!(s.sys.model_state(), st, "{name} seed {seed}: after {a}");
                if s.steps() >= STEPS {
                    break;
                }
            }
        }
    }
}

/// Some seed of model `name` breaks `invariant`, and every seed that
/// breaks, breaks it.
fn mutant_breaks(name: &str, invariant: &str) {
    let base = model(name);
    common::mutant_breaks::<NapiSkbCache>(SEEDS, STEPS, |seed| cfg(&base, seed), invariant);
}

#[test]
fn kfree_list_loses_the_members_behind_a_shared_list() {
    if ringlab_mutant::on("mutant-napi-kfree-list") {
        mutant_breaks("napi-cache-clone", "RefsAccounted");
    }
}

#[test]
fn virtio_cache_touches_the_cache_with_bh_on() {
    if ringlab_mutant::on("mutant-napi-virtio-cache") {
        mutant_breaks("napi-cache", "CacheLocal");
    }
}

#[test]
fn tun_no_bh_takes_the_batch_with_bh_on() {
    if ringlab_mutant::on("mutant-napi-tun-no-bh") {
        mutant_breaks("napi-cache-bulk", "CacheLocal");
    }
}

#[test]
fn remote_put_frees_into_another_cpus_cache() {
    if ringlab_mutant::on("mutant-napi-remote-put") {
        mutant_breaks("napi-cache-bulk", "CacheLocal");
    }
}

#[test]
fn return_overflow_overruns_the_cache() {
    if ringlab_mutant::on("mutant-napi-return-overflow") {
        mutant_breaks("napi-cache-batch-over-cache", "CacheBounded");
    }
}

#[test]
fn put_unreleased_caches_a_head_with_its_frag_list() {
    if ringlab_mutant::on("mutant-napi-put-unreleased") {
        mutant_breaks("napi-cache-clone", "CachedReleased");
    }
}

#[test]
fn consume_no_unref_caches_a_shared_skb() {
    if ringlab_mutant::on("mutant-napi-consume-no-unref") {
        mutant_breaks("napi-cache-clone", "OnePlace");
    }
}

#[test]
fn bulk_lost_head_leaks_the_unused_heads() {
    if ringlab_mutant::on("mutant-napi-bulk-lost-head") {
        mutant_breaks("napi-cache", "OnePlace");
    }
}

#[test]
fn defer_wrong_cpu_queues_on_the_freeing_cpu() {
    if ringlab_mutant::on("mutant-napi-defer-wrong-cpu") {
        mutant_breaks("napi-cache-bulk", "DeferOwner");
    }
}

#[test]
fn flush_count_kept_leaves_the_count_behind() {
    if ringlab_mutant::on("mutant-napi-flush-count-kept") {
        mutant_breaks("napi-cache-bulk", "DeferCountMatches");
    }
}

#[test]
fn xdp_drop_uncounted_loses_a_frame() {
    if ringlab_mutant::on("mutant-napi-xdp-drop-uncounted") {
        mutant_breaks("napi-cache", "FramesConserved");
    }
}

#[test]
fn gro_self_puts_an_skb_on_its_own_list() {
    if ringlab_mutant::on("mutant-napi-gro-self") {
        mutant_breaks("napi-cache-clone", "NoLeak");
    }
}

/// The checks only the objects can make fail where they should: a head
/// freed into the slab while free, a cache touched by another CPU (which
/// a later access by its own hides from the spec's touch), a flush that
/// finds another CPU's skb.
#[test]
fn the_concrete_checks_catch_what_the_projection_cannot() {
    use ringlab_sim::protocols::napi_cache::{invariants, Access};
    let fresh = || NapiSkbCache::new(NapiCacheConfig::from_spec(model("napi-cache-bulk"))).unwrap();
    let sys = fresh();
    assert!(invariants::concrete(&sys).is_ok());
    sys.net.slab.free(1);
    let v = invariants::concrete(&sys).unwrap_err();
    assert!(v.to_string().contains("heads [1] freed into the slab while free"), "{v}");

    let sys = fresh();
    let cache = &sys.net.cpu(1).cache;
    cache.assert_local(Access { cpu: 2, bh: true });
    cache.assert_local(Access { cpu: 1, bh: true });
    assert!(invariants::check(&sys).is_ok(), "the spec's touch is the last access");
    let v = invariants::concrete(&sys).unwrap_err();
    assert_eq!(v.invariant, Some("CacheLocal"), "{v}");

    let mut sys = fresh();
    sys.net_rx_action(1).unwrap();
    sys.napi_build_skb(1, false).unwrap();
    sys.net.cpu(2).defer.push(2, 1);
    sys.net.skbs.get(2).set_held(0);
    sys.net_rx_action(2).unwrap();
    let v = invariants::concrete(&sys).unwrap_err();
    assert_eq!(v.invariant, Some("DeferOwner"), "{v}");
    assert!(v.to_string().contains("CPU 2 flushed skb 2 that CPU 1 allocated"), "{v}");
}
