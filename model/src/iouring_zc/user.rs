//! The application: UserSubmit, IoUringEnter, UserReap, UserReuse and
//! IoUringUnregisterBuffers.

use super::config::{Config, Mutant, Reuse};
use super::state::{at, Holder, Req, St, State};

impl State {
    /// UserSubmit(r): io_uring_get_sqe() + io_uring_prep_send_zc(), an
    /// SQE for r, if the SQ has room (iou-sq-overrun: whether or not).
    pub fn user_submit(&self, cfg: &Config, r: Req) -> Option<State> {
        if !cfg.reqs().contains(&r) || self.st_of(r) != St::User {
            return None;
        }
        if self.sq.len() >= cfg.sq_size as usize && cfg.mutant != Mutant::SqOverrun {
            return None;
        }
        let mut t = self.clone();
        t.sq.push(r);
        t.st[at(r)] = St::Sq;
        Some(t)
    }

    /// IoUringEnter: io_uring_enter(to_submit), io_submit_sqes(): the
    /// kernel is to submit up to Batch SQEs, once the last submission is
    /// over.
    pub fn io_uring_enter(&self, cfg: &Config) -> Option<State> {
        if self.todo != 0 || self.sq.is_empty() || !self.compl.is_empty() || self.issuing() {
            return None;
        }
        let mut t = self.clone();
        t.todo = cfg.batch.min(self.sq.len() as u32);
        Some(t)
    }

    /// UserReap: the application reaps the CQ's head
    /// (io_uring_cqe_seen).
    pub fn user_reap(&self, _cfg: &Config) -> Option<State> {
        let c = *self.cq.first()?;
        let mut t = self.clone();
        let got = &mut t.got[at(c.r)];
        if c.notif {
            got.notif = true;
        } else {
            got.cqe = true;
        }
        t.cq.remove(0);
        t.reaped += 1;
        Some(t)
    }

    /// UserReuse(r): the application writes into r's buffer again, once
    /// the CQE Reuse names is reaped, or the CQE of a request no
    /// notification follows (no CQE of r posted with F_MORE).
    pub fn user_reuse(&self, cfg: &Config, r: Req) -> Option<State> {
        if !cfg.reqs().contains(&r) || self.reused[at(r)] {
            return None;
        }
        let got = self.got[at(r)];
        let named = match cfg.reuse {
            Reuse::Notif => got.notif,
            Reuse::Cqe => got.cqe,
        };
        let no_more = got.cqe && self.posted.iter().all(|c| c.r != r || !c.more);
        if !named && !no_more {
            return None;
        }
        let mut t = self.clone();
        t.reused[at(r)] = true;
        Some(t)
    }

    /// IoUringUnregisterBuffers: IORING_UNREGISTER_BUFFERS, the table
    /// drops its hold on the rsrc node.
    pub fn io_uring_unregister_buffers(&self, _cfg: &Config) -> Option<State> {
        if !self.node.contains(&Holder::Table) {
            return None;
        }
        let mut t = self.clone();
        t.node.remove(&Holder::Table);
        Some(t)
    }
}
