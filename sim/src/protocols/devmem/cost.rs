//! Operation counts of the token path, counted by the code that does the
//! operation (never timings): what one token costs the kernel in each mode.
//!
//! - `xa_alloc`: __xa_alloc() calls (tcp_xa_pool_refill, xarray mode);
//! - `kvmalloc`: kvmalloc_array() of the dmabuf_token list
//!   (sock_devmem_dontneed, once per call);
//! - `xa_lock`: xa_lock_bh() acquisitions (refill, commit, dontneed and its
//!   relock per 16 net_iovs, close);
//! - `pp_rmw`: atomic RMWs on pp_ref_count (the application's reference
//!   taken and dropped, and each skb's dropped);
//! - `uref_rmw`: atomic RMWs on uref (the increment at recvmsg, each
//!   compare-exchange of the release, unbind's exchange);
//! - `tokens`, `released`, `calls`, `frags`: what the counts are per.
//!
//! A lock acquisition is an atomic RMW too ([`Cost::rmw`]).

use std::ops::AddAssign;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    pub xa_alloc: u64,
    pub kvmalloc: u64,
    pub xa_lock: u64,
    pub pp_rmw: u64,
    pub uref_rmw: u64,
    /// Tokens handed to the application.
    pub tokens: u64,
    /// Tokens SO_DEVMEM_DONTNEED released.
    pub released: u64,
    /// SO_DEVMEM_DONTNEED calls.
    pub calls: u64,
    /// Frags the NIC queued on sockets.
    pub frags: u64,
}

impl Cost {
    /// Allocation calls: xa_alloc and kvmalloc_array.
    pub fn allocs(&self) -> u64 {
        self.xa_alloc + self.kvmalloc
    }

    /// Atomic RMWs, lock acquisitions included.
    pub fn rmw(&self) -> u64 {
        self.pp_rmw + self.uref_rmw + self.xa_lock
    }
}

impl AddAssign for Cost {
    fn add_assign(&mut self, o: Cost) {
        self.xa_alloc += o.xa_alloc;
        self.kvmalloc += o.kvmalloc;
        self.xa_lock += o.xa_lock;
        self.pp_rmw += o.pp_rmw;
        self.uref_rmw += o.uref_rmw;
        self.tokens += o.tokens;
        self.released += o.released;
        self.calls += o.calls;
        self.frags += o.frags;
    }
}

#[cfg(not(loom))]
mod table;
#[cfg(not(loom))]
pub use table::{render, table, CostRow, SEED_FIGURE};
