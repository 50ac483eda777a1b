//! The slab of skb heads (net_hotdata.skbuff_cache): ids 1..=NSkb, a bit
//! each while free. Every call hands out the lowest free ids, as the spec
//! does, so that runs are reproducible; a call may be told to fail
//! (failslab), and then changes nothing. The calls are counted, and a
//! head freed while it is free is kept as a concrete error.

use ringlab_ring::sync::Ordering::Relaxed;
use ringlab_ring::sync::{AtomicU32, Mutex};

#[derive(Debug)]
pub struct Slab {
    n: u8,
    /// Bit s - 1: head s is free.
    free: Mutex<u64>,
    /// Heads freed while free (a double free).
    twice: Mutex<Vec<u8>>,
    pub calls: SlabCalls,
}

/// Calls into the slab, by kind.
#[derive(Debug, Default)]
pub struct SlabCalls {
    /// kmem_cache_alloc() (a failed one too).
    pub alloc: AtomicU32,
    /// kmem_cache_alloc_bulk().
    pub alloc_bulk: AtomicU32,
    /// kmem_cache_free().
    pub free: AtomicU32,
    /// kmem_cache_free_bulk().
    pub free_bulk: AtomicU32,
}

fn bit(s: u8) -> u64 {
    1 << (s - 1)
}

impl Slab {
    /// Every one of n heads free (n at most 64).
    pub fn new(n: u8) -> Slab {
        assert!((1..=64).contains(&n), "the slab holds 1 to 64 heads");
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        Slab {
            n,
            free: Mutex::new(all),
            twice: Mutex::new(Vec::new()),
            calls: SlabCalls::default(),
        }
    }

    fn lock(&self) -> ringlab_ring::sync::MutexGuard<'_, u64> {
        self.free.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The free heads, ascending.
    pub fn free_ids(&self) -> Vec<u8> {
        let f = *self.lock();
        (1..=self.n).filter(|&s| f & bit(s) != 0).collect()
    }

    pub fn is_empty(&self) -> bool {
        *self.lock() == 0
    }

    pub fn len(&self) -> usize {
        self.lock().count_ones() as usize
    }

    /// kmem_cache_alloc(): the lowest free head; None if `fail` or none
    /// is free.
    pub fn alloc(&self, fail: bool) -> Option<u8> {
        self.calls.alloc.fetch_add(1, Relaxed);
        let mut f = self.lock();
        if fail || *f == 0 {
            return None;
        }
        let s = f.trailing_zeros() as u8 + 1;
        *f &= !bit(s);
        Some(s)
    }

    /// kmem_cache_alloc_bulk(): k heads, the lowest, ascending, or none
    /// at all (if `fail` or fewer are free).
    pub fn alloc_bulk(&self, k: usize, fail: bool) -> Option<Vec<u8>> {
        self.calls.alloc_bulk.fetch_add(1, Relaxed);
        let mut f = self.lock();
        if fail || (f.count_ones() as usize) < k {
            return None;
        }
        let mut got = Vec::with_capacity(k);
        while got.len() < k {
            let s = f.trailing_zeros() as u8 + 1;
            *f &= !bit(s);
            got.push(s);
        }
        Some(got)
    }

    fn put(&self, f: &mut u64, s: u8) {
        if *f & bit(s) != 0 {
            self.twice.lock().unwrap_or_else(|e| e.into_inner()).push(s);
        }
        *f |= bit(s);
    }

    /// kmem_cache_free().
    pub fn free(&self, s: u8) {
        self.calls.free.fetch_add(1, Relaxed);
        let mut f = self.lock();
        self.put(&mut f, s);
    }

    /// kmem_cache_free_bulk(); nothing to free is no call.
    pub fn free_bulk(&self, ss: &[u8]) {
        if ss.is_empty() {
            return;
        }
        self.calls.free_bulk.fetch_add(1, Relaxed);
        let mut f = self.lock();
        for &s in ss {
            self.put(&mut f, s);
        }
    }

    /// Heads freed while they were free.
    pub fn freed_twice(&self) -> Vec<u8> {
        self.twice.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
