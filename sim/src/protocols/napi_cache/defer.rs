//! A CPU's deferred-free list (softnet_data.defer_list, defer_count,
//! defer_lock): skbs other CPUs freed for this one to recycle. The list
//! changes under the lock; the count is also read without it, as
//! skb_attempt_defer_free() reads defer_count with READ_ONCE() to decide
//! whether the list is full, so it is an atomic written under the lock
//! (Release) and read outside it (Acquire).

use ringlab_ring::sync::Ordering::{Acquire, Release};
use ringlab_ring::sync::{AtomicU32, Mutex};

#[derive(Debug, Default)]
pub struct DeferList {
    /// Newest first.
    list: Mutex<Vec<u8>>,
    count: AtomicU32,
}

impl DeferList {
    pub fn new() -> DeferList {
        DeferList::default()
    }

    /// READ_ONCE(sd->defer_count).
    pub fn count(&self) -> u32 {
        self.count.load(Acquire)
    }

    /// The list, newest first.
    pub fn skbs(&self) -> Vec<u8> {
        self.list.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Under the lock, s goes on the front and the count up; true if the
    /// count was at `half` (the IPI is due).
    pub fn push(&self, s: u8, half: u32) -> bool {
        let mut l = self.list.lock().unwrap_or_else(|e| e.into_inner());
        let n = self.count.load(Acquire);
        let kick = n == half;
        self.count.store(n + 1, Release);
        l.insert(0, s);
        kick
    }

    /// skb_defer_free_flush()'s take: the whole list under the lock, the
    /// count reset (unless `keep_count`); the skbs newest first.
    pub fn take(&self, keep_count: bool) -> Vec<u8> {
        let mut l = self.list.lock().unwrap_or_else(|e| e.into_inner());
        if !keep_count {
            self.count.store(0, Release);
        }
        std::mem::take(&mut *l)
    }
}
