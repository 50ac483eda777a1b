//! Operation counts of the copy-mode transmit path: what the kernel side
//! (the sendto loop and the skb destructor) does per packet, counted by the
//! code that does it. Counts, never timings.
//!
//! - `cq_lock`: acquisitions of pool->cq_lock.
//! - `rmw`: atomic read-modify-writes: one per lock acquisition (a spin
//!   lock's acquire), one per charge of the socket's sk_wmem_alloc when
//!   skbs are allocated (a bulk allocation charges its skbs at once), one
//!   per uncharge when an skb is freed (sock_wfree()). The ring indices
//!   take none: they are plain loads and stores.
//! - `allocs`: skb allocation calls, failed ones included; a bulk
//!   allocation is one call.
//! - `lines`: cache lines written: per critical section or ring update,
//!   the distinct 64-byte lines of ring slots stored, one line per index
//!   (`->producer`, `->consumer`) stored, and one line per lock
//!   acquisition (the lock word; the completion queue's cached indices,
//!   written under it, are taken to share its line).
//! - `idx_loads`, `idx_stores`: loads and stores of the rings' shared
//!   `->producer` and `->consumer` by the kernel.
//! - `descs`: descriptors transmitted (handed to the driver as sent).
//! - `doorbells`: transmits without xmit_more (each one a device kick).

use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    pub cq_lock: u64,
    pub rmw: u64,
    pub allocs: u64,
    pub lines: u64,
    pub idx_loads: u64,
    pub idx_stores: u64,
    pub descs: u64,
    pub doorbells: u64,
}

impl Cost {
    pub fn add(&mut self, o: &Cost) {
        self.cq_lock += o.cq_lock;
        self.rmw += o.rmw;
        self.allocs += o.allocs;
        self.lines += o.lines;
        self.idx_loads += o.idx_loads;
        self.idx_stores += o.idx_stores;
        self.descs += o.descs;
        self.doorbells += o.doorbells;
    }

    /// A lock acquisition: its RMW and its line.
    pub(crate) fn lock(&mut self) {
        self.cq_lock += 1;
        self.rmw += 1;
        self.lines += 1;
    }

    /// A store of a ring index: its line.
    pub(crate) fn index_store(&mut self) {
        self.idx_stores += 1;
        self.lines += 1;
    }

    /// Stores to `n` slots of `entry` bytes from position `first` of a
    /// ring with `mask`: the distinct lines they touch.
    pub(crate) fn slots(&mut self, first: u32, n: u32, mask: u32, entry: u64) {
        // One slot is one line: the common case, without the set.
        if n <= 1 {
            self.lines += n as u64;
            return;
        }
        let lines: BTreeSet<u64> = (0..n)
            .map(|i| (first.wrapping_add(i) & mask) as u64 * entry / 64)
            .collect();
        self.lines += lines.len() as u64;
    }
}

#[cfg(not(loom))]
mod table;
#[cfg(not(loom))]
pub use table::{render, table, CostRow};
