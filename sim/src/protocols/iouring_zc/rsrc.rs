//! The registered buffer (IORING_REGISTER_BUFFERS) and the application's
//! buffers: the rsrc node's reference count with who holds it (the buffer
//! table, a notification, or under iou-fixedbuf-life a request), the
//! pages freed when the last reference goes; per request, how many skbs
//! pin its pages and whether the application wrote into them again.

use ringlab_model::iouring_zc::Req;
use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Release};
use ringlab_ring::sync::{AtomicBool, AtomicI32, AtomicU32};

use super::skb::bit;

#[derive(Debug)]
pub struct Buffers {
    /// io_rsrc_node's refs.
    node_refs: AtomicI32,
    /// The buffer table holds the node (until unregistered).
    table: AtomicBool,
    /// Bit r - 1: r's notification holds the node.
    notif_holds: AtomicU32,
    /// Bit r - 1: request r holds the node (iou-fixedbuf-life).
    req_holds: AtomicU32,
    /// io_buffer_unmap(): the pages went back when the node's last
    /// reference went.
    freed: AtomicBool,
    /// Per request: the skbs that pin its pages.
    pins: Vec<AtomicU32>,
    /// Per request: the application wrote into its buffer again.
    reused: Vec<AtomicBool>,
}

/// Who holds the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    Notif(Req),
    Req(Req),
}

impl Buffers {
    /// `n_reqs` requests; `fixed`: a registered buffer, its node held by
    /// the table.
    pub fn new(n_reqs: u8, fixed: bool) -> Buffers {
        Buffers {
            node_refs: AtomicI32::new(i32::from(fixed)),
            table: AtomicBool::new(fixed),
            notif_holds: AtomicU32::new(0),
            req_holds: AtomicU32::new(0),
            freed: AtomicBool::new(false),
            pins: (0..n_reqs).map(|_| AtomicU32::new(0)).collect(),
            reused: (0..n_reqs).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    fn mask(&self, h: Holder) -> (&AtomicU32, u32) {
        match h {
            Holder::Notif(r) => (&self.notif_holds, bit(r)),
            Holder::Req(r) => (&self.req_holds, bit(r)),
        }
    }

    /// io_req_set_rsrc_node(): h takes a reference on the node.
    pub fn hold(&self, h: Holder) {
        let (m, b) = self.mask(h);
        m.fetch_or(b, AcqRel);
        self.node_refs.fetch_add(1, AcqRel);
    }

    /// io_put_rsrc_node(): h's reference put, if it holds one.
    pub fn put(&self, h: Holder) {
        let (m, b) = self.mask(h);
        if m.fetch_and(!b, AcqRel) & b != 0 {
            self.put_ref();
        }
    }

    /// IORING_UNREGISTER_BUFFERS: the table's reference put; false if
    /// the table held none.
    pub fn unregister(&self) -> bool {
        let held = self.table.swap(false, AcqRel);
        if held {
            self.put_ref();
        }
        held
    }

    fn put_ref(&self) {
        if self.node_refs.fetch_sub(1, AcqRel) == 1 {
            self.freed.store(true, Release);
        }
    }

    pub fn table(&self) -> bool {
        self.table.load(Acquire)
    }
    pub fn notif_holds(&self) -> u32 {
        self.notif_holds.load(Acquire)
    }
    pub fn req_holds(&self) -> u32 {
        self.req_holds.load(Acquire)
    }
    pub fn node_refs(&self) -> i32 {
        self.node_refs.load(Acquire)
    }
    pub fn freed(&self) -> bool {
        self.freed.load(Acquire)
    }

    /// An skb takes r's pages (skb_zerocopy_iter_stream).
    pub fn pin(&self, r: Req) {
        self.pins[usize::from(r) - 1].fetch_add(1, AcqRel);
    }

    /// The skb is freed and its pages with it.
    pub fn unpin(&self, r: Req) {
        let was = self.pins[usize::from(r) - 1].fetch_sub(1, AcqRel);
        assert!(was > 0, "request {r}: its pages unpinned more often than pinned");
    }

    pub fn pins(&self, r: Req) -> u32 {
        self.pins[usize::from(r) - 1].load(Acquire)
    }

    /// The application writes into r's buffer; false if it had already.
    pub fn reuse(&self, r: Req) -> bool {
        !self.reused[usize::from(r) - 1].swap(true, AcqRel)
    }

    pub fn reused(&self, r: Req) -> bool {
        self.reused[usize::from(r) - 1].load(Acquire)
    }
}
