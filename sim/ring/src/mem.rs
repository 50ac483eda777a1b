//! What a ring handle needs from the memory it runs over: the two shared
//! counters and the slots. An owned in-memory ring implements it for the
//! simulator; a harness can implement it over a kernel-mmapped ring.

use crate::sync::{Arc, AtomicU32};

/// The shared part of one ring (`struct xdp_ring` and its `desc[]`).
///
/// # Safety
///
/// Implementors guarantee that `size()` is a power of two that never
/// changes, that every `idx & (size() - 1)` names a slot, and that
/// `producer()`/`consumer()` always return the same counters.
pub unsafe trait RingMem {
    type Entry: Copy;

    /// `ring->producer`.
    fn producer(&self) -> &AtomicU32;
    /// `ring->consumer`.
    fn consumer(&self) -> &AtomicU32;
    /// `ring->flags` (XDP_RING_NEED_WAKEUP); the protocol never reads it.
    fn flags(&self) -> &AtomicU32;
    /// `q->nentries`.
    fn size(&self) -> u32;

    /// Load the entry of position `idx`.
    ///
    /// # Safety
    ///
    /// The caller's side owns the slot: the consumer has peeked `idx` and
    /// not released it, or the producer has reserved it and not submitted.
    unsafe fn read(&self, idx: u32) -> Self::Entry;

    /// Store the entry of position `idx`.
    ///
    /// # Safety
    ///
    /// As for [`RingMem::read`], and only the producer stores.
    unsafe fn write(&self, idx: u32, entry: Self::Entry);

    /// `q->ring_mask`.
    fn mask(&self) -> u32 {
        self.size() - 1
    }

    /// Load the entries of positions `first`, `first + 1`, ... into `out`.
    ///
    /// # Safety
    ///
    /// As for [`RingMem::read`], for every position loaded.
    unsafe fn read_n(&self, first: u32, out: &mut [Self::Entry]) {
        for (i, e) in out.iter_mut().enumerate() {
            *e = self.read(first.wrapping_add(i as u32));
        }
    }

    /// Store `entries` at positions `first`, `first + 1`, ...
    ///
    /// # Safety
    ///
    /// As for [`RingMem::write`], for every position stored.
    unsafe fn write_n(&self, first: u32, entries: &[Self::Entry]) {
        for (i, e) in entries.iter().enumerate() {
            self.write(first.wrapping_add(i as u32), *e);
        }
    }

    /// Hand the entries of positions `first` to `first + n - 1` to `f`, in
    /// order, where they are.
    ///
    /// # Safety
    ///
    /// As for [`RingMem::read`], for every position loaded.
    unsafe fn read_with(&self, first: u32, n: u32, mut f: impl FnMut(Self::Entry)) {
        for i in 0..n {
            f(self.read(first.wrapping_add(i)));
        }
    }

    /// Store `f(i)` at position `first + i`, for `i` in `0..n`, in place.
    ///
    /// # Safety
    ///
    /// As for [`RingMem::write`], for every position stored.
    unsafe fn write_with(&self, first: u32, n: u32, mut f: impl FnMut(u32) -> Self::Entry) {
        for i in 0..n {
            self.write(first.wrapping_add(i), f(i));
        }
    }
}

/// Implements [`RingMem`] for pointers to one, each method forwarded.
macro_rules! forward_ring_mem {
    ($($ptr:ty),+) => {$(
        // Safety: forwards to a RingMem.
        unsafe impl<M: RingMem + ?Sized> RingMem for $ptr {
            type Entry = M::Entry;
            #[inline]
            fn producer(&self) -> &AtomicU32 {
                (**self).producer()
            }
            #[inline]
            fn consumer(&self) -> &AtomicU32 {
                (**self).consumer()
            }
            #[inline]
            fn flags(&self) -> &AtomicU32 {
                (**self).flags()
            }
            #[inline]
            fn size(&self) -> u32 {
                (**self).size()
            }
            #[inline]
            unsafe fn read(&self, idx: u32) -> M::Entry {
                (**self).read(idx)
            }
            #[inline]
            unsafe fn write(&self, idx: u32, entry: M::Entry) {
                (**self).write(idx, entry)
            }
            #[inline]
            fn mask(&self) -> u32 {
                (**self).mask()
            }
            #[inline]
            unsafe fn read_n(&self, first: u32, out: &mut [M::Entry]) {
                (**self).read_n(first, out)
            }
            #[inline]
            unsafe fn write_n(&self, first: u32, entries: &[M::Entry]) {
                (**self).write_n(first, entries)
            }
            #[inline]
            unsafe fn read_with(&self, first: u32, n: u32, f: impl FnMut(M::Entry)) {
                (**self).read_with(first, n, f)
            }
            #[inline]
            unsafe fn write_with(&self, first: u32, n: u32, f: impl FnMut(u32) -> M::Entry) {
                (**self).write_with(first, n, f)
            }
        }
    )+};
}

forward_ring_mem!(&M, Arc<M>);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A ring with only the methods RingMem requires, as an implementor
    /// over memory it does not own writes it (kernel/src/mmap_ring.rs):
    /// the provided ones are the trait's own.
    struct Bare {
        counters: [AtomicU32; 3],
        slots: RefCell<Vec<u32>>,
    }

    unsafe impl RingMem for Bare {
        type Entry = u32;
        fn producer(&self) -> &AtomicU32 {
            &self.counters[0]
        }
        fn consumer(&self) -> &AtomicU32 {
            &self.counters[1]
        }
        fn flags(&self) -> &AtomicU32 {
            &self.counters[2]
        }
        fn size(&self) -> u32 {
            self.slots.borrow().len() as u32
        }
        unsafe fn read(&self, idx: u32) -> u32 {
            let i = (idx & self.mask()) as usize;
            self.slots.borrow()[i]
        }
        unsafe fn write(&self, idx: u32, entry: u32) {
            let i = (idx & self.mask()) as usize;
            self.slots.borrow_mut()[i] = entry;
        }
    }

    #[test]
    fn provided_methods_wrap_positions_onto_slots() {
        let r = Bare { counters: Default::default(), slots: RefCell::new(vec![0; 8]) };
        assert_eq!(r.mask(), 7);
        let first = u32::MAX - 1;
        unsafe {
            r.write_n(first, &[10, 11, 12]);
            r.write_with(first.wrapping_add(3), 2, |i| 20 + i);
            assert_eq!(*r.slots.borrow(), [12, 20, 21, 0, 0, 0, 10, 11]);
            let mut out = [0; 5];
            r.read_n(first, &mut out);
            assert_eq!(out, [10, 11, 12, 20, 21]);
            let mut seen = Vec::new();
            r.read_with(first, 5, |e| seen.push(e));
            assert_eq!(seen, out);
        }
    }
}
