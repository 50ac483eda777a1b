//! The application as consumer (rx and completion rings): libxdp's
//! `struct xsk_ring_cons` and its inline functions in `xdp/xsk.h`.

use crate::{Queue, RingMem};
use crate::idx::{add, sub};
use crate::sync::Ordering::{Acquire, Relaxed, Release};

/// `struct xsk_ring_cons`: `cached_cons` moves at peek (it is the end of
/// the peeked positions); `->consumer` moves at release.
#[derive(Debug)]
pub struct UserCons<R: RingMem> {
    pub(super) q: Queue<R>,
}

impl<R: RingMem> UserCons<R> {
    /// Take the consumer side of `ring`.
    ///
    /// # Safety
    ///
    /// No other consumer handle exists for this ring, and its producer
    /// follows the ring protocol (it stores only into slots it reserved).
    pub unsafe fn new(ring: R) -> Self {
        Self {
            q: Queue::new(ring),
        }
    }

    /// Spec: ConsPeek (the refresh). libxdp: xsk_cons_nb_avail(): re-reads
    /// `->producer` only when nothing is cached. That load is barrier C
    /// (Acquire, pairs with B).
    #[inline]
    pub fn nb_avail(&mut self, nb: u32) -> u32 {
        let mut entries = sub(self.q.cached_prod, self.q.cached_cons);
        if entries == 0 {
            self.q.cached_prod = self.q.ring.producer().load(Acquire);
            entries = sub(self.q.cached_prod, self.q.cached_cons);
            let size = self.q.ring.size();
            check!(
                entries <= size,
                "user consumer: ->producer {} is {} past cached_cons {}",
                self.q.cached_prod,
                entries,
                self.q.cached_cons,
            );
        }
        entries.min(nb)
    }

    /// Spec: ConsPeek. libxdp: xsk_ring_cons__peek(): up to `nb` entries
    /// from the returned position; `cached_cons` moves past them.
    #[inline]
    pub fn peek(&mut self, nb: u32) -> (u32, u32) {
        let n = self.nb_avail(nb);
        let idx = self.q.cached_cons;
        if n > 0 {
            self.q.cached_cons = add(self.q.cached_cons, n);
        }
        (n, idx)
    }

    /// Spec: ConsRead. libxdp: the load through xsk_ring_cons__comp_addr()
    /// or xsk_ring_cons__rx_desc(), for a peeked position.
    #[inline]
    pub fn read(&self, idx: u32) -> R::Entry {
        check!(
            sub(self.q.cached_cons, idx).wrapping_sub(1) < self.q.ring.size(),
            "user consumer: load of {}, not among the peeked before {}",
            idx,
            self.q.cached_cons,
        );
        // Safety: idx is peeked (C saw it published) and not released.
        unsafe { self.q.ring.read(idx) }
    }

    /// Spec: ConsRead, for `out.len()` peeked positions from `idx` at once
    /// (libxdp loads them one by one; the loads are the same).
    #[inline]
    pub fn read_batch(&self, idx: u32, out: &mut [R::Entry]) {
        let (behind, n) = (sub(self.q.cached_cons, idx), out.len());
        check!(
            n as u64 <= behind as u64 && behind <= self.q.ring.size(),
            "user consumer: load of {} from {}, not among the peeked before {}",
            n,
            idx,
            self.q.cached_cons,
        );
        // Safety: every position is peeked (C saw it published) and not released.
        unsafe { self.q.ring.read_n(idx, out) }
    }

    /// Spec: ConsRead, for `n` peeked positions from `idx`: each entry is
    /// handed to `f` where it is, as an application reads it through
    /// xsk_ring_cons__comp_addr() or xsk_ring_cons__rx_desc().
    #[inline]
    pub fn read_with(&self, idx: u32, n: u32, f: impl FnMut(R::Entry)) {
        let behind = sub(self.q.cached_cons, idx);
        check!(
            n <= behind && behind <= self.q.ring.size(),
            "user consumer: load of {} from {}, not among the peeked before {}",
            n,
            idx,
            self.q.cached_cons,
        );
        // Safety: every position is peeked (C saw it published) and not released.
        unsafe { self.q.ring.read_with(idx, n, f) }
    }

