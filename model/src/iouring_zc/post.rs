//! Posting CQEs: PostAll (io_fill_cqe_req, io_cqring_event_overflow) and
//! Chain, the notifications one task work posts.

use super::config::{Config, Mutant};
use super::state::{at, Cqe, Notif, Req, State};

impl State {
    /// PostAll(es): each CQE of es into the CQ, or onto the overflow list
    /// when the CQ is full or the list is not empty (a CQE never
    /// overtakes one that overflowed). iou-cq-overflow-drop: a CQE that
    /// would overflow is lost; iou-overflow-bypass: it goes into a CQ with
    /// room whatever waits on the list. `self` is the next state, its cq,
    /// ovf and posted still those of the state the action starts from.
    pub(super) fn post_all(&mut self, cfg: &Config, es: &[Cqe]) {
        let room = |q: &Vec<Cqe>| q.len() < cfg.cq_size as usize;
        for e in es {
            if self.ovf.is_empty() && room(&self.cq) {
                self.cq.push(*e);
            } else if cfg.mutant == Mutant::CqOverflowDrop {
            } else if cfg.mutant == Mutant::OverflowBypass && room(&self.cq) {
                self.cq.push(*e);
            } else {
                self.ovf.push(*e);
            }
        }
        self.posted.extend_from_slice(es);
    }
}

/// Chain(d, n): the notifications the task work of n posts, n and then
/// those linked behind it, in the order io_notif_tw_complete() walks
/// nd->next. Like the spec's f[0 .. NReqs], at most NReqs steps are
/// taken along the list.
pub fn chain(d: &[Notif], n: Req) -> Vec<Req> {
    let mut c = vec![n];
    for _ in 0..d.len() {
        let next = d[at(c[c.len() - 1])].next;
        if next == 0 {
            break;
        }
        c.push(next);
    }
    c
}

/// NotifCqe(c[i]) for each notification of a chain.
pub(super) fn notif_cqes(c: &[Req]) -> Vec<Cqe> {
    c.iter().map(|&n| Cqe::notif_of(n)).collect()
}
