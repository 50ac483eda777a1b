//! The kernel as producer (rx and completion rings): the producer half of
//! `net/xdp/xsk_queue.h` (linux 6.12).

use crate::{Queue, RingMem};
use crate::idx::{add, sub, within};
use crate::sync::Ordering::{Acquire, Relaxed, Release};

/// The ring was full (`-ENOSPC` / `-ENOBUFS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoSpace;

/// `struct xsk_queue` as a producer: `cached_prod` is the next position to
/// reserve, `cached_cons` the last seen `->consumer` (not offset).
#[derive(Debug)]
pub struct KernelProd<R: RingMem> {
    pub(super) q: Queue<R>,
}

impl<R: RingMem> KernelProd<R> {
    /// Take the producer side of `ring`, caching both counters.
    ///
    /// # Safety
    ///
    /// No other producer handle exists for this ring, and its consumer
    /// follows the ring protocol (it touches only slots it has peeked).
    pub unsafe fn new(ring: R) -> Self {
        Self {
            q: Queue::new(ring),
        }
    }

    /// Spec: ProdReserve (the refresh). Kernel: xskq_prod_nb_free().
    ///
    /// Re-reads `->consumer` only when the cache shows fewer than `max`
    /// free entries. That load is barrier A (pairs with D): the kernel uses
    /// READ_ONCE plus the control dependency to the entry stores; Rust has
    /// no control dependencies, so it is an Acquire load.
    #[inline]
    pub fn nb_free(&mut self, max: u32) -> u32 {
        let size = self.q.ring.size();
        let free = size.wrapping_sub(sub(self.q.cached_prod, self.q.cached_cons));
        if free >= max {
            return max;
        }
        // mutant-barrier-a: the load of ->consumer loses its ordering (A).
        let a = if ringlab_mutant::on("mutant-barrier-a") {
            Relaxed
        } else {
            Acquire
        };
        let cons = self.q.ring.consumer().load(a);
        // mutant-cached-cons-offset: libxdp's +nentries convention on the kernel side.
        self.q.cached_cons = if ringlab_mutant::on("mutant-cached-cons-offset") {
            add(cons, size)
        } else {
            cons
        };
        let used = sub(self.q.cached_prod, self.q.cached_cons);
        check!(
            used <= size,
            "kernel producer: {} entries in flight on a ring of {}",
            used,
            size,
        );
        let free = size - used;
        free.min(max)
    }

    /// Kernel: xskq_prod_is_full().
    #[inline]
    pub fn is_full(&mut self) -> bool {
        self.nb_free(1) == 0
    }

    /// Spec: ProdReserve with n = 1. Kernel: xskq_prod_reserve().
    #[inline]
    pub fn reserve(&mut self) -> Result<(), NoSpace> {
        if self.is_full() {
            return Err(NoSpace);
        }
        // A, matches D: the slot is ours from here on.
        self.q.cached_prod = add(self.q.cached_prod, 1);
        Ok(())
    }

    /// Spec: ProdReserve. Kernel: xskq_prod_nb_free() then the cached_prod
    /// advance of xskq_prod_write_addr_batch(), with the entry stores left
    /// to [`KernelProd::write`]. Returns how many were reserved, <= n.
    #[inline]
    pub fn reserve_n(&mut self, n: u32) -> u32 {
        let k = self.nb_free(n);
        self.q.cached_prod = add(self.q.cached_prod, k);
        self.check_reserved();
        k
    }

    /// Spec: ProdWrite. Kernel: the entry store of xskq_prod_reserve_addr()
    /// or __xskq_prod_reserve_desc(), for a position already reserved.
    /// Ordered after the load of A by [`KernelProd::nb_free`].
    #[inline]
    pub fn write(&self, pos: u32, entry: R::Entry) {
        let size = self.q.ring.size();
        check!(
            sub(self.q.cached_prod, pos).wrapping_sub(1) < size,
            "kernel producer: store to {}, not among the reserved before {}",
            pos,
            self.q.cached_prod,
        );
        debug_assert!(within(
            pos,
            self.q.ring.producer().load(Relaxed),
            self.q.cached_prod
        ));
        // Safety: pos is reserved and not submitted, so the consumer is done with its slot.
        unsafe { self.q.ring.write(pos, entry) }
    }

