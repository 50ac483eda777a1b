//! An AF_XDP socket in copy mode, set up with raw syscalls in libxdp's
//! order (xsk_umem__create, xsk_socket__create): umem registration, ring
//! sizes, XDP_MMAP_OFFSETS, mmap, bind. The user side of each ring is the
//! simulator's `UserProd`/`UserCons` over the mapping.

use std::io;

use ringlab_ring::{UserCons, UserProd, XdpDesc};

use crate::mmap_ring::MmapRing;
use crate::sys::*;
use crate::umem::Umem;

/// What a socket is created with. A ring size of 0 means no such ring.
#[derive(Debug, Clone)]
pub struct XskConfig {
    pub ifindex: u32,
    pub queue: u32,
    pub frames: u32,
    pub frame_size: u32,
    pub headroom: u32,
    pub fill_size: u32,
    pub comp_size: u32,
    pub rx_size: u32,
    pub tx_size: u32,
    pub need_wakeup: bool,
    /// Bind with XDP_USE_SG (multi-buffer).
    pub sg: bool,
}

pub struct Xsk {
    pub fd: libc::c_int,
    pub fill: UserProd<MmapRing<u64>>,
    pub comp: UserCons<MmapRing<u64>>,
    pub rx: Option<UserCons<MmapRing<XdpDesc>>>,
    pub tx: Option<UserProd<MmapRing<XdpDesc>>>,
    // Dropped after the rings and the socket (fields drop in order; the fd
    // is closed in Drop before any field).
    pub umem: Umem,
}

impl Xsk {
    pub fn create(c: &XskConfig) -> io::Result<Xsk> {
        // Safety: plain socket(2).
        let fd = unsafe { libc::socket(AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        check(fd as libc::c_long, "socket(AF_XDP)")?;
        let guard = FdGuard(fd);
        let umem = Umem::new(c.frames, c.frame_size)?;
        let reg = xdp_umem_reg {
            addr: umem.addr(),
            len: umem.len,
            chunk_size: c.frame_size,
            headroom: c.headroom,
            flags: 0, // aligned chunks
            tx_metadata_len: 0,
        };
        setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &reg, "XDP_UMEM_REG")?;
        setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &c.fill_size, "XDP_UMEM_FILL_RING")?;
        setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &c.comp_size, "XDP_UMEM_COMPLETION_RING")?;
        if c.rx_size > 0 {
            setsockopt(fd, SOL_XDP, XDP_RX_RING, &c.rx_size, "XDP_RX_RING")?;
        }
        if c.tx_size > 0 {
            setsockopt(fd, SOL_XDP, XDP_TX_RING, &c.tx_size, "XDP_TX_RING")?;
        }
        let off: xdp_mmap_offsets = getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, "XDP_MMAP_OFFSETS")?;
        let fr = MmapRing::map(fd, XDP_UMEM_PGOFF_FILL_RING as libc::off_t, off.fr, c.fill_size)?;
        let cr = MmapRing::map(fd, XDP_UMEM_PGOFF_COMPLETION_RING as libc::off_t, off.cr, c.comp_size)?;
        let rx = match c.rx_size {
            0 => None,
            n => Some(MmapRing::map(fd, XDP_PGOFF_RX_RING, off.rx, n)?),
        };
        let tx = match c.tx_size {
            0 => None,
            n => Some(MmapRing::map(fd, XDP_PGOFF_TX_RING, off.tx, n)?),
        };
        let mut flags = XDP_COPY;
        if c.need_wakeup {
            flags |= XDP_USE_NEED_WAKEUP;
        }
        if c.sg {
            flags |= XDP_USE_SG;
        }
        let sa = sockaddr_xdp {
            sxdp_family: AF_XDP as u16,
            sxdp_flags: flags,
            sxdp_ifindex: c.ifindex,
            sxdp_queue_id: c.queue,
            sxdp_shared_umem_fd: 0,
        };
        bind_retrying(fd, &sa)?;
        std::mem::forget(guard);
        // Safety: this socket is the rings' only user-side handle; the
        // kernel follows the ring protocol on its side.
        unsafe {
            Ok(Xsk {
                fd,
                fill: UserProd::new(fr),
                comp: UserCons::new(cr),
                rx: rx.map(|r| UserCons::new(r)),
                tx: tx.map(|r| UserProd::new(r)),
                umem,
            })
        }
    }

    /// `sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0)`, the copy-mode kick:
    /// `Ok(ret)` or `Err(errno)`.
    pub fn kick(&self) -> Result<isize, i32> {
        // Safety: a zero-length send with no buffer.
        let r = unsafe { libc::sendto(self.fd, std::ptr::null(), 0, libc::MSG_DONTWAIT, std::ptr::null(), 0) };
        if r < 0 {
            Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
        } else {
            Ok(r)
        }
    }

    pub fn stats(&self) -> io::Result<xdp_statistics> {
        getsockopt(self.fd, SOL_XDP, XDP_STATISTICS, "XDP_STATISTICS")
    }

    /// Bytes of skbs this socket has sent that are not yet freed
    /// (SO_MEMINFO's wmem_alloc): 0 means every TX skb's destructor, which
    /// produces its completion, has run.
    pub fn wmem_alloc(&self) -> io::Result<u32> {
        let m: [u32; 9] = getsockopt(self.fd, libc::SOL_SOCKET, libc::SO_MEMINFO, "SO_MEMINFO")?;
        Ok(m[2])
    }

    /// setsockopt XDP_MAX_TX_SKB_BUDGET (6.17+).
    pub fn set_tx_budget(&self, budget: u32) -> io::Result<()> {
        setsockopt(self.fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &budget, "XDP_MAX_TX_SKB_BUDGET")
    }
}

impl Drop for Xsk {
    fn drop(&mut self) {
        // Safety: our socket.
        unsafe { libc::close(self.fd) };
    }
}

/// bind(2), retried while it fails with EBUSY: a socket closed on the same
/// queue releases its buffer pool from a work item (xp_put_pool ->
/// xp_release_deferred), so the queue stays taken for a moment after close.
pub(crate) fn bind_retrying(fd: libc::c_int, sa: &sockaddr_xdp) -> io::Result<()> {
    let start = std::time::Instant::now();
    loop {
        // Safety: sa is a sockaddr_xdp of the size passed.
        let r = unsafe {
            libc::bind(fd, sa as *const sockaddr_xdp as *const libc::sockaddr, std::mem::size_of::<sockaddr_xdp>() as u32)
        };
        match check(r as libc::c_long, "bind(XDP_COPY)") {
            Err(e) if e.raw_os_error().is_none() && e.kind() == io::ErrorKind::ResourceBusy && start.elapsed().as_secs() < 5 => {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            r => return r.map(|_| ()),
        }
    }
}

pub(crate) struct FdGuard(pub(crate) libc::c_int);
impl Drop for FdGuard {
    fn drop(&mut self) {
        // Safety: our fd, not yet handed to an Xsk.
        unsafe { libc::close(self.0) };
    }
}
