//! The projection of the simulator onto the spec's variables (sq, todo,
//! st, sent, nd, skb, compl, tw, cq, ovf, posted, reaped, got, reused,
//! node). Every model value is built here, so a change of the model's
//! types changes this file alone.

use std::collections::BTreeSet;

use ringlab_model::iouring_zc::{self as model, Holder};

use super::cqe::Cqe;
use super::rings::in_flight;
use super::system::IoUringZc;

impl IoUringZc {
    /// The spec's state this system is in: the SQEs and CQEs in the
    /// rings between their heads and tails, the submission in progress,
    /// each request and notification, each skb, the task work, the
    /// overflow list and the CQEs posted, what the application reaped and
    /// wrote again, and who holds the registered buffer's node.
    ///
    /// Call it when no thread is inside a kernel function.
    pub fn model_state(&self) -> model::State {
        let ctx = &self.ctx;
        let spec = &self.cfg.spec;
        let sq: Vec<model::Req> = {
            let g = ctx.sq.lock().unwrap_or_else(|e| e.into_inner());
            in_flight(&**g.ring()).iter().map(|e| e.user_data as model::Req).collect()
        };
        let (cq, ovf, posted) = ctx.cq.locked(|c| {
            (
                in_flight(&**c.prod.ring()).iter().map(Cqe::spec).collect(),
                c.ovf.iter().map(Cqe::spec).collect(),
                c.posted.clone(),
            )
        });
        let (todo, compl) = ctx.submit_state();
        let b = &ctx.bufs;
        let mut node = BTreeSet::new();
        if b.table() {
            node.insert(Holder::Table);
        }
        for r in spec.reqs() {
            let bit = 1 << (r - 1);
            if b.notif_holds() & bit != 0 {
                node.insert(Holder::Notif(r));
            }
            if b.req_holds() & bit != 0 {
                node.insert(Holder::Req(r));
            }
        }
        model::State {
            sq,
            todo,
            st: spec.reqs().map(|r| ctx.req(r).st()).collect(),
            sent: spec.reqs().map(|r| ctx.req(r).sent()).collect(),
            nd: spec
                .reqs()
                .map(|r| {
                    let n = ctx.notif(r);
                    model::Notif {
                        state: n.state(),
                        refs: n.refs(),
                        head: n.head(),
                        next: n.next(),
                    }
                })
                .collect(),
            skb: ctx
                .skbs
                .iter()
                .map(|k| {
                    let s = k.get();
                    model::Skb {
                        uarg: s.uarg,
                        bufs: s.reqs().into_iter().collect(),
                    }
                })
                .collect(),
            compl: compl.iter().map(Cqe::spec).collect(),
            tw: ctx.task_work(),
            cq,
            ovf,
            posted,
            reaped: self.app.reaped(),
            got: spec.reqs().map(|r| self.app.got(r)).collect(),
            reused: spec.reqs().map(|r| b.reused(r)).collect(),
            node,
        }
    }
}
