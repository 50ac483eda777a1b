//! The kernel as consumer (fill and tx rings): the consumer half of
//! `net/xdp/xsk_queue.h` (linux 6.12).

use crate::{Queue, RingMem};
use crate::idx::{add, sub, within};
use crate::sync::Ordering::{Acquire, Relaxed, Release};

/// `struct xsk_tx_batch` for single-buffer descriptors: `tx_descs` valid
/// entries, then `reclaim_descs` (0 or 1) invalid one that ended the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxBatch {
    pub tx_descs: u32,
    pub reclaim_descs: u32,
}

/// `struct xsk_queue` as a consumer: `cached_cons` is the next position to
/// read and is published to `->consumer` only by [`KernelCons::publish`].
#[derive(Debug)]
pub struct KernelCons<R: RingMem> {
    pub(super) q: Queue<R>,
}

impl<R: RingMem> KernelCons<R> {
    /// Take the consumer side of `ring`, caching both counters.
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

    /// Spec: ConsPublish. Kernel: __xskq_cons_release(). Store of
    /// `->consumer` is barrier D (Release, pairs with A): every entry load
    /// before it is done before the producer may reuse the slot.
    #[inline]
    pub fn publish(&self) {
        // mutant-cons-no-publish: ->consumer is never stored.
        if ringlab_mutant::on("mutant-cons-no-publish") {
            return;
        }
        debug_assert!(
            sub(self.q.cached_cons, self.q.ring.consumer().load(Relaxed)) <= self.q.ring.size()
        );
        // mutant-barrier-d: the store of ->consumer loses its release (D).
        let d = if ringlab_mutant::on("mutant-barrier-d") {
            Relaxed
        } else {
            Release
        };
        self.q.ring.consumer().store(self.q.cached_cons, d);
    }

    /// Kernel: __xskq_cons_peek(). Load of `->producer` is barrier C
    /// (Acquire, pairs with B): no entry load is done before it.
    #[inline]
    fn refresh(&mut self) {
        // mutant-xsk-rmb: the refresh loses its acquire (C), the barrier added by
        // "xsk: add missing memory barrier in xskq_has_addrs()" (2019).
        let c = if ringlab_mutant::on("mutant-xsk-rmb") {
            Relaxed
        } else {
            Acquire
        };
        self.q.cached_prod = self.q.ring.producer().load(c);
        let avail = sub(self.q.cached_prod, self.q.cached_cons);
        check!(
            avail <= self.q.ring.size(),
            "kernel consumer: ->producer {} is {} past cached_cons {}",
            self.q.cached_prod,
            avail,
            self.q.cached_cons,
        );
    }

    /// Kernel: xskq_cons_get_entries(): publish (D), then refresh (C).
    #[inline]
    pub fn get_entries(&mut self) {
        self.publish();
        self.refresh();
    }

    /// Spec: ConsPeekBatch. Kernel: xskq_cons_nb_entries(): re-reads
    /// `->producer` (C) only when fewer than `max` entries are cached.
    #[inline]
    pub fn nb_entries(&mut self, max: u32) -> u32 {
        let entries = sub(self.q.cached_prod, self.q.cached_cons);
        if entries >= max {
            return max;
        }
        self.refresh();
        sub(self.q.cached_prod, self.q.cached_cons).min(max)
    }

    /// Spec: ConsPeek. Kernel: the first half of xskq_cons_peek_addr_unchecked()
    /// and xskq_cons_peek_desc(): with an empty cache, publish (D) and
    /// refresh (C). True if the entry at `cached_cons` may be read.
    #[inline]
    pub fn peek(&mut self) -> bool {
        if self.q.cached_prod == self.q.cached_cons {
            self.get_entries();
        }
        self.q.cached_cons != self.q.cached_prod
    }

    /// Spec: ConsRead. Kernel: the entry load of xskq_cons_read_desc(),
    /// __xskq_cons_read_addr_unchecked() and xskq_cons_read_desc_batch().
    #[inline]
    pub fn read(&self, pos: u32) -> R::Entry {
        check!(
            within(pos, self.q.cached_cons, self.q.cached_prod),
            "kernel consumer: load of {} outside the peeked [{}, {})",
            pos,
            self.q.cached_cons,
            self.q.cached_prod,
        );
        // Safety: pos is published (C saw it) and not released.
        unsafe { self.q.ring.read(pos) }
    }

