//! The application (liburing): it writes SEND_ZC SQEs
//! (io_uring_get_sqe + io_uring_prep_send_zc), reaps CQEs
//! (io_uring_peek_cqe + io_uring_cqe_seen), and writes into a buffer
//! again once the CQE it waits for is reaped: the notification, or (a
//! request no notification follows) the request CQE without F_MORE.

use ringlab_model::iouring_zc::{Got, Req, Reuse};
use ringlab_ring::sync::Ordering::{AcqRel, Acquire};
use ringlab_ring::sync::{AtomicU32, AtomicU8, Mutex};

use super::cqe::{Cqe, Sqe};
use super::rings::{CqCons, SqProd};

const GOT_CQE: u8 = 1;
const GOT_NOTIF: u8 = 2;
/// The request CQE reaped carried F_MORE: a notification follows.
const GOT_MORE: u8 = 4;

#[derive(Debug)]
pub struct App {
    sq: Mutex<SqProd>,
    cq: Mutex<CqCons>,
    /// Per request: GOT_* bits of what was reaped.
    got: Vec<AtomicU8>,
    /// CQEs reaped.
    reaped: AtomicU32,
}

impl App {
    pub fn new(n_reqs: u8, sq: SqProd, cq: CqCons) -> App {
        App {
            sq: Mutex::new(sq),
            cq: Mutex::new(cq),
            got: (0..n_reqs).map(|_| AtomicU8::new(0)).collect(),
            reaped: AtomicU32::new(0),
        }
    }

    /// io_uring_get_sqe() + io_uring_prep_send_zc() + the tail's store:
    /// an SQE for r; false if the SQ is full.
    pub fn submit(&self, r: Req, len: u32, fixed: bool) -> bool {
        let mut sq = self.sq.lock().unwrap_or_else(|e| e.into_inner());
        let Some(idx) = sq.reserve(1) else {
            return false;
        };
        sq.write(
            idx,
            Sqe {
                user_data: u64::from(r),
                len,
                fixed,
            },
        );
        sq.submit(1);
        true
    }

    /// io_uring_peek_cqe() + io_uring_cqe_seen(): the CQ's head, if any.
    pub fn reap(&self) -> Option<Cqe> {
        let mut cq = self.cq.lock().unwrap_or_else(|e| e.into_inner());
        let (n, idx) = cq.peek(1);
        if n == 0 {
            return None;
        }
        let c = cq.read(idx);
        cq.release(1);
        let bits = if c.is_notif() {
            GOT_NOTIF
        } else if c.more() {
            GOT_CQE | GOT_MORE
        } else {
            GOT_CQE
        };
        self.got[usize::from(c.r()) - 1].fetch_or(bits, AcqRel);
        self.reaped.fetch_add(1, AcqRel);
        Some(c)
    }

    /// Whether the application may write into r's buffer again: the CQE
    /// `reuse` names is reaped, or the request CQE without F_MORE.
    pub fn may_reuse(&self, r: Req, reuse: Reuse) -> bool {
        let g = self.got[usize::from(r) - 1].load(Acquire);
        let named = match reuse {
            Reuse::Notif => g & GOT_NOTIF != 0,
            Reuse::Cqe => g & GOT_CQE != 0,
        };
        named || (g & GOT_CQE != 0 && g & GOT_MORE == 0)
    }

    /// The spec's got[r].
    pub fn got(&self, r: Req) -> Got {
        let g = self.got[usize::from(r) - 1].load(Acquire);
        Got {
            cqe: g & GOT_CQE != 0,
            notif: g & GOT_NOTIF != 0,
        }
    }

    pub fn reaped(&self) -> u32 {
        self.reaped.load(Acquire)
    }
}
