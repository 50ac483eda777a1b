//! A ring in ordinary memory, for the simulator and the loom tests.

use std::fmt;

use crate::RingMem;
use crate::sync::{AtomicU32, UnsafeCell};

/// A ring size that is not a power of two (zero included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeError {
    pub size: u32,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ring size {} is not a power of two", self.size)
    }
}

impl std::error::Error for SizeError {}

/// Keeps the two counters on separate cache lines, as `struct xdp_ring`
/// does, and on separate pairs of lines: x86's adjacent-line prefetcher
/// fetches lines two by two, so counters 64 bytes apart still travel
/// together between the producer's and the consumer's CPU (crossbeam's
/// CachePadded is 128 bytes for the same reason).
#[derive(Debug)]
#[repr(align(128))]
struct Line<T>(T);

/// `struct xdp_ring` with its entries, owned.
#[derive(Debug)]
pub struct Ring<T> {
    producer: Line<AtomicU32>,
    consumer: Line<AtomicU32>,
    flags: AtomicU32,
    size: u32,
    mask: u32,
    entries: Box<[UnsafeCell<T>]>,
}

// Safety: the counters are atomics; a slot is accessed only through the
// unsafe RingMem::read/write, whose callers own it by the ring protocol.
unsafe impl<T: Send> Sync for Ring<T> {}

impl<T: Copy> Ring<T> {
    /// A ring of `size` entries, each `fill`, with both counters at `start`
    /// (so tests can start near u32::MAX and wrap).
    pub fn new(size: u32, start: u32, fill: T) -> Result<Self, SizeError> {
        if !size.is_power_of_two() {
            return Err(SizeError { size });
        }
        Ok(Self {
            producer: Line(AtomicU32::new(start)),
            consumer: Line(AtomicU32::new(start)),
            flags: AtomicU32::new(0),
            size,
            mask: size - 1,
            entries: (0..size).map(|_| UnsafeCell::new(fill)).collect(),
        })
    }
}

// Safety: size is a power of two fixed at construction and `entries` has
// exactly `size` slots, so `idx & mask` is always in bounds.
unsafe impl<T: Copy> RingMem for Ring<T> {
    type Entry = T;

    #[inline]
    fn producer(&self) -> &AtomicU32 {
        &self.producer.0
    }
    #[inline]
    fn consumer(&self) -> &AtomicU32 {
        &self.consumer.0
    }
    fn flags(&self) -> &AtomicU32 {
        &self.flags
    }
    #[inline]
    fn size(&self) -> u32 {
        self.size
    }
    #[inline]
    fn mask(&self) -> u32 {
        self.mask
    }

    // Plain loads and stores: both sides are threads of this process, and
    // the counters' acquire and release order every slot access (a ring
    // the kernel maps in, kernel/src/mmap_ring.rs, is accessed volatile).

    #[inline]
    unsafe fn read(&self, idx: u32) -> T {
        self.slot(idx).with(|p| p.read())
    }

    #[inline]
    unsafe fn write(&self, idx: u32, entry: T) {
        self.slot(idx).with_mut(|p| p.write(entry))
    }

    #[inline]
    unsafe fn read_n(&self, first: u32, out: &mut [T]) {
        let (a, b) = self.split(first, out.len());
        let (out_a, out_b) = out.split_at_mut(a.len());
        copy_out(a, out_a);
        copy_out(b, out_b);
    }

    #[inline]
    unsafe fn write_n(&self, first: u32, entries: &[T]) {
        let (a, b) = self.split(first, entries.len());
        let (in_a, in_b) = entries.split_at(a.len());
        copy_in(in_a, a);
        copy_in(in_b, b);
    }

    #[inline]
    unsafe fn read_with(&self, first: u32, n: u32, mut f: impl FnMut(T)) {
        let (a, b) = self.split(first, n as usize);
        for cells in [a, b] {
            for c in cells {
                f(c.with(|p| p.read()));
            }
        }
    }

    #[inline]
    unsafe fn write_with(&self, first: u32, n: u32, mut f: impl FnMut(u32) -> T) {
        let (a, b) = self.split(first, n as usize);
        let mut i = 0;
        for cells in [a, b] {
            for c in cells {
                c.with_mut(|p| p.write(f(i)));
                i += 1;
            }
        }
    }
}

