//! The per-CPU NAPI skb cache (struct napi_alloc_cache's skb_cache and
//! skb_count): a stack of free heads, refilled with Bulk heads in one
//! slab call when empty and half flushed back to the slab when full.
//!
//! Only its CPU may touch it, and only with BH off: the kernel's
//! local_lock_nested_bh() asserts so (lockdep) on every access. Here every
//! access names who makes it ([`Access`]); the last is kept (the spec's
//! `touch`), and the first that is not its CPU's with BH off is kept as
//! lockdep's splat. The array sits behind a mutex only so that a wrong
//! access (a mutant) is a recorded error, not undefined behaviour.

use ringlab_ring::sync::Ordering::{Acquire, Release};
use ringlab_ring::sync::{AtomicU32, Mutex, MutexGuard};

use super::slab::Slab;

/// Who touches a cache: a CPU, with BH off or on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub cpu: u8,
    pub bh: bool,
}

impl Access {
    fn code(self) -> u32 {
        u32::from(self.cpu) << 1 | u32::from(!self.bh)
    }
    fn of(code: u32) -> Access {
        Access { cpu: (code >> 1) as u8, bh: code & 1 == 0 }
    }
}

#[derive(Debug)]
struct Stack {
    /// skb_cache[]: slots 0..count hold heads, the top last.
    slots: Vec<u8>,
    count: usize,
}

#[derive(Debug)]
pub struct NapiAllocCache {
    cpu: u8,
    size: usize,
    bulk: usize,
    stack: Mutex<Stack>,
    /// The last access (the spec's touch).
    touch: AtomicU32,
    /// The first access that was not its CPU's with BH off.
    splat: Mutex<Option<String>>,
}

impl NapiAllocCache {
    /// CPU cpu's empty cache of `size` heads, refilled `bulk` at a time.
    pub fn new(cpu: u8, size: usize, bulk: usize) -> NapiAllocCache {
        NapiAllocCache {
            cpu,
            size,
            bulk,
            stack: Mutex::new(Stack { slots: vec![0; size], count: 0 }),
            touch: AtomicU32::new(Access { cpu, bh: true }.code()),
            splat: Mutex::new(None),
        }
    }

    /// lockdep_assert_held() of the nested-BH local lock, for an access
    /// by `a`: kept as the last touch, and as the splat if it is not
    /// this CPU's with BH off.
    pub fn assert_local(&self, a: Access) {
        self.touch.store(a.code(), Release);
        if a.cpu != self.cpu || !a.bh {
            let mut s = self.splat.lock().unwrap_or_else(|e| e.into_inner());
            if s.is_none() {
                *s = Some(format!(
                    "CPU {}'s NAPI cache touched by CPU {} with BH {}",
                    self.cpu,
                    a.cpu,
                    if a.bh { "off" } else { "on" }
                ));
            }
        }
    }

    fn lock(&self, a: Access) -> MutexGuard<'_, Stack> {
        self.assert_local(a);
        self.stack.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The last access.
    pub fn touch(&self) -> Access {
        Access::of(self.touch.load(Acquire))
    }

    /// What lockdep would have reported.
    pub fn splat(&self) -> Option<String> {
        self.splat.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The heads, oldest first (the top last).
    pub fn heads(&self) -> Vec<u8> {
        let st = self.stack.lock().unwrap_or_else(|e| e.into_inner());
        st.slots[..st.count].to_vec()
    }

    pub fn len(&self) -> usize {
        self.stack.lock().unwrap_or_else(|e| e.into_inner()).count
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// kmem_cache_alloc_bulk() of k heads onto the stack: all or none.
    fn refill(st: &mut Stack, slab: &Slab, k: usize, fail: bool) {
        if k == 0 {
            return;
        }
        if let Some(got) = slab.alloc_bulk(k, fail) {
            for s in got {
                push(st, s);
            }
        }
    }

    /// napi_skb_cache_get(): the top head, the stack refilled with Bulk
    /// heads first if empty; None if that refill failed.
    pub fn get(&self, a: Access, slab: &Slab, fail: bool) -> Option<u8> {
        let mut st = self.lock(a);
        if st.count == 0 {
            Self::refill(&mut st, slab, self.bulk, fail);
        }
        pop(&mut st)
    }

    /// napi_skb_cache_get_bulk() (series 1/5): until n heads are taken, a
    /// stack holding fewer than still wanted is topped up with what is
    /// missing rounded up to Bulk (never past its size), then its top
    /// heads are taken in array order; an empty stack ends the loop.
    pub fn get_bulk(&self, a: Access, slab: &Slab, n: usize, fail: bool) -> Vec<u8> {
        let mut st = self.lock(a);
        let mut got: Vec<u8> = Vec::with_capacity(n);
        while got.len() < n {
            let need = n - got.len();
            if st.count < need {
                let up = (need - st.count).div_ceil(self.bulk) * self.bulk;
                let want = up.min(self.size.saturating_sub(st.count));
                Self::refill(&mut st, slab, want, fail);
            }
            if st.count == 0 {
                break;
            }
            let take = need.min(st.count);
            let base = st.count - take;
            got.extend_from_slice(&st.slots[base..st.count]);
            st.count = base;
        }
        got
    }

    /// napi_skb_cache_put(): push a released head; a full stack gives
    /// its newer half back to the slab in one call.
    pub fn put(&self, a: Access, slab: &Slab, s: u8) {
        let mut st = self.lock(a);
        push(&mut st, s);
        if st.count == self.size {
            let half = self.size / 2;
            let back: Vec<u8> = st.slots[half..st.count].to_vec();
            st.count = half;
            slab.free_bulk(&back);
        }
    }

    /// The heads appended as they are, with no bound and no flush.
    pub fn append_unbounded(&self, a: Access, ss: &[u8]) {
        let mut st = self.lock(a);
        for &s in ss {
            push(&mut st, s);
        }
    }
}

fn push(st: &mut Stack, s: u8) {
    if st.count == st.slots.len() {
        // Past the array: only a mutant gets here (CacheBounded says so).
        st.slots.push(0);
    }
    let i = st.count;
    st.slots[i] = s;
    st.count += 1;
}

fn pop(st: &mut Stack) -> Option<u8> {
    if st.count == 0 {
        return None;
    }
    st.count -= 1;
    Some(st.slots[st.count])
}
