//! The NAPI skb cache's counters (specs/NapiSkbCache.tla): a CPU's
//! `napi_alloc_cache.skb_count` against its array of `NAPI_SKB_CACHE_SIZE`
//! heads, the bulk get of kernel/patches/tun-napi-cache, and a defer list's
//! `defer_count` with the IPI sent at half of `sysctl_skb_defer_max`
//! (net/core/skbuff.c and net/core/dev.c of linux 6.12.117).
//!
//! TLC runs caches of 2 and 4 heads; here the size, the refill and the
//! batch take every u32 value. The invariant at rest is `skb_count < size`:
//! a put writes slot `skb_count`, so a count equal to the size would write
//! past the array. Slab calls are all or nothing (kmem_cache_alloc_bulk
//! returns 0 or what was asked), so a refill's result is a free boolean.

use super::ring::{c, le, pow2, umin, Builder};
use super::{proved, refuted, Entry};
use z3::ast::{Bool, BV};

/// Size and count of a cache at rest: `2 <= size`, `count < size`.
fn cache_at_rest(b: &mut Builder) -> (BV, BV) {
    let size = b.var("size");
    let count = b.var("skb_count");
    b.assume(le(&c(2), &size));
    b.assume(count.bvult(&size));
    (size, count)
}

/// napi_skb_cache_put(): slot `count` is written, and a count reaching the
/// size gives back `[size / 2, size)` and keeps `size / 2`.
fn put_bounded(b: &mut Builder) -> Vec<Bool> {
    let (size, count) = cache_at_rest(b);
    let half = size.bvudiv(c(2));
    let filled = count.bvadd(c(1));
    let full = filled.eq(&size);
    let after = full.ite(&half, &filled);
    b.show("skb_count", &after);
    b.path("flush", &full);
    b.path("kept", &full.not());
    vec![
        count.bvult(&size),
        after.bvult(&size),
        filled.bvugt(&count),
        full.implies(&Bool::and(&[c(1).bvule(&half), half.bvult(&size)])),
    ]
}

/// napi_skb_cache_get(): an empty cache is refilled with `bulk` heads
/// (`1 <= bulk <= size`) or stays empty; the head read is slot `count - 1`.
fn get_bounded(b: &mut Builder) -> Vec<Bool> {
    let (size, count) = cache_at_rest(b);
    let bulk = b.var("bulk");
    b.assume(le(&c(1), &bulk));
    b.assume(le(&bulk, &size));
    let refilled = Bool::new_const("refilled");
    let empty = count.eq(c(0));
    let got = Bool::and(&[empty.clone(), refilled.clone()]).ite(&bulk, &c(0));
    let have = empty.ite(&got, &count);
    let hit = have.eq(c(0)).not();
    let slot = have.bvsub(c(1));
    b.show("skb_count", &hit.ite(&slot, &have));
    b.path("hit", &Bool::and(&[empty.not(), hit.clone()]));
    b.path("refill", &Bool::and(&[empty.clone(), hit.clone()]));
    b.path("none", &hit.not());
    vec![
        hit.implies(&slot.bvult(&size)),
        hit.implies(&slot.bvult(&have)),
        have.bvule(&size),
    ]
}

/// One pass of napi_skb_cache_get_bulk()'s loop (kernel/patches/
/// tun-napi-cache 1/5), the refill clamped to the array or not: with `got`
/// of `n` heads taken, a cache holding fewer than the `need = n - got`
/// still wanted is topped up with `round_up(need - count, bulk)` (bulk a
/// power of two, as round_up() requires), at most `size - count`, then
/// `min(need, count)` heads are copied out from its top. `count < size`
/// holds at every pass: a pass ends with the cache emptied or the batch
/// complete.
fn get_bulk(b: &mut Builder, clamp: bool) -> Vec<Bool> {
    let (size, count) = cache_at_rest(b);
    let bulk = b.var("bulk");
    let n = b.var("n");
    let got = b.var("got");
    b.assume(pow2(&bulk));
    b.assume(le(&bulk, &size));
    b.assume(got.bvult(&n));
    b.prefer(le(&size, &c(64)));
    let refilled = Bool::new_const("refilled");
    let need = n.bvsub(&got);
    let short = count.bvult(&need);
    // round_up(x, y) = ((x - 1) | (y - 1)) + 1
    let up = need.bvsub(&count).bvsub(c(1)).bvor(bulk.bvsub(c(1))).bvadd(c(1));
    // room = size - count cannot wrap: count < size.
    let room = size.bvsub(&count);
    let want = if clamp { umin(&up, &room) } else { up };
    let got1 = Bool::and(&[short.clone(), refilled.clone()]).ite(&want, &c(0));
    let have = count.bvadd(&got1);
    let empty = have.eq(c(0));
    let take = umin(&need, &have);
    let rest = have.bvsub(&take);
    let got2 = got.bvadd(&take);
    b.show("have", &have);
    b.show("skb_count", &rest);
    b.show("got", &got2);
    b.path("enough", &short.not());
    b.path("refilled", &Bool::and(&[short.clone(), refilled.clone(), empty.not()]));
    b.path("empty", &empty);
    let go = empty.not();
    vec![
        // the refill lands inside the array and its sum does not wrap
        have.bvuge(&count),
        have.bvule(&size),
        // the copy reads the cache's top `take` heads (have - take >= 0)
        take.bvule(&have),
        // and writes skbs[got .. got + take), within the caller's n
        go.implies(&Bool::and(&[got2.bvule(&n), got2.bvugt(&got)])),
        // the next pass (or the caller) finds the cache at rest
        rest.bvult(&size),
    ]
}