/// Loads a run of slots into `out` (as long as `cells`): one copy, or under
/// loom one tracked load per slot.
#[inline]
fn copy_out<T: Copy>(cells: &[UnsafeCell<T>], out: &mut [T]) {
    assert!(cells.len() == out.len());
    #[cfg(not(loom))]
    // Safety: sync::UnsafeCell<T> is transparent over std's, which is over
    // T, so the cells are `cells.len()` Ts; the caller owns them by the
    // ring protocol, and `out` is as long and does not overlap them.
    unsafe {
        std::ptr::copy_nonoverlapping(cells.as_ptr() as *const T, out.as_mut_ptr(), cells.len())
    }
    #[cfg(loom)]
    for (c, e) in cells.iter().zip(out) {
        *e = c.with(|p| unsafe { p.read() });
    }
}

/// Stores `entries` into a run of slots as long: one copy, or under loom
/// one tracked store per slot.
#[inline]
fn copy_in<T: Copy>(entries: &[T], cells: &[UnsafeCell<T>]) {
    assert!(cells.len() == entries.len());
    #[cfg(not(loom))]
    // Safety: as in copy_out; a shared slice of cells may be written
    // through, which is what UnsafeCell is for.
    unsafe {
        std::ptr::copy_nonoverlapping(entries.as_ptr(), cells.as_ptr() as *mut T, cells.len())
    }
    #[cfg(loom)]
    for (c, e) in cells.iter().zip(entries) {
        c.with_mut(|p| unsafe { p.write(*e) });
    }
}

impl<T> Ring<T> {
    /// The slot of position `idx`.
    #[inline]
    fn slot(&self, idx: u32) -> &UnsafeCell<T> {
        // Safety: `entries` has `size` = `mask + 1` slots, so `idx & mask`
        // is in bounds.
        unsafe { self.entries.get_unchecked((idx & self.mask) as usize) }
    }

    /// The slots of `n` positions from `first`, as the two runs they are
    /// in memory: up to the end of the array, then from its start.
    fn split(&self, first: u32, n: usize) -> (&[UnsafeCell<T>], &[UnsafeCell<T>]) {
        check!(n <= self.size as usize, "ring: {} positions on a ring of {}", n, self.size);
        let at = (first & self.mask) as usize;
        let head = n.min(self.entries.len() - at);
        (&self.entries[at..at + head], &self.entries[..n - head])
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::Ordering::Relaxed;

    #[test]
    fn rejects_sizes_that_are_not_powers_of_two() {
        for size in [0, 3, 6, 100, u32::MAX] {
            let err = Ring::new(size, 0, 0u64).unwrap_err();
            assert_eq!(err, SizeError { size });
            assert_eq!(
                err.to_string(),
                format!("ring size {size} is not a power of two")
            );
        }
        for size in [1, 2, 4, 1024] {
            assert!(Ring::new(size, 0, 0u64).is_ok());
        }
    }

    #[test]
    fn batches_wrap_around_the_end_of_the_slots() {
        let r = Ring::new(4, 0, 0u64).unwrap();
        unsafe {
            r.write_n(u32::MAX - 1, &[1, 2, 3]);
            assert_eq!((r.read(2), r.read(3), r.read(0)), (1, 2, 3));
            let mut out = [0; 4];
            r.read_n(2, &mut out);
            assert_eq!(out, [1, 2, 3, 0]);
            r.write_n(5, &[]);
            let mut none: [u64; 0] = [];
            r.read_n(7, &mut none);
            r.write_with(3, 3, |i| 10 + i as u64);
            let mut seen = Vec::new();
            r.read_with(3, 3, |e| seen.push(e));
            assert_eq!(seen, [10, 11, 12]);
            assert_eq!(r.read(0), 11);
        }
    }

    #[test]
    fn counters_start_where_asked_and_slots_wrap_by_mask() {
        let r = Ring::new(4, u32::MAX - 1, 0u64).unwrap();
        assert_eq!(r.producer().load(Relaxed), u32::MAX - 1);
        assert_eq!(r.consumer().load(Relaxed), u32::MAX - 1);
        unsafe {
            r.write(u32::MAX, 9);
            assert_eq!(r.read(3), 9);
            r.write(4, 5);
            assert_eq!(r.read(0), 5);
        }
    }
}