    /// Spec: ProdReserve + ProdWrite. Kernel: xskq_prod_reserve_addr() and
    /// xskq_prod_reserve_desc().
    #[inline]
    pub fn reserve_addr(&mut self, entry: R::Entry) -> Result<(), NoSpace> {
        if self.is_full() {
            return Err(NoSpace);
        }
        // A, matches D.
        let pos = self.q.cached_prod;
        self.q.cached_prod = add(self.q.cached_prod, 1);
        self.write(pos, entry);
        Ok(())
    }

    /// Spec: ProdWrite, for `entries.len()` reserved positions from `pos`
    /// at once: the stores of xskq_prod_write_addr_batch().
    #[inline]
    pub fn write_batch(&self, pos: u32, entries: &[R::Entry]) {
        let (ahead, n) = (sub(self.q.cached_prod, pos), entries.len());
        check!(
            n as u64 <= ahead as u64 && ahead <= self.q.ring.size(),
            "kernel producer: store of {} from {}, not among the reserved before {}",
            n,
            pos,
            self.q.cached_prod,
        );
        // Safety: every position is reserved and not submitted, so the
        // consumer is done with its slot.
        unsafe { self.q.ring.write_n(pos, entries) }
    }

    /// Spec: ProdWrite, for `n` reserved positions from `pos`: `f(i)` is
    /// stored at `pos + i` in place, as the loop of
    /// xskq_prod_write_addr_batch() stores `descs[i].addr`.
    #[inline]
    pub fn write_with(&self, pos: u32, n: u32, f: impl FnMut(u32) -> R::Entry) {
        let ahead = sub(self.q.cached_prod, pos);
        check!(
            n <= ahead && ahead <= self.q.ring.size(),
            "kernel producer: store of {} from {}, not among the reserved before {}",
            n,
            pos,
            self.q.cached_prod,
        );
        // Safety: every position is reserved and not submitted, so the
        // consumer is done with its slot.
        unsafe { self.q.ring.write_with(pos, n, f) }
    }

    /// Kernel: xskq_prod_write_addr_batch(). The caller sized the batch with
    /// [`KernelProd::nb_free`], as xsk_tx_peek_release_desc_batch() does.
    pub fn write_addr_batch(&mut self, entries: &[R::Entry]) {
        // A, matches D.
        let first = self.q.cached_prod;
        self.q.cached_prod = add(first, entries.len() as u32);
        self.check_reserved();
        self.write_batch(first, entries);
    }

    /// Spec: ProdSubmit of every reserved entry. Kernel: xskq_prod_submit().
    /// Store of `->producer` is barrier B (Release, pairs with C).
    #[inline]
    pub fn submit(&self) {
        self.publish(self.q.cached_prod);
    }

    /// Spec: ProdSubmit. Kernel: xskq_prod_submit_n(): `->producer + n`.
    /// Barrier B as in [`KernelProd::submit`].
    #[inline]
    pub fn submit_n(&self, n: u32) {
        // Relaxed: our own counter; only we store it.
        let prod = self.q.ring.producer().load(Relaxed);
        check!(
            n <= sub(self.q.cached_prod, prod),
            "kernel producer: submit {} with {} reserved",
            n,
            sub(self.q.cached_prod, prod),
        );
        self.publish(add(prod, n));
    }

    /// Kernel: __xskq_prod_submit().
    #[inline]
    fn publish(&self, prod: u32) {
        // mutant-barrier-b: the store of ->producer loses its release (B).
        let b = if ringlab_mutant::on("mutant-barrier-b") {
            Relaxed
        } else {
            Release
        };
        self.q.ring.producer().store(prod, b);
    }

    /// Spec: ProdCancel. Kernel: xskq_prod_cancel_n(): give back `n`
    /// reserved, unsubmitted entries.
    pub fn cancel_n(&mut self, n: u32) {
        debug_assert!(
            n <= sub(self.q.cached_prod, self.q.ring.producer().load(Relaxed)),
            "kernel producer: cancel {n} beyond the unsubmitted"
        );
        check!(
            n <= self.q.ring.size(),
            "kernel producer: cancel {} beyond the ring",
            n,
        );
        self.q.cached_prod = sub(self.q.cached_prod, n);
    }

