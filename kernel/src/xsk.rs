//! An AF_XDP socket in copy mode, set up with raw syscalls in libxdp's
//! order (xsk_umem__create, xsk_socket__create): umem registration, ring
//! sizes, XDP_MMAP_OFFSETS, mmap, bind. The user side of each ring is the
//! simulator's `UserProd`/`UserCons` over the mapping.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

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

/// What one bind(2) of a socket to its queue gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bind {
    Bound,
    /// EBUSY: a socket closed on that queue has not released its buffer
    /// pool yet (see [`bind_retrying`]); this socket stays unbound.
    Busy,
}

impl Xsk {
    /// A socket bound to `c`'s queue, waiting for the queue while it is
    /// busy ([`bind_retrying`]).
    pub fn create(c: &XskConfig) -> io::Result<Xsk> {
        let x = Xsk::unbound(c)?;
        bind_retrying(x.fd, &sockaddr(c))?;
        Ok(x)
    }

    /// [`Xsk::create`] with XDP_UMEM_REG's `flags` ([`Xsk::unbound_with`]).
    pub fn create_with(c: &XskConfig, umem_flags: u32) -> io::Result<Xsk> {
        let x = Xsk::unbound_with(c, umem_flags)?;
        bind_retrying(x.fd, &sockaddr(c))?;
        Ok(x)
    }

    /// One bind(2) to `c`'s queue (and `c`'s flags); Busy leaves the
    /// socket unbound and as it was, to be bound again.
    pub fn bind(&self, c: &XskConfig) -> io::Result<Bind> {
        bind_once(self.fd, &sockaddr(c))
    }

    /// The umem registered, the rings sized and mapped; not bound yet
    /// (`c`'s interface and queue are for [`Xsk::bind`]).
    pub fn unbound(c: &XskConfig) -> io::Result<Xsk> {
        Xsk::unbound_with(c, 0) // aligned chunks
    }

    /// The same with XDP_UMEM_REG's `flags` (e.g.
    /// XDP_UMEM_UNALIGNED_CHUNK_FLAG); the umem is `c.frames` chunks of
    /// `c.frame_size` bytes either way.
    pub fn unbound_with(c: &XskConfig, umem_flags: u32) -> io::Result<Xsk> {
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
            flags: umem_flags,
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

/// The address `c` binds to: its queue, copy mode and its flags.
fn sockaddr(c: &XskConfig) -> sockaddr_xdp {
    let mut flags = XDP_COPY;
    if c.need_wakeup {
        flags |= XDP_USE_NEED_WAKEUP;
    }
    if c.sg {
        flags |= XDP_USE_SG;
    }
    sockaddr_xdp {
        sxdp_family: AF_XDP as u16,
        sxdp_flags: flags,
        sxdp_ifindex: c.ifindex,
        sxdp_queue_id: c.queue,
        sxdp_shared_umem_fd: 0,
    }
}

impl Drop for Xsk {
    fn drop(&mut self) {
        // Safety: our socket.
        unsafe { libc::close(self.fd) };
    }
}

/// Time spent waiting for a busy queue and EBUSY answers, over the
/// process: what `ringlab bench diff` reports.
static WAITED_NS: AtomicU64 = AtomicU64::new(0);
static BUSY: AtomicU64 = AtomicU64::new(0);

/// Bind waits so far: how long callers waited for busy queues, and how many
/// binds a queue refused with EBUSY.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BindWaits {
    pub waited: Duration,
    pub busy: u64,
}

impl std::ops::Sub for BindWaits {
    type Output = BindWaits;
    fn sub(self, o: BindWaits) -> BindWaits {
        BindWaits { waited: self.waited.saturating_sub(o.waited), busy: self.busy - o.busy }
    }
}

pub fn bind_waits() -> BindWaits {
    BindWaits { waited: Duration::from_nanos(WAITED_NS.load(Relaxed)), busy: BUSY.load(Relaxed) }
}

/// Adds `d` to the time spent waiting for busy queues.
pub(crate) fn count_wait(d: Duration) {
    WAITED_NS.fetch_add(d.as_nanos() as u64, Relaxed);
}

/// One bind(2): Busy on EBUSY, other errors as errors.
pub(crate) fn bind_once(fd: libc::c_int, sa: &sockaddr_xdp) -> io::Result<Bind> {
    // Safety: sa is a sockaddr_xdp of the size passed.
    let r = unsafe { libc::bind(fd, sa as *const sockaddr_xdp as *const libc::sockaddr, std::mem::size_of::<sockaddr_xdp>() as u32) };
    match check(r as libc::c_long, "bind(XDP_COPY)") {
        Ok(_) => Ok(Bind::Bound),
        Err(e) if e.kind() == io::ErrorKind::ResourceBusy => {
            BUSY.fetch_add(1, Relaxed);
            Ok(Bind::Busy)
        }
        Err(e) => Err(e),
    }
}

/// bind(2), retried while it fails with EBUSY: a socket closed on the same
/// queue releases its buffer pool from a work item (xp_put_pool ->
/// xp_release_deferred), after an RCU grace period (the socket is freed by
/// RCU, xsk_destruct drops the pool), so the queue stays taken for some
/// milliseconds after close. The campaign does not wait here: it binds on
/// another lane (lanes.rs).
pub(crate) fn bind_retrying(fd: libc::c_int, sa: &sockaddr_xdp) -> io::Result<()> {
    let start = Instant::now();
    loop {
        match bind_once(fd, sa)? {
            Bind::Bound => return Ok(()),
            Bind::Busy if start.elapsed().as_secs() < 5 => {
                let t = Instant::now();
                std::thread::sleep(Duration::from_millis(2));
                count_wait(t.elapsed());
            }
            Bind::Busy => return Err(io::Error::new(io::ErrorKind::ResourceBusy, "bind(XDP_COPY): the queue stayed busy for 5 s")),
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