    /// Spec: ConsRead, for `out.len()` peeked positions from `pos` at once.
    /// Kernel: the loads of xskq_cons_read_desc_batch(), which copies each
    /// desc to pool->tx_descs before looking at it.
    #[inline]
    pub fn read_batch(&self, pos: u32, out: &mut [R::Entry]) {
        let (from, avail) = (
            sub(pos, self.q.cached_cons),
            sub(self.q.cached_prod, self.q.cached_cons),
        );
        check!(
            from <= avail && out.len() as u64 <= (avail - from) as u64,
            "kernel consumer: load of {} from {} outside the peeked [{}, {})",
            out.len(),
            pos,
            self.q.cached_cons,
            self.q.cached_prod,
        );
        // Safety: every position is published (C saw it) and not released.
        unsafe { self.q.ring.read_n(pos, out) }
    }

    /// Spec: ConsPeek + ConsRead. Kernel: xskq_cons_peek_addr_unchecked() /
    /// xskq_cons_peek_desc() without the validation.
    #[inline]
    pub fn peek_entry(&mut self) -> Option<R::Entry> {
        self.peek().then(|| self.read(self.q.cached_cons))
    }

    /// Spec: ConsRelease of one entry. Kernel: xskq_cons_release().
    /// Local only; [`KernelCons::publish`] makes it visible.
    #[inline]
    pub fn release(&mut self) {
        self.release_n(1);
    }

    /// Spec: ConsRelease. Kernel: xskq_cons_release_n().
    #[inline]
    pub fn release_n(&mut self, n: u32) {
        let peeked = sub(self.q.cached_prod, self.q.cached_cons);
        check!(
            n <= peeked,
            "kernel consumer: release {} with {} peeked",
            n,
            peeked,
        );
        self.q.cached_cons = add(self.q.cached_cons, n);
    }

    /// Spec: ConsRelease after a batch of `examined` entries of which `valid`
    /// were valid. Kernel: the release ending xskq_cons_read_desc_batch():
    /// "Release valid plus any invalid entries".
    pub fn release_examined(&mut self, examined: u32, valid: u32) {
        check!(
            valid <= examined,
            "kernel consumer: {} valid of {} examined",
            valid,
            examined,
        );
        // mutant-batch-release-count: only the valid are released ("xsk: Fix
        // handling of invalid descriptors in XSK TX batching API", 2022).
        let n = if ringlab_mutant::on("mutant-batch-release-count") {
            valid
        } else {
            examined
        };
        self.release_n(n);
    }

    /// Kernel: xskq_cons_cancel_n(): un-read `n` released, unpublished entries.
    pub fn cancel_n(&mut self, n: u32) {
        debug_assert!(
            n <= sub(self.q.cached_cons, self.q.ring.consumer().load(Relaxed)),
            "kernel consumer: cancel {n} beyond the unpublished"
        );
        check!(
            n <= self.q.ring.size(),
            "kernel consumer: cancel {} beyond the ring",
            n,
        );
        self.q.cached_cons = sub(self.q.cached_cons, n);
    }

    /// Kernel: xskq_cons_cancel_n() as it is, `cached_cons -= n`, with no
    /// check that the entries are unpublished: the copy path's
    /// NETDEV_TX_BUSY rollback of a whole packet may go back past
    /// `->consumer`, and with a packet longer than the ring (6.12.117
    /// publishes past the fragments of the packet being built) by more
    /// than the ring's size. The caller compares the two.
    pub fn cancel_n_unchecked(&mut self, n: u32) {
        self.q.cached_cons = sub(self.q.cached_cons, n);
    }

