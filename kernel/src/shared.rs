//! A second socket sharing a first one's umem (XDP_SHARED_UMEM) on the
//! same device and queue: it gets the first socket's buffer pool
//! (xsk_bind: `xp_get_pool(umem_xs->pool)`), so the fill and completion
//! rings are the first socket's, and it may set neither of its own
//! (-EINVAL); it has a TX ring, an RX ring or both. The bind flags must
//! be XDP_SHARED_UMEM alone: copy mode and XDP_USE_SG come from the pool.

use std::io;

use ringlab_ring::{UserCons, UserProd, XdpDesc};

use crate::mmap_ring::MmapRing;
use crate::sys::*;
use crate::xsk::{bind_retrying, FdGuard, Xsk};

pub struct SharedXsk {
    pub fd: libc::c_int,
    pub tx: Option<UserProd<MmapRing<XdpDesc>>>,
    pub rx: Option<UserCons<MmapRing<XdpDesc>>>,
}

impl SharedXsk {
    /// A socket with rings of these sizes (0: none) on `first`'s umem.
    pub fn create(first: &Xsk, ifindex: u32, queue: u32, rx_size: u32, tx_size: u32) -> io::Result<SharedXsk> {
        // Safety: plain socket(2).
        let fd = unsafe { libc::socket(AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        check(fd as libc::c_long, "socket(AF_XDP)")?;
        let guard = FdGuard(fd);
        if rx_size > 0 {
            setsockopt(fd, SOL_XDP, XDP_RX_RING, &rx_size, "XDP_RX_RING")?;
        }
        if tx_size > 0 {
            setsockopt(fd, SOL_XDP, XDP_TX_RING, &tx_size, "XDP_TX_RING")?;
        }
        let off: xdp_mmap_offsets = getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, "XDP_MMAP_OFFSETS")?;
        let rx = match rx_size {
            0 => None,
            n => Some(MmapRing::map(fd, XDP_PGOFF_RX_RING, off.rx, n)?),
        };
        let tx = match tx_size {
            0 => None,
            n => Some(MmapRing::map(fd, XDP_PGOFF_TX_RING, off.tx, n)?),
        };
        let sa = sockaddr_xdp {
            sxdp_family: AF_XDP as u16,
            sxdp_flags: XDP_SHARED_UMEM,
            sxdp_ifindex: ifindex,
            sxdp_queue_id: queue,
            sxdp_shared_umem_fd: first.fd as u32,
        };
        bind_retrying(fd, &sa)?;
        std::mem::forget(guard);
        // Safety: this socket's rings have no other user-side handle.
        unsafe { Ok(SharedXsk { fd, tx: tx.map(|r| UserProd::new(r)), rx: rx.map(|r| UserCons::new(r)) }) }
    }

    /// The copy-mode kick, as Xsk::kick.
    pub fn kick(&self) -> Result<isize, i32> {
        kick_fd(self.fd)
    }

    pub fn stats(&self) -> io::Result<xdp_statistics> {
        getsockopt(self.fd, SOL_XDP, XDP_STATISTICS, "XDP_STATISTICS")
    }

    /// As Xsk::wmem_alloc.
    pub fn wmem_alloc(&self) -> io::Result<u32> {
        let m: [u32; 9] = getsockopt(self.fd, libc::SOL_SOCKET, libc::SO_MEMINFO, "SO_MEMINFO")?;
        Ok(m[2])
    }
}

impl Drop for SharedXsk {
    fn drop(&mut self) {
        // Safety: our socket.
        unsafe { libc::close(self.fd) };
    }
}

/// `sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0)`: `Ok(ret)` or `Err(errno)`.
pub fn kick_fd(fd: libc::c_int) -> Result<isize, i32> {
    // Safety: a zero-length send with no buffer.
    let r = unsafe { libc::sendto(fd, std::ptr::null(), 0, libc::MSG_DONTWAIT, std::ptr::null(), 0) };
    if r < 0 {
        Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
    } else {
        Ok(r)
    }
}
