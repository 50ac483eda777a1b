//! The application as producer (fill and tx rings): libxdp's
//! `struct xsk_ring_prod` and its inline functions in `xdp/xsk.h`.

use crate::{Queue, RingMem};
use crate::idx::{add, sub, within};
use crate::sync::Ordering::{Acquire, Relaxed, Release};

/// `struct xsk_ring_prod`: `cached_prod` is the next position to reserve;
/// `cached_cons` is the last seen `->consumer` plus `size`, so that
/// `cached_cons - cached_prod` is the free count.
#[derive(Debug)]
pub struct UserProd<R: RingMem> {
    pub(super) q: Queue<R>,
}

impl<R: RingMem> UserProd<R> {
    /// Take the producer side of `ring` (as xsk_socket__create() sets up
    /// the fill and tx rings).
    ///
    /// # Safety
    ///
    /// No other producer handle exists for this ring, and its consumer
    /// follows the ring protocol (it touches only slots it has peeked).
    pub unsafe fn new(ring: R) -> Self {
        let mut q = Queue::new(ring);
        // libxdp keeps cached_cons at ->consumer + size.
        q.cached_cons = add(q.cached_cons, q.ring.size());
        Self { q }
    }

    /// Spec: ProdReserve (the refresh). libxdp: xsk_prod_nb_free(). Returns
    /// all free entries, re-reading `->consumer` only when fewer than `nb`
    /// are cached. That load is barrier A (Acquire, pairs with D).
    #[inline]
    pub fn nb_free(&mut self, nb: u32) -> u32 {
        let free = sub(self.q.cached_cons, self.q.cached_prod);
        if free >= nb {
            return free;
        }
        // mutant-barrier-a: the load of ->consumer loses its ordering (A).
        let a = if ringlab_mutant::on("mutant-barrier-a") {
            Relaxed
        } else {
            Acquire
        };
        let size = self.q.ring.size();
        self.q.cached_cons = add(self.q.ring.consumer().load(a), size);
        let free = sub(self.q.cached_cons, self.q.cached_prod);
        check!(
            free <= size,
            "user producer: reserved up to {} past ->consumer {}",
            self.q.cached_prod,
            sub(self.q.cached_cons, size),
        );
        free
    }

    /// Spec: ProdReserve. libxdp: xsk_ring_prod__reserve(): all `nb` or
    /// none; returns the first reserved position.
    #[inline]
    pub fn reserve(&mut self, nb: u32) -> Option<u32> {
        let free = self.nb_free(nb);
        // mutant-reserve-partial: grants nb though only 0 < free < nb are free.
        let ok = if ringlab_mutant::on("mutant-reserve-partial") {
            free > 0 || nb == 0
        } else {
            free >= nb
        };
        if !ok {
            return None;
        }
        let idx = self.q.cached_prod;
        self.q.cached_prod = add(self.q.cached_prod, nb);
        // Reserved and unconsumed entries never exceed the ring.
        let left = sub(self.q.cached_cons, self.q.cached_prod);
        check!(
            left <= self.q.ring.size(),
            "user producer: reserved {} with {} free",
            nb,
            free,
        );
        Some(idx)
    }

    /// Spec: ProdWrite. libxdp: the store through xsk_ring_prod__fill_addr()
    /// or xsk_ring_prod__tx_desc(), for a reserved position. Ordered after
    /// the load of A by [`UserProd::nb_free`].
    #[inline]
    pub fn write(&self, idx: u32, entry: R::Entry) {
        check!(
            sub(self.q.cached_prod, idx).wrapping_sub(1) < self.q.ring.size(),
            "user producer: store to {}, not among the reserved before {}",
            idx,
            self.q.cached_prod,
        );
        debug_assert!(within(
            idx,
            self.q.ring.producer().load(Relaxed),
            self.q.cached_prod
        ));
        // Safety: idx is reserved and not submitted.
        unsafe { self.q.ring.write(idx, entry) }
    }

    /// Spec: ProdWrite, for `entries.len()` reserved positions from `idx`
    /// at once (libxdp writes them one by one; the stores are the same).
    #[inline]
    pub fn write_batch(&self, idx: u32, entries: &[R::Entry]) {
        let (ahead, n) = (sub(self.q.cached_prod, idx), entries.len());
        check!(
            n as u64 <= ahead as u64 && ahead <= self.q.ring.size(),
            "user producer: store of {} from {}, not among the reserved before {}",
            n,
            idx,
            self.q.cached_prod,
        );
        // Safety: every position is reserved and not submitted.
        unsafe { self.q.ring.write_n(idx, entries) }
    }

