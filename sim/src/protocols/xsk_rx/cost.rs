//! Operation counts of the redirect path, counted by the code that does
//! the operation (never timings): what one received packet costs the
//! XSKMAP path (6.12.117) and seed 002's XDP_REDIRECT_XSK fast path.
//!
//! - `map_lookups`: __xsk_map_lookup_elem() calls (bpf_redirect_map();
//!   the fast path's comparison of entry k with the queue's socket);
//! - `ri_writes`: stores to the per-CPU bpf_redirect_info:
//!   __bpf_xdp_redirect_map() 6 (3 if the lookup fails), xdp_do_redirect()
//!   2 (xdp_do_generic_redirect() 3), kern_flags once per poll when the
//!   flush list is first used;
//! - `flush_adds`: list_add() to the XSKMAP flush list (once per socket
//!   per poll, __xsk_map_redirect());
//! - `flush_walk`: sockets __xsk_map_flush() walks at xdp_do_flush();
//! - `ctx_writes`: other stores to the per-CPU bpf_net_context, the fast
//!   path's: bpf_redirect_xsk() keeps the socket it chose (1), the driver
//!   takes it (1), and the socket to flush is kept once a poll;
//! - `slow`, `fast`: packets received through the XSKMAP and through
//!   XDP_REDIRECT_XSK; `polls`: NAPI polls ended.

use std::ops::AddAssign;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    pub map_lookups: u64,
    pub ri_writes: u64,
    pub flush_adds: u64,
    pub flush_walk: u64,
    pub ctx_writes: u64,
    pub slow: u64,
    pub fast: u64,
    pub polls: u64,
}

impl Cost {
    /// Packets received, both paths.
    pub fn packets(&self) -> u64 {
        self.slow + self.fast
    }
}

impl AddAssign for Cost {
    fn add_assign(&mut self, o: Cost) {
        self.map_lookups += o.map_lookups;
        self.ri_writes += o.ri_writes;
        self.flush_adds += o.flush_adds;
        self.flush_walk += o.flush_walk;
        self.ctx_writes += o.ctx_writes;
        self.slow += o.slow;
        self.fast += o.fast;
        self.polls += o.polls;
    }
}

#[cfg(not(loom))]
mod table;
#[cfg(not(loom))]
pub use table::{render, table, table_budget, CostRow, SEED_FIGURE};
