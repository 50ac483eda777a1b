//! A dma-buf over ordinary memory, from /dev/udmabuf: the device DMAs into
//! a sealed memfd's pages, and we read them through a mapping of the memfd.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::error::Error;

/// udmabuf hands out a CLOEXEC dma-buf fd (include/uapi/linux/udmabuf.h).
const UDMABUF_FLAGS_CLOEXEC: u32 = 0x01;
/// _IOW('u', 0x42, struct udmabuf_create) (include/uapi/linux/udmabuf.h).
const UDMABUF_CREATE: libc::c_ulong = (1 << 30) | ((std::mem::size_of::<UdmabufCreate>() as libc::c_ulong) << 16) | ((b'u' as libc::c_ulong) << 8) | 0x42;
/// The device node (drivers/dma-buf/udmabuf.c, a misc device).
const DEV: &str = "/dev/udmabuf";

/// struct udmabuf_create (include/uapi/linux/udmabuf.h).
#[repr(C)]
struct UdmabufCreate {
    memfd: u32,
    flags: u32,
    offset: u64,
    size: u64,
}

const _: () = assert!(std::mem::size_of::<UdmabufCreate>() == 24);
const _: () = assert!(UDMABUF_CREATE == 0x4018_7542);

/// The dma-buf, the memfd under it, and a read-only view of that memory.
#[derive(Debug)]
pub struct Udmabuf {
    dmabuf: OwnedFd,
    _memfd: OwnedFd,
    map: *const u8,
    size: usize,
}

// Safety: a read-only mapping owned by the value.
unsafe impl Send for Udmabuf {}
unsafe impl Sync for Udmabuf {}

impl Udmabuf {
    /// A dma-buf of `pages` pages of memory.
    pub fn create(pages: usize) -> Result<Udmabuf, Error> {
        // Safety: no arguments.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let size = pages
            .checked_mul(page)
            .filter(|&s| s > 0)
            .ok_or_else(|| Error::sys(format!("udmabuf of {pages} pages"), std::io::ErrorKind::InvalidInput.into()))?;
        // Safety: a NUL-terminated name.
        let fd = unsafe { libc::memfd_create(c"ringlab-udmabuf".as_ptr(), libc::MFD_ALLOW_SEALING | libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(Error::last("memfd_create(MFD_ALLOW_SEALING)"));
        }
        // Safety: a fresh fd we own.
        let memfd = unsafe { OwnedFd::from_raw_fd(fd) };
        File::from(memfd.try_clone().map_err(|e| Error::sys("dup memfd", e))?)
            .set_len(size as u64)
            .map_err(|e| Error::sys(format!("ftruncate memfd to {size} bytes"), e))?;
        // udmabuf refuses memory that could shrink under the device.
        // Safety: fcntl on our fd.
        if unsafe { libc::fcntl(fd, libc::F_ADD_SEALS, libc::F_SEAL_SHRINK) } < 0 {
            return Err(Error::last("fcntl(F_ADD_SEALS, F_SEAL_SHRINK) on the memfd"));
        }
        let dev = File::options().read(true).write(true).open(DEV).map_err(|e| Error::sys(format!("open {DEV}"), e))?;
        let arg = UdmabufCreate { memfd: fd as u32, flags: UDMABUF_FLAGS_CLOEXEC, offset: 0, size: size as u64 };
        // Safety: UDMABUF_CREATE reads one struct udmabuf_create.
        let dmabuf = unsafe { libc::ioctl(dev.as_raw_fd(), UDMABUF_CREATE, &arg as *const UdmabufCreate) };
        if dmabuf < 0 {
            return Err(Error::last(format!("ioctl(UDMABUF_CREATE, {size} bytes) on {DEV}")));
        }
        // Safety: the ioctl returned a new fd.
        let dmabuf = unsafe { OwnedFd::from_raw_fd(dmabuf) };
        // Safety: a fresh shared read-only mapping of the memfd's size.
        let map = unsafe { libc::mmap(std::ptr::null_mut(), size, libc::PROT_READ, libc::MAP_SHARED, fd, 0) };
        if map == libc::MAP_FAILED {
            return Err(Error::last(format!("mmap of the {size}-byte memfd")));
        }
        Ok(Udmabuf { dmabuf, _memfd: memfd, map: map as *const u8, size })
    }

    /// The fd NETDEV_CMD_BIND_RX takes.
    pub fn dmabuf_fd(&self) -> RawFd {
        self.dmabuf.as_raw_fd()
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The `len` bytes at `offset`: a frag's payload, from its
    /// SCM_DEVMEM_DMABUF `frag_offset` and `frag_size`. They stay put while
    /// we hold the frag's token (until SO_DEVMEM_DONTNEED).
    pub fn bytes(&self, offset: usize, len: usize) -> Result<&[u8], Error> {
        check_range(offset, len, self.size)?;
        // Safety: [offset, offset + len) is inside the mapping, which lives as long as self.
        Ok(unsafe { std::slice::from_raw_parts(self.map.add(offset), len) })
    }
}

fn check_range(offset: usize, len: usize, size: usize) -> Result<(), Error> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(Error::OutOfRange { what: "udmabuf", offset, len, size }),
    }
}

impl Drop for Udmabuf {
    fn drop(&mut self) {
        // Safety: our own mapping; no slice of it outlives self.
        unsafe { libc::munmap(self.map as *mut libc::c_void, self.size) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_past_the_end_are_errors() {
        assert!(check_range(0, 4096, 4096).is_ok());
        assert!(check_range(4096, 0, 4096).is_ok());
        let e = check_range(4000, 97, 4096).unwrap_err();
        assert_eq!(e.to_string(), "udmabuf: offset 4000 + len 97 is past the end of the 4096-byte buffer");
        assert!(check_range(usize::MAX, 2, 4096).is_err());
    }

    /// On a host without udmabuf the error names the device and the config.
    #[test]
    fn create_fails_clearly_or_works() {
        match Udmabuf::create(2) {
            Ok(b) => {
                assert!(b.dmabuf_fd() >= 0);
                assert_eq!(b.bytes(0, 8).unwrap(), &[0; 8]);
                assert!(b.bytes(b.size(), 1).is_err());
            }
            Err(e) => {
                let s = e.to_string();
                assert!(s.contains(DEV) || s.contains("memfd"), "{s}");
                if s.contains("No such file") {
                    assert!(s.contains("CONFIG_UDMABUF"), "{s}");
                }
            }
        }
    }
}
