//! Cost counters of a run: slab calls, cache hits, IPIs, defer-list
//! flushes. They are no part of the spec's state: a step counts only
//! inside [`counted`], on this thread, and the search never does.

use std::cell::Cell;

use serde::Serialize;

/// What the steps of a run cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Costs {
    /// kmem_cache_alloc(): one head (build_skb on Path "slab", pskb_copy).
    pub slab_alloc: u64,
    /// kmem_cache_alloc_bulk() calls (a cache refill, a bulk get's rest).
    pub slab_alloc_bulk: u64,
    /// kmem_cache_free(): one head (__kfree_skb).
    pub slab_free: u64,
    /// kmem_cache_free_bulk() calls (a full cache's half, a freed list).
    pub slab_free_bulk: u64,
    /// Heads served from a CPU's cache without a slab call.
    pub cache_hits: u64,
    /// IPIs sent to a CPU whose defer list reached half of DeferMax.
    pub kicks: u64,
    /// skb_defer_free_flush() runs that found skbs on the list.
    pub defer_flushes: u64,
}

impl Costs {
    /// Slab calls of every kind.
    pub fn slab_calls(&self) -> u64 {
        self.slab_alloc + self.slab_alloc_bulk + self.slab_free + self.slab_free_bulk
    }

    fn add(&mut self, o: &Costs) {
        self.slab_alloc += o.slab_alloc;
        self.slab_alloc_bulk += o.slab_alloc_bulk;
        self.slab_free += o.slab_free;
        self.slab_free_bulk += o.slab_free_bulk;
        self.cache_hits += o.cache_hits;
        self.kicks += o.kicks;
        self.defer_flushes += o.defer_flushes;
    }
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static NOW: Cell<Costs> = Cell::new(Costs::default());
}

/// Count what `f`'s steps cost, adding it to `into`.
pub fn counted<R>(into: &mut Costs, f: impl FnOnce() -> R) -> R {
    ON.with(|o| o.set(true));
    NOW.with(|n| n.set(Costs::default()));
    let r = f();
    ON.with(|o| o.set(false));
    into.add(&NOW.with(|n| n.get()));
    r
}

/// Add to the counters of the step being counted, if one is.
pub(super) fn count(f: impl FnOnce(&mut Costs)) {
    if ON.with(|o| o.get()) {
        NOW.with(|n| {
            let mut c = n.get();
            f(&mut c);
            n.set(c);
        });
    }
}