    /// Kernel: xskq_cons_read_desc_batch() for single-buffer descriptors:
    /// load up to `max` cached entries into `out`, stop after the first
    /// invalid one (the drain path), and release all examined. Size the batch
    /// with [`KernelCons::nb_entries`] first, as xsk_tx_peek_release_desc_batch()
    /// does. Entries are appended to `out`, the invalid one included.
    pub fn read_desc_batch(
        &mut self,
        max: u32,
        out: &mut Vec<R::Entry>,
        mut validate: impl FnMut(&R::Entry) -> bool,
    ) -> TxBatch {
        let mut batch = TxBatch::default();
        let mut pos = self.q.cached_cons;
        let mut examined = 0;
        while pos != self.q.cached_prod && examined < max {
            let e = self.read(pos);
            out.push(e);
            pos = add(pos, 1);
            examined += 1;
            if !validate(&e) {
                batch.reclaim_descs = 1;
                break;
            }
            batch.tx_descs += 1;
        }
        self.release_examined(examined, batch.tx_descs);
        batch
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::{Ring, XdpDesc};

    fn cons(size: u32, start: u32) -> KernelCons<Ring<XdpDesc>> {
        unsafe { KernelCons::new(Ring::new(size, start, XdpDesc::default()).unwrap()) }
    }

    fn put(c: &KernelCons<Ring<XdpDesc>>, pos: u32, len: u32) {
        unsafe {
            c.ring().write(
                pos,
                XdpDesc {
                    addr: pos as u64,
                    len,
                    options: 0,
                },
            )
        };
        c.ring().producer().store(add(pos, 1), Release);
    }

    #[test]
    fn peek_publishes_then_refreshes_only_when_empty() {
        let mut c = cons(4, u32::MAX);
        assert!(!c.peek());
        put(&c, u32::MAX, 1);
        assert!(c.peek());
        assert_eq!(c.peek_entry().unwrap().addr, u32::MAX as u64);
        c.release();
        put(&c, 0, 1);
        // cache empty: the peek publishes the release, then sees position 0
        assert_eq!(c.ring().consumer().load(Relaxed), u32::MAX);
        assert!(c.peek());
        assert_eq!(c.ring().consumer().load(Relaxed), 0);
        assert_eq!(c.read(0).addr, 0);
    }

    #[test]
    fn nb_entries_refreshes_only_when_short() {
        let mut c = cons(4, 0);
        put(&c, 0, 1);
        put(&c, 1, 1);
        assert_eq!(c.nb_entries(1), 1);
        assert_eq!(c.nb_entries(1), 1);
        put(&c, 2, 1);
        assert_eq!(c.cached_prod(), 2);
        assert_eq!(c.nb_entries(2), 2);
        assert_eq!(c.cached_prod(), 2);
        assert_eq!(c.nb_entries(4), 3);
    }

    #[test]
    fn batch_stops_after_an_invalid_desc_and_releases_it_too() {
        let mut c = cons(4, u32::MAX - 1);
        for (i, len) in [1, 0, 1].into_iter().enumerate() {
            put(&c, add(u32::MAX - 1, i as u32), len);
        }
        assert_eq!(c.nb_entries(4), 3);
        let mut out = Vec::new();
        let b = c.read_desc_batch(3, &mut out, XdpDesc::is_valid);
        assert_eq!(
            b,
            TxBatch {
                tx_descs: 1,
                reclaim_descs: 1
            }
        );
        assert_eq!(out.len(), 2);
        assert_eq!(c.cached_cons(), 0);
        let b = c.read_desc_batch(3, &mut out, XdpDesc::is_valid);
        assert_eq!(
            b,
            TxBatch {
                tx_descs: 1,
                reclaim_descs: 0
            }
        );
        assert_eq!(c.cached_cons(), 1);
    }

    #[test]
    fn mutant_leaves_the_invalid_desc_unreleased() {
        if !ringlab_mutant::on("mutant-batch-release-count") {
            return;
        }
        let mut c = cons(4, 0);
        put(&c, 0, 0);
        c.nb_entries(1);
        let b = c.read_desc_batch(1, &mut Vec::new(), XdpDesc::is_valid);
        assert_eq!(b.reclaim_descs, 1);
        assert_eq!(c.cached_cons(), 0);
    }

    #[test]
    fn read_batch_loads_what_nb_entries_saw() {
        let mut c = cons(4, u32::MAX - 1);
        for i in 0..3 {
            put(&c, add(u32::MAX - 1, i), 1);
        }
        assert_eq!(c.nb_entries(4), 3);
        let mut out = [XdpDesc::default(); 3];
        c.read_batch(c.cached_cons(), &mut out);
        let addrs: Vec<u64> = out.iter().map(|d| d.addr).collect();
        assert_eq!(addrs, [u32::MAX as u64 - 1, u32::MAX as u64, 0]);
        c.release_n(3);
        c.read_batch(c.cached_cons(), &mut []);
    }

    #[test]
    #[should_panic(expected = "outside the peeked")]
    fn read_batch_beyond_the_peek_is_caught() {
        let mut c = cons(4, 0);
        put(&c, 0, 1);
        c.nb_entries(4);
        c.read_batch(0, &mut [XdpDesc::default(); 2]);
    }

    #[test]
    #[should_panic(expected = "release 1 with 0 peeked")]
    fn release_beyond_peek_is_caught() {
        let mut c = cons(2, 0);
        c.release();
    }

    #[test]
    #[should_panic(expected = "outside the peeked")]
    fn load_outside_peek_is_caught() {
        let c = cons(2, 0);
        c.read(0);
    }
}