    /// Design b's completion (upstream 30f241fcf52a): store `entries` at
    /// the published `->producer` and the positions after it, all of them
    /// reserved. The caller holds the lock that serialises producers
    /// (pool->cq_lock), so `->producer` is ours to read.
    pub fn write_at_producer(&self, entries: &[R::Entry]) {
        // Relaxed: our own counter; only we store it.
        let prod = self.q.ring.producer().load(Relaxed);
        for (i, e) in entries.iter().enumerate() {
            self.write(add(prod, i as u32), *e);
        }
    }

    /// The plain store of `cached_prod` a reservation ends with, for a
    /// caller that read the old value in an earlier critical section (the
    /// racy reservation of mutant-xsk-shared-cq-race).
    pub fn set_cached_prod(&mut self, pos: u32) {
        self.q.cached_prod = pos;
        self.check_reserved();
    }

    #[inline]
    fn check_reserved(&self) {
        let (used, size) = (
            sub(self.q.cached_prod, self.q.cached_cons),
            self.q.ring.size(),
        );
        check!(
            used <= size,
            "kernel producer: reserved up to {} with ->consumer at {}",
            self.q.cached_prod,
            self.q.cached_cons,
        );
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::Ring;

    fn prod(size: u32, start: u32) -> KernelProd<Ring<u64>> {
        unsafe { KernelProd::new(Ring::new(size, start, 0).unwrap()) }
    }

    #[test]
    fn reserves_at_most_the_ring_and_refreshes_only_when_short() {
        let mut p = prod(4, u32::MAX - 1);
        assert_eq!(p.reserve_n(3), 3);
        assert_eq!(p.reserve_n(3), 1);
        assert_eq!(p.reserve(), Err(NoSpace));
        // The consumer hands back two; the cache does not see them yet...
        p.ring().consumer().store(0, Relaxed);
        assert_eq!(p.cached_cons(), u32::MAX - 1);
        // ...until it is short.
        assert_eq!(p.nb_free(2), 2);
        assert_eq!(p.cached_cons(), 0);
        assert_eq!(p.cached_prod(), 2);
    }

    #[test]
    fn write_batch_submit_and_cancel() {
        let mut p = prod(4, u32::MAX);
        p.write_addr_batch(&[10, 11]);
        assert_eq!(p.cached_prod(), 1);
        p.submit_n(1);
        assert_eq!(p.ring().producer().load(Relaxed), 0);
        assert_eq!(p.reserve_addr(12), Ok(()));
        p.cancel_n(2);
        assert_eq!(p.cached_prod(), 0);
        p.submit();
        assert_eq!(p.ring().producer().load(Relaxed), 0);
        assert_eq!(unsafe { p.ring().read(u32::MAX) }, 10);
    }

    #[test]
    fn write_batch_fills_a_reservation_across_the_wrap() {
        let mut p = prod(4, u32::MAX - 1);
        assert_eq!(p.reserve_n(4), 4);
        p.write_batch(u32::MAX - 1, &[1, 2, 3, 4]);
        p.submit();
        let mut out = [0; 4];
        unsafe { p.ring().read_n(u32::MAX - 1, &mut out) };
        assert_eq!(out, [1, 2, 3, 4]);
    }

    #[test]
    #[should_panic(expected = "not among the reserved")]
    fn write_batch_beyond_the_reservation_is_caught() {
        let mut p = prod(4, 0);
        p.reserve_n(2);
        p.write_batch(1, &[1, 2]);
    }

    #[test]
    fn write_with_stores_in_place_and_checks_the_reservation() {
        let mut p = prod(2, u32::MAX);
        assert_eq!(p.reserve_n(2), 2);
        p.write_with(u32::MAX, 2, |i| 5 + i as u64);
        assert_eq!(unsafe { (p.ring().read(u32::MAX), p.ring().read(0)) }, (5, 6));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.write_with(0, 2, |_| 0)));
        assert!(caught.is_err());
    }

    #[test]
    #[should_panic(expected = "submit 2 with 1 reserved")]
    fn submit_beyond_reserved_is_caught() {
        let mut p = prod(4, 0);
        p.reserve().unwrap();
        p.submit_n(2);
    }

    #[test]
    #[should_panic(expected = "not among the reserved")]
    fn store_outside_reservation_is_caught() {
        let p = prod(4, 0);
        p.write(0, 1);
    }
}
