//! The XSKMAP (net/xdp/xskmap.c) and the queue's netdev_rx_queue socket
//! pointer of seed 002. Entry k names any socket or nothing, as the
//! spec's map has it; a socket may be in several entries.

use ringlab_model::xsk_rx::Sock;
use ringlab_ring::sync::AtomicU8;
use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Release};

use super::cost::Cost;

#[derive(Debug)]
pub struct XskMap {
    /// m->xsk_map[k - 1]: 0 (NULL) or a socket.
    entries: Vec<AtomicU8>,
}

impl XskMap {
    /// Entry k names socket k if `filled(k)`, else nothing.
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
        self.get(k)
    }

    /// xsk_map_update_elem() of entry k with socket s (BPF_ANY): the
    /// socket the entry named stays bound; a receive that looked it up
    /// keeps it.
    pub fn update(&self, k: Sock, s: Sock) {
        self.entries[usize::from(k) - 1].store(s, Release);
    }

    /// xsk_delete_from_maps(): each entry naming s, if it still does, is
    /// cleared (xsk_map_try_sock_delete()).
    pub fn delete(&self, s: Sock) {
        for e in &self.entries {
            let _ = e.compare_exchange(s, 0, AcqRel, Acquire);
        }
    }

    /// The socket entry k names (no cost: for projections and checks).
    pub fn get(&self, k: Sock) -> Option<Sock> {
        let s = self
            .entries
            .get(usize::from(k).wrapping_sub(1))?
            .load(Acquire);
        (s != 0).then_some(s)
    }

    /// Every entry's socket, 0 for none (no cost: for projections).
    pub fn entries(&self) -> Vec<Sock> {
        self.entries.iter().map(|e| e.load(Acquire)).collect()
    }
}