    /// Spec: ProdWrite, for `n` reserved positions from `idx`: `f(i)` is
    /// stored at `idx + i` in place, as an application does through
    /// xsk_ring_prod__tx_desc() or xsk_ring_prod__fill_addr().
    #[inline]
    pub fn write_with(&self, idx: u32, n: u32, f: impl FnMut(u32) -> R::Entry) {
        let ahead = sub(self.q.cached_prod, idx);
        check!(
            n <= ahead && ahead <= self.q.ring.size(),
            "user producer: store of {} from {}, not among the reserved before {}",
            n,
            idx,
            self.q.cached_prod,
        );
        // Safety: every position is reserved and not submitted.
        unsafe { self.q.ring.write_with(idx, n, f) }
    }

    /// Spec: ProdSubmit. libxdp: xsk_ring_prod__submit(): `->producer + nb`.
    /// The store is barrier B (Release, pairs with C).
    #[inline]
    pub fn submit(&self, nb: u32) {
        // Relaxed: our own counter; only we store it.
        let prod = self.q.ring.producer().load(Relaxed);
        let reserved = sub(self.q.cached_prod, prod);
        check!(
            nb <= reserved,
            "user producer: submit {} with {} reserved",
            nb,
            reserved,
        );
        // mutant-barrier-b: the store of ->producer loses its release (B).
        let b = if ringlab_mutant::on("mutant-barrier-b") {
            Relaxed
        } else {
            Release
        };
        self.q.ring.producer().store(add(prod, nb), b);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::Ring;

    fn prod(size: u32, start: u32) -> UserProd<Ring<u64>> {
        unsafe { UserProd::new(Ring::new(size, start, 0).unwrap()) }
    }

    #[test]
    fn reserve_is_all_or_nothing_and_offsets_cached_cons() {
        let mut p = prod(4, u32::MAX - 2);
        assert_eq!(p.cached_cons(), 1);
        assert_eq!(p.reserve(3), Some(u32::MAX - 2));
        assert_eq!(p.reserve(2), None);
        assert_eq!(p.reserve(1), Some(0));
        assert_eq!(p.nb_free(1), 0);
        for i in 0..4 {
            p.write(add(u32::MAX - 2, i), i as u64);
        }
        p.submit(4);
        assert_eq!(p.ring().producer().load(Relaxed), 1);
        p.ring().consumer().store(u32::MAX, Relaxed);
        assert_eq!(p.nb_free(2), 2);
        assert_eq!(p.cached_cons(), 3);
    }

    #[test]
    fn mutant_reserves_beyond_the_free() {
        if !ringlab_mutant::on("mutant-reserve-partial") {
            return;
        }
        let e = std::panic::catch_unwind(|| {
            let mut p = prod(2, 0);
            p.reserve(1);
            p.reserve(2);
        })
        .expect_err("the mutant reserves 2 with 1 free");
        let msg = e.downcast_ref::<String>().map(String::as_str).unwrap_or("");
        assert!(msg.contains("user producer: reserved 2 with 1 free"), "{msg}");
    }

    #[test]
    fn write_batch_stores_reserved_positions_only() {
        let mut p = prod(4, u32::MAX - 1);
        let idx = p.reserve(3).unwrap();
        p.write_batch(idx, &[7, 8, 9]);
        p.write_batch(add(idx, 2), &[10]);
        p.write_batch(add(idx, 3), &[]);
        p.submit(3);
        let r = p.ring();
        assert_eq!(unsafe { (r.read(u32::MAX - 1), r.read(u32::MAX), r.read(0)) }, (7, 8, 10));
    }

    #[test]
    fn write_with_stores_in_place() {
        let mut p = prod(4, u32::MAX);
        let idx = p.reserve(3).unwrap();
        p.write_with(idx, 3, |i| 20 + i as u64);
        let r = p.ring();
        assert_eq!(unsafe { (r.read(u32::MAX), r.read(0), r.read(1)) }, (20, 21, 22));
    }

    #[test]
    #[should_panic(expected = "not among the reserved")]
    fn write_with_beyond_the_reservation_is_caught() {
        let mut p = prod(4, 0);
        let idx = p.reserve(1).unwrap();
        p.write_with(idx, 2, |_| 0);
    }

    #[test]
    #[should_panic(expected = "not among the reserved")]
    fn write_batch_beyond_the_reservation_is_caught() {
        let mut p = prod(4, 0);
        let idx = p.reserve(2).unwrap();
        p.write_batch(idx, &[1, 2, 3]);
    }

    #[test]
    #[should_panic(expected = "submit 1 with 0 reserved")]
    fn submit_beyond_reserved_is_caught() {
        prod(2, 0).submit(1);
    }
}
