//! The completion ring's kernel side (xsk_queue.h producer functions,
//! called under the pool's CQ lock): a slot reserved per descriptor as it
//! is built (xsk_cq_reserve_addr_locked), published by the skb's destructor
//! (xsk_destruct_skb -> xsk_cq_submit_locked), cancelled when the skb is
//! consumed without being sent (xsk_consume_skb); and the lone completion
//! of an invalid or drained descriptor (xsk_cq_submit_addr_single_locked).
//! `cached_prod` is the kernel's reserved producer. Each slot carries its
//! ghost identity (ghost.rs) beside the address.

use super::ghost::Compl;
use super::state::Ring;

impl Ring<Compl> {
    fn slot(&self, idx: u32) -> u32 {
        idx & (self.size - 1)
    }

    /// xskq_prod_is_full (it re-reads ->consumer): published plus
    /// reserved slots fill the ring.
    pub fn prod_full(&self) -> bool {
        self.cached_prod.wrapping_sub(self.cons) >= self.size
    }

    /// xskq_prod_nb_free (it re-reads ->consumer when short): how many of
    /// `max` slots are free.
    pub fn prod_nb_free(&self, max: u32) -> u32 {
        self.size.wrapping_sub(self.cached_prod.wrapping_sub(self.cons)).min(max)
    }

    /// xskq_prod_reserve(_addr): one slot, `c` written into it now when
    /// `write` (the profile writes at reserve time).
    pub fn prod_reserve(&mut self, c: Compl, write: bool) -> bool {
        if self.prod_full() {
            return false;
        }
        if write {
            self.slots.insert(self.slot(self.cached_prod), c);
        }
        self.cached_prod = self.cached_prod.wrapping_add(1);
        true
    }

    /// xskq_prod_submit_n(addrs.len()), the addresses written at the
    /// producer first when `write` (the profile writes on submit).
    pub fn prod_submit(&mut self, addrs: &[Compl], write: bool) {
        for (i, a) in addrs.iter().enumerate() {
            if write {
                self.slots.insert(self.slot(self.prod.wrapping_add(i as u32)), *a);
            }
        }
        self.prod = self.prod.wrapping_add(addrs.len() as u32);
    }

    /// xskq_prod_cancel_n.
    pub fn prod_cancel(&mut self, n: u32) {
        self.cached_prod = self.cached_prod.wrapping_sub(n);
    }

    /// xsk_cq_submit_addr_single_locked: publishes `addr` at once if the
    /// ring has room. Where addresses are written at reserve time
    /// (`!on_submit`) the ring is positional, so also only if no reserved
    /// slot is ahead of it (`cached_prod == producer`, 6.12.117 l.762);
    /// where they are written on submit, another packet's reserved slots
    /// do not stop it (measured: a drained descriptor completes while the
    /// other shared-umem socket has a packet open).
    pub fn submit_single(&mut self, c: Compl, on_submit: bool) -> bool {
        if (!on_submit && self.cached_prod != self.prod) || self.prod_full() {
            return false;
        }
        self.slots.insert(self.slot(self.prod), c);
        self.cached_prod = self.cached_prod.wrapping_add(1);
        self.prod = self.prod.wrapping_add(1);
        true
    }
}