    /// Spec: ConsRelease. libxdp: xsk_ring_cons__release(): `->consumer + nb`.
    /// The store is barrier D (Release, pairs with A): the entry loads are
    /// done before the producer may reuse their slots.
    #[inline]
    pub fn release(&self, nb: u32) {
        // Relaxed: our own counter; only we store it.
        let cons = self.q.ring.consumer().load(Relaxed);
        let peeked = sub(self.q.cached_cons, cons);
        check!(
            nb <= peeked,
            "user consumer: release {} with {} peeked",
            nb,
            peeked,
        );
        // mutant-barrier-d: the store of ->consumer loses its release (D).
        let d = if ringlab_mutant::on("mutant-barrier-d") {
            Relaxed
        } else {
            Release
        };
        self.q.ring.consumer().store(add(cons, nb), d);
    }

    /// libxdp: xsk_ring_cons__cancel(): un-peek `nb` unreleased entries.
    pub fn cancel(&mut self, nb: u32) {
        debug_assert!(
            nb <= sub(self.q.cached_cons, self.q.ring.consumer().load(Relaxed)),
            "user consumer: cancel {nb} beyond the peeked"
        );
        check!(
            nb <= self.q.ring.size(),
            "user consumer: cancel {} beyond the ring",
            nb,
        );
        self.q.cached_cons = sub(self.q.cached_cons, nb);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::Ring;

    fn cons(size: u32, start: u32) -> UserCons<Ring<u64>> {
        unsafe { UserCons::new(Ring::new(size, start, 0).unwrap()) }
    }

    #[test]
    fn peek_refreshes_only_when_nothing_is_cached() {
        let mut c = cons(4, u32::MAX);
        assert_eq!(c.peek(2), (0, u32::MAX));
        unsafe { c.ring().write(u32::MAX, 7) };
        c.ring().producer().store(0, Release);
        assert_eq!(c.peek(2), (1, u32::MAX));
        assert_eq!(c.read(u32::MAX), 7);
        c.ring().producer().store(2, Release);
        assert_eq!(c.peek(4), (2, 0));
        c.cancel(1);
        assert_eq!(c.peek(4), (1, 1));
        c.release(3);
        assert_eq!(c.ring().consumer().load(Relaxed), 2);
        assert_eq!(c.peek(4), (0, 2));
    }

    #[test]
    fn read_batch_loads_peeked_positions_only() {
        let mut c = cons(4, u32::MAX);
        unsafe { c.ring().write_n(u32::MAX, &[5, 6, 7]) };
        c.ring().producer().store(2, Release);
        let (n, idx) = c.peek(4);
        let mut out = [0; 3];
        c.read_batch(idx, &mut out[..n as usize]);
        assert_eq!(out, [5, 6, 7]);
        c.read_batch(add(idx, 1), &mut out[..2]);
        assert_eq!(out[..2], [6, 7]);
    }

    #[test]
    fn read_with_hands_over_the_peeked_entries_in_order() {
        let mut c = cons(2, u32::MAX);
        unsafe { c.ring().write_n(u32::MAX, &[3, 4]) };
        c.ring().producer().store(1, Release);
        let (n, idx) = c.peek(2);
        let mut seen = Vec::new();
        c.read_with(idx, n, |e| seen.push(e));
        assert_eq!(seen, [3, 4]);
    }

    #[test]
    #[should_panic(expected = "not among the peeked")]
    fn read_with_beyond_the_peek_is_caught() {
        let mut c = cons(4, 0);
        c.ring().producer().store(1, Release);
        let (_, idx) = c.peek(4);
        c.read_with(idx, 2, |_| ());
    }

    #[test]
    #[should_panic(expected = "not among the peeked")]
    fn read_batch_beyond_the_peek_is_caught() {
        let mut c = cons(4, 0);
        c.ring().producer().store(1, Release);
        let (_, idx) = c.peek(4);
        c.read_batch(idx, &mut [0; 2]);
    }

    #[test]
    #[should_panic(expected = "release 1 with 0 peeked")]
    fn release_beyond_peek_is_caught() {
        cons(2, 0).release(1);
    }
}
