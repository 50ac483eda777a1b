//! Posting CQEs under ctx->completion_lock: io_fill_cqe_req() into the CQ
//! when it has room and nothing waits on the overflow list, else
//! io_cqring_event_overflow() onto the list (a CQE never overtakes one
//! that overflowed); io_cqring_overflow_flush() moves them back in order.
//! `posted` is the spec's history of every CQE posted, in order: the
//! ring forgets a CQE once reaped, the checks do not.

use std::collections::VecDeque;

use ringlab_model::iouring_zc as model;
use ringlab_ring::sync::Mutex;

use super::cqe::Cqe;
use super::rings::CqProd;

#[derive(Debug)]
pub struct CqState {
    pub prod: CqProd,
    /// ctx->cq_overflow_list, oldest first.
    pub ovf: VecDeque<Cqe>,
    pub posted: Vec<model::Cqe>,
    /// CQEs that went onto the overflow list, all told.
    pub overflowed: u64,
}

/// The CQ's producer side behind the completion lock.
#[derive(Debug)]
pub struct Cq(Mutex<CqState>);

impl Cq {
    pub fn new(prod: CqProd) -> Cq {
        Cq(Mutex::new(CqState {
            prod,
            ovf: VecDeque::new(),
            posted: Vec::new(),
            overflowed: 0,
        }))
    }

    /// spin_lock(&ctx->completion_lock) ... unlock around `f`. A panic
    /// under the lock (a ring assertion) does not hide the state.
    pub fn locked<T>(&self, f: impl FnOnce(&mut CqState) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Post `es` in order, then io_commit_cqring(): ->tail published.
    pub fn post_all(&self, es: &[Cqe]) {
        self.locked(|c| {
            for &e in es {
                if c.ovf.is_empty() && c.prod.reserve_addr(e).is_ok() {
                    continue;
                }
                c.ovf.push_back(e);
                c.overflowed += 1;
            }
            c.prod.submit();
            c.posted.extend(es.iter().map(Cqe::spec));
        })
    }

    /// io_cqring_overflow_flush(): the oldest overflowed CQE into the CQ
    /// if it has room; false if none moved.
    pub fn overflow_flush(&self) -> bool {
        self.locked(|c| {
            let Some(&e) = c.ovf.front() else {
                return false;
            };
            if c.prod.reserve_addr(e).is_err() {
                return false;
            }
            c.ovf.pop_front();
            c.prod.submit();
            true
        })
    }

    /// Whether a CQE waits on the overflow list.
    pub fn overflowed(&self) -> bool {
        self.locked(|c| !c.ovf.is_empty())
    }

    /// The CQ has room for one (io_get_cqe would find an entry).
    pub fn has_room(&self) -> bool {
        self.locked(|c| !c.prod.is_full())
    }
}
