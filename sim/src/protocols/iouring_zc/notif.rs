//! A notification (struct io_notif_data around its io_kiocb): its state,
//! the ubuf_info's reference count, and the list io_link_skb() builds
//! (nd->head, nd->next). The count is a real atomic: the submitter's
//! io_notif_flush() and the network stack's skb frees race on it, and
//! whichever drops the last reference queues the task work.

use ringlab_model::iouring_zc::{NdState, Req};
use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Release};
use ringlab_ring::sync::{AtomicI64, AtomicU8};

#[derive(Debug)]
pub struct Notif {
    state: AtomicU8,
    /// uarg->refcnt (mutants drive it below zero, so signed).
    refs: AtomicI64,
    /// nd->head: the notification it is linked behind; itself if none.
    head: AtomicU8,
    /// nd->next: the one linked right after it; 0 none.
    next: AtomicU8,
}

const STATES: [NdState; 5] = [
    NdState::None,
    NdState::Live,
    NdState::Tw,
    NdState::Posted,
    NdState::Dropped,
];

impl Notif {
    /// Request r's, not allocated.
    pub fn new(r: Req) -> Notif {
        Notif {
            state: AtomicU8::new(0),
            refs: AtomicI64::new(0),
            head: AtomicU8::new(r),
            next: AtomicU8::new(0),
        }
    }

    pub fn state(&self) -> NdState {
        STATES[usize::from(self.state.load(Acquire))]
    }

    pub fn set_state(&self, s: NdState) {
        let i = STATES.iter().position(|x| *x == s).expect("every NdState is listed");
        self.state.store(i as u8, Release);
    }

    /// io_alloc_notif(): live, one reference (the submitter's), no link.
    pub fn alloc(&self, r: Req) {
        self.refs.store(1, Release);
        self.head.store(r, Release);
        self.next.store(0, Release);
        self.set_state(NdState::Live);
    }

    pub fn refs(&self) -> i64 {
        self.refs.load(Acquire)
    }

    pub fn head(&self) -> Req {
        self.head.load(Acquire)
    }

    pub fn next(&self) -> Req {
        self.next.load(Acquire)
    }

    /// net_zcopy_get(): one more reference.
    pub fn get(&self) {
        self.refs.fetch_add(1, AcqRel);
    }

    /// refcount_dec_and_test(): one reference put; true if it was the
    /// last (the count is zero or, under a mutant, below).
    pub fn dec_and_test(&self) -> bool {
        self.refs.fetch_sub(1, AcqRel) <= 1
    }

    /// iou-skip-notif: freed without its CQE.
    pub fn drop_unposted(&self) {
        self.refs.store(0, Release);
        self.set_state(NdState::Dropped);
    }

    /// io_link_skb(): linked behind `head`, before `next`.
    pub fn link(&self, head: Req, next: Req) {
        self.head.store(head, Release);
        self.next.store(next, Release);
    }

    pub fn set_next(&self, next: Req) {
        self.next.store(next, Release);
    }
}
