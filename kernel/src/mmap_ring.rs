//! One ring as the kernel maps it into our address space, as a
//! [`RingMem`]: the simulator's `UserProd`/`UserCons` (the loom-tested
//! code) then drive the kernel's rings directly.

use std::io;
use std::marker::PhantomData;

use ringlab_ring::RingMem;
use ringlab_ring::sync::AtomicU32;

use crate::sys::{check, xdp_ring_offset};

/// A mapping of `struct xdp_ring` + `desc[size]` at the offsets
/// XDP_MMAP_OFFSETS reported; unmapped on drop.
#[derive(Debug)]
pub struct MmapRing<T> {
    base: *mut u8,
    len: usize,
    off: xdp_ring_offset,
    size: u32,
    _t: PhantomData<T>,
}

// Safety: the counters are accessed as atomics, the slots only through
// RingMem::read/write whose callers own them by the ring protocol.
unsafe impl<T: Send> Send for MmapRing<T> {}
unsafe impl<T: Send> Sync for MmapRing<T> {}

impl<T: Copy> MmapRing<T> {
    /// mmap(2) of ring `pgoff` of socket `fd` with `size` entries.
    pub fn map(fd: libc::c_int, pgoff: libc::off_t, off: xdp_ring_offset, size: u32) -> io::Result<Self> {
        assert!(size.is_power_of_two(), "ring size {size} is not a power of two");
        let len = off.desc as usize + size as usize * std::mem::size_of::<T>();
        // Safety: a fresh shared mapping of the kernel's ring.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                pgoff,
            )
        };
        if p == libc::MAP_FAILED {
            check(-1, "mmap ring")?;
        }
        Ok(MmapRing { base: p as *mut u8, len, off, size, _t: PhantomData })
    }

    fn at(&self, off: u64) -> *mut u8 {
        // Safety: every offset the kernel reports is inside the mapping.
        unsafe { self.base.add(off as usize) }
    }
}

impl<T> Drop for MmapRing<T> {
    fn drop(&mut self) {
        // Safety: our own mapping, no handle outlives the ring.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

// Safety: size is a power of two fixed at map time; the kernel's counters
// are naturally aligned u32s, and desc[] has `size` entries of T.
unsafe impl<T: Copy> RingMem for MmapRing<T> {
    type Entry = T;

    fn producer(&self) -> &AtomicU32 {
        // Safety: an aligned u32 the kernel only accesses atomically.
        unsafe { &*(self.at(self.off.producer) as *const AtomicU32) }
    }
    fn consumer(&self) -> &AtomicU32 {
        unsafe { &*(self.at(self.off.consumer) as *const AtomicU32) }
    }
    fn flags(&self) -> &AtomicU32 {
        unsafe { &*(self.at(self.off.flags) as *const AtomicU32) }
    }
    fn size(&self) -> u32 {
        self.size
    }

    unsafe fn read(&self, idx: u32) -> T {
        let slot = (self.at(self.off.desc) as *const T).add((idx & self.mask()) as usize);
        // Volatile: the kernel writes these slots.
        slot.read_volatile()
    }

    unsafe fn write(&self, idx: u32, entry: T) {
        let slot = (self.at(self.off.desc) as *mut T).add((idx & self.mask()) as usize);
        slot.write_volatile(entry)
    }
}