fn get_bulk_bounded(b: &mut Builder) -> Vec<Bool> {
    get_bulk(b, true)
}

fn get_bulk_unclamped(b: &mut Builder) -> Vec<Bool> {
    get_bulk(b, false)
}

/// skb_attempt_defer_free() against one list between flushes, with the
/// count it reads equal to the one it updates (the check and the update as
/// one step; racing CPUs can each pass the check, which the bound below
/// does not need): the IPI is sent on the enqueue that passes half of
/// defer_max, so "kicked since the flush" is "count > defer_max >> 1", and
/// it is never sent twice. This is what DeferDrains needs of the kick for
/// every defer_max; TLC checks it at defer_max 2.
fn defer_kick(b: &mut Builder, at: fn(&BV) -> BV) -> Vec<Bool> {
    let max = b.var("defer_max");
    let count = b.var("defer_count");
    let kicked = Bool::new_const("kicked");
    let half = max.bvlshr(c(1));
    // Inv: kicked since the flush exactly when past half, and within max.
    b.assume(kicked.iff(&count.bvugt(&half)));
    b.assume(count.bvule(&max));
    let queued = count.bvult(&max);
    let kick = Bool::and(&[queued.clone(), count.eq(&at(&max))]);
    let count2 = queued.ite(&count.bvadd(c(1)), &count);
    let kicked2 = Bool::or(&[kicked.clone(), kick.clone()]);
    b.show("defer_count", &count2);
    b.path("queued", &queued);
    b.path("half", &Bool::and(&[queued.clone(), count.eq(&half)]));
    b.path("bypass", &queued.not());
    vec![
        kicked2.iff(&count2.bvugt(&half)),
        count2.bvule(&max),
        kick.implies(&kicked.not()),
        queued.implies(&count2.bvugt(&count)),
    ]
}

fn defer_kick_once(b: &mut Builder) -> Vec<Bool> {
    defer_kick(b, |max| max.bvlshr(c(1)))
}

fn defer_kick_at_max(b: &mut Builder) -> Vec<Bool> {
    defer_kick(b, |max| max.clone())
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "napi-cache-put",
            "napi_skb_cache_put() at any count below any size >= 2 writes a slot inside the \
             array and leaves the count below the size (a full cache keeps size / 2 >= 1)",
            put_bounded,
        ),
        proved(
            "napi-cache-get",
            "napi_skb_cache_get() with any refill 1 <= bulk <= size reads a slot inside the \
             array and leaves the count at rest",
            get_bounded,
        ),
        proved(
            "napi-cache-get-bulk",
            "each pass of the bulk get's loop tops the cache up by min(round_up(need - count, \
             bulk), size - count) inside the array, copies out at most the heads it holds into \
             the caller's n, makes progress and leaves the cache at rest, for every u32 size, \
             count, power-of-two bulk, n and got < n",
            get_bulk_bounded,
        ),
        refuted(
            "napi-cache-get-bulk-unclamped",
            "a bulk get that tops up round_up(need - count, bulk) heads without clamping to \
             size - count writes past the array",
            None,
            get_bulk_unclamped,
        ),
        proved(
            "defer-kick-once",
            "skb_attempt_defer_free() sends the IPI on the enqueue past defer_max >> 1, once \
             per fill, so a list past half has been kicked, for every u32 defer_max",
            defer_kick_once,
        ),
        refuted(
            "defer-kick-at-max",
            "an IPI sent at defer_count == defer_max is never sent (a full list is bypassed \
             first), so a list past half waits unkicked",
            Some("napi-defer-no-kick"),
            defer_kick_at_max,
        ),
    ]
}

/// The counterexamples re-evaluated with plain integers.
#[cfg(test)]
mod tests {
    use super::super::{by_name, run, Outcome};
    use std::collections::HashMap;

    fn cex(name: &str) -> HashMap<String, u64> {
        match run(&by_name(name).unwrap()).outcome {
            Outcome::Refuted { counterexample } => counterexample.into_iter().collect(),
            o => panic!("{name}: expected a counterexample, got {o:?}"),
        }
    }

    #[test]
    fn unclamped_refill_overruns_the_array() {
        let x = cex("napi-cache-get-bulk-unclamped");
        let (size, count, bulk, n, got) = (x["size"], x["skb_count"], x["bulk"], x["n"], x["got"]);
        assert!(2 <= size && count < size && bulk.is_power_of_two() && bulk <= size && got < n);
        let need = (n - got) & 0xffff_ffff;
        // a top-up happened (count < need) and wrote past the array, or
        // its sum wrapped
        assert!(count < need, "{x:?}");
        let have = x["have'"];
        assert!(have > size || have < count, "{x:?}");
    }

    #[test]
    fn kick_at_max_never_fires() {
        let x = cex("defer-kick-at-max");
        let (max, count) = (x["defer_max"], x["defer_count"]);
        // the enqueue that passes half sends nothing: count + 1 > max / 2
        // with no kick since the flush
        assert!(count < max && count <= max >> 1 && count + 1 > max >> 1, "{x:?}");
    }
}
