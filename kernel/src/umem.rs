//! The packet buffer area registered with XDP_UMEM_REG: anonymous,
//! page-aligned memory of `frames * frame_size` bytes.

use std::io;

use crate::sys::check;

#[derive(Debug)]
pub struct Umem {
    base: *mut u8,
    pub len: u64,
    pub frame_size: u32,
}

// Safety: plain memory; the harness touches frames it owns by the protocol.
unsafe impl Send for Umem {}

impl Umem {
    pub fn new(frames: u32, frame_size: u32) -> io::Result<Umem> {
        let len = frames as u64 * frame_size as u64;
        // Safety: a fresh private anonymous mapping.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            check(-1, "mmap umem")?;
        }
        Ok(Umem { base: p as *mut u8, len, frame_size })
    }

    pub fn addr(&self) -> u64 {
        self.base as u64
    }

    /// Copies `bytes` to umem offset `addr`, clipped to the area (invalid
    /// descriptors may point anywhere; their bytes do not matter).
    pub fn write(&self, addr: u64, bytes: &[u8]) {
        if addr >= self.len {
            return;
        }
        let n = bytes.len().min((self.len - addr) as usize);
        // Safety: [addr, addr + n) is inside the mapping.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.base.add(addr as usize), n) };
    }

    /// The `len` bytes at umem offset `addr` (clipped to the area).
    pub fn read(&self, addr: u64, len: u32) -> Vec<u8> {
        if addr >= self.len {
            return Vec::new();
        }
        let n = (len as u64).min(self.len - addr) as usize;
        let mut v = vec![0; n];
        // Safety: [addr, addr + n) is inside the mapping.
        unsafe { std::ptr::copy_nonoverlapping(self.base.add(addr as usize), v.as_mut_ptr(), n) };
        v
    }
}

impl Drop for Umem {
    fn drop(&mut self) {
        // Safety: our mapping; sockets using it are dropped first (field order).
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len as usize) };
    }
}
