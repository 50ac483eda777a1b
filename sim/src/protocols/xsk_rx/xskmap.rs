//! The XSKMAP (net/xdp/xskmap.c) and the queue's netdev_rx_queue socket
//! pointer of seed 002. Entry k names socket k or nothing, as the spec's
//! inMap has it.

use ringlab_model::xsk_rx::Sock;
use ringlab_ring::sync::AtomicU8;
use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Release};

use super::cost::Cost;

#[derive(Debug)]
pub struct XskMap {
    /// m->xsk_map[k - 1]: 0 (NULL) or k.
    entries: Vec<AtomicU8>,
}

impl XskMap {
    pub fn new(n: u8, filled: impl Fn(Sock) -> bool) -> XskMap {
        XskMap {
            entries: (1..=n)
                .map(|s| AtomicU8::new(if filled(s) { s } else { 0 }))
                .collect(),
        }
    }

    /// __xsk_map_lookup_elem(map, k): rcu_dereference of entry k.
    pub fn lookup(&self, k: Sock, cost: &mut Cost) -> Option<Sock> {
        cost.map_lookups += 1;
        let s = self
            .entries
            .get(usize::from(k).wrapping_sub(1))?
            .load(Acquire);
        (s != 0).then_some(s)
    }

    /// xsk_map_update_elem() of entry s with socket s.
    pub fn update(&self, s: Sock) {
        self.entries[usize::from(s) - 1].store(s, Release);
    }

    /// xsk_delete_from_maps() -> xsk_map_try_sock_delete(): entry s, if
    /// it still names s, is cleared.
    pub fn delete(&self, s: Sock) {
        let _ = self.entries[usize::from(s) - 1].compare_exchange(s, 0, AcqRel, Acquire);
    }

    /// Entry s names s (no cost: for projections and checks).
    pub fn holds(&self, s: Sock) -> bool {
        self.entries[usize::from(s) - 1].load(Acquire) == s
    }
}
