//! struct xdp_sock as receive sees it: its state (xs->state and the
//! release's progress), its rx ring's kernel producer, its drop counters,
//! and xs->rx_lock (the lock xsk_generic_rcv() took before
//! CVE-2025-37920's fix).
//!
//! The rx producer is used by one CPU at a time (the queue's NAPI poll,
//! or the holder of the rx lock), in a cell of the sync shim so that loom
//! sees it.

use ringlab_model::xsk_rx::{Buf, Sock, Sst};
use ringlab_ring::sync::Ordering::{Acquire, Relaxed, Release};
use ringlab_ring::sync::{Arc, AtomicU32, AtomicU8, UnsafeCell};
use ringlab_ring::{KernelProd, Ring, RingMem, XdpDesc};

use super::lock::SpinLock;
use super::pool::{addr_of, buf_of, CHUNK};

/// XDP_PKT_CONTD of a descriptor's options.
pub const XDP_PKT_CONTD: u32 = 1;

/// The kernel's producer of an rx ring.
pub type RxProd = KernelProd<Arc<Ring<XdpDesc>>>;

#[derive(Debug)]
pub struct XdpSock {
    pub id: Sock,
    state: AtomicU8,
    /// xs->rx_lock (xsk-gen-rx-race takes it instead of pool->rx_lock).
    pub rx_lock: SpinLock,
    /// The rx ring the application reads.
    pub rx_ring: Arc<Ring<XdpDesc>>,
    rx: UnsafeCell<RxProd>,
    rx_dropped: AtomicU32,
    rx_queue_full: AtomicU32,
}

// Safety: the cell is used by one CPU at a time (see the module's
// comment), which is what loom checks.
unsafe impl Sync for XdpSock {}
unsafe impl Send for XdpSock {}

fn sst(v: u8) -> Sst {
    [Sst::Unbound, Sst::Bound, Sst::Unbinding, Sst::Freed][usize::from(v)]
}

fn code(s: Sst) -> u8 {
    match s {
        Sst::Unbound => 0,
        Sst::Bound => 1,
        Sst::Unbinding => 2,
        Sst::Freed => 3,
    }
}

impl XdpSock {
    pub fn new(id: Sock, rx_size: u32, bound: bool) -> Result<XdpSock, String> {
        let rx_ring = Arc::new(
            Ring::new(rx_size, 0, XdpDesc::default()).map_err(|e| format!("RxSize: {e}"))?,
        );
        // Safety: the socket is its rx ring's only kernel producer.
        let rx = unsafe { KernelProd::new(rx_ring.clone()) };
        let st = if bound { Sst::Bound } else { Sst::Unbound };
        Ok(XdpSock {
            id,
            state: AtomicU8::new(code(st)),
            rx_lock: SpinLock::default(),
            rx_ring,
            rx: UnsafeCell::new(rx),
            rx_dropped: AtomicU32::new(0),
            rx_queue_full: AtomicU32::new(0),
        })
    }

    pub fn state(&self) -> Sst {
        sst(self.state.load(Acquire))
    }

    pub fn set_state(&self, s: Sst) {
        self.state.store(code(s), Release);
    }

    /// `f` on xs->rx. The caller runs the queue's poll or holds the rx
    /// lock.
    pub fn with_rx<R>(&self, f: impl FnOnce(&mut RxProd) -> R) -> R {
        // Safety: one CPU at a time; loom checks it.
        self.rx.with_mut(|p| unsafe { f(&mut *p) })
    }

    /// xskq_prod_nb_free(xs->rx, max): free entries counted from
    /// cached_prod, up to max.
    pub fn rx_nb_free(&self, max: u32) -> u32 {
        self.with_rx(|q| q.nb_free(max))
    }

    /// xskq_prod_reserve_desc() of each buffer of packet `bufs`, as many
    /// as fit: XDP_PKT_CONTD on all but the packet's last. Returns how
    /// many were reserved.
    pub fn reserve_descs(&self, bufs: &[Buf]) -> usize {
        self.with_rx(|q| {
            let n = q.nb_free(bufs.len() as u32) as usize;
            for (i, &b) in bufs[..n].iter().enumerate() {
                let d = XdpDesc {
                    addr: addr_of(b),
                    len: CHUNK as u32,
                    options: if i + 1 < bufs.len() { XDP_PKT_CONTD } else { 0 },
                };
                q.reserve_addr(d).expect("nb_free counted the room");
            }
            n
        })
    }

    /// xsk_flush()'s xskq_prod_submit(xs->rx).
    pub fn rx_submit(&self) {
        self.with_rx(|q| q.submit())
    }

    /// xs->rx_dropped++.
    pub fn bump_dropped(&self) {
        self.rx_dropped.fetch_add(1, Relaxed);
    }

    /// xs->rx_queue_full++.
    pub fn bump_queue_full(&self) {
        self.rx_queue_full.fetch_add(1, Relaxed);
    }

    /// (rx_dropped, rx_queue_full).
    pub fn counters(&self) -> (u32, u32) {
        (
            self.rx_dropped.load(Acquire),
            self.rx_queue_full.load(Acquire),
        )
    }

    /// The rx ring's descriptors from the consumer to cached_prod (buffer,
    /// XDP_PKT_CONTD), and how many of them are published. Call it when no
    /// CPU receives into this socket.
    pub fn rx_state(&self) -> (Vec<(Buf, bool)>, u32) {
        self.with_rx(|q| {
            let ring = q.ring();
            let cons = ring.consumer().load(Acquire);
            let n = q.cached_prod().wrapping_sub(cons);
            // Safety: the positions from the consumer to cached_prod are
            // written and not released; no CPU writes them now.
            let descs = (0..n)
                .map(|i| unsafe { ring.read(cons.wrapping_add(i)) })
                .map(|d| (buf_of(d.addr), d.options & XDP_PKT_CONTD != 0))
                .collect();
            (descs, ring.producer().load(Acquire).wrapping_sub(cons))
        })
    }
}
