//! The checks after each step: what only the concrete state shows (the
//! rsrc node's count against its holders and the pages freed with its
//! last reference, the pages' pins against the skbs that carry them),
//! then every invariant of specs/IoUringZcNotif.tla, evaluated by the
//! model (ringlab_model::iouring_zc) on [`IoUringZc::model_state`], with a
//! description of what broke.

use ringlab_model::iouring_zc::{Config, NdState, State, INVARIANTS};

use super::system::IoUringZc;
pub use crate::harness::Violation;

/// The invariants checked after every step: all of the spec's, in the
/// order its model configs list them.
pub const CHECKED: [&str; 12] = {
    let mut n = [""; 12];
    let mut i = 0;
    while i < 12 {
        n[i] = INVARIANTS[i].0;
        i += 1;
    }
    n
};

/// What the projection does not show: the node's reference count is its
/// holders' (the table's, the notifications', the requests'), its pages
/// are freed exactly when no reference is left, and each request's pages
/// are pinned once per skb that carries them.
pub fn concrete(sys: &IoUringZc) -> Result<(), String> {
    let b = &sys.ctx.bufs;
    let holders = i32::from(b.table())
        + b.notif_holds().count_ones() as i32
        + b.req_holds().count_ones() as i32;
    if b.node_refs() != holders {
        return Err(format!(
            "the rsrc node counts {} references, {holders} hold it",
            b.node_refs()
        ));
    }
    let fixed = sys.cfg.spec.fixed;
    if fixed && b.freed() != (holders == 0) {
        return Err(format!(
            "the registered buffer's pages are {} with {holders} references",
            if b.freed() { "freed" } else { "kept" }
        ));
    }
    for r in sys.cfg.spec.reqs() {
        let carrying = sys.ctx.skbs.iter().filter(|k| k.get().carries(r)).count() as u32;
        if b.pins(r) != carrying {
            return Err(format!(
                "request {r}: its pages are pinned {} times, {carrying} skbs carry them",
                b.pins(r)
            ));
        }
    }
    Ok(())
}

/// Every checked invariant on the projection; the state if they hold.
pub fn check(sys: &IoUringZc) -> Result<State, Violation> {
    let st = sys.model_state();
    let cfg = &sys.cfg.spec;
    match st.violated(cfg, &CHECKED) {
        None => Ok(st),
        Some(invariant) => Err(Violation::of(invariant, explain(&st, cfg, invariant))),
    }
}

/// What breaks `invariant` in `st`, in the spec's terms.
pub fn explain(st: &State, cfg: &Config, invariant: &str) -> String {
    let cqes = |v: &[ringlab_model::iouring_zc::Cqe]| -> String {
        let s: Vec<String> = v
            .iter()
            .map(|c| {
                let what = if c.notif { "notif".to_string() } else { format!("res {}{}", c.res, if c.more { " F_MORE" } else { "" }) };
                format!("{} {what}", c.r)
            })
            .collect();
        format!("[{}]", s.join(", "))
    };
    let mut out = Vec::new();
    match invariant {
        "NotifOnce" | "NotifForEveryPrep" | "MoreMeansNotif" | "ReqBeforeNotif" | "ResIsSent" => {
            out.push(format!("posted {}", cqes(&st.posted)));
            for r in cfg.reqs() {
                out.push(format!(
                    "request {r}: {}, sent {}, notification {}",
                    st.st_of(r).id(),
                    st.sent[usize::from(r) - 1],
                    st.nd_of(r).state.id()
                ));
            }
        }
        "NotifAfterLastSkb" | "FixedBufPinned" | "BufferNotReused" | "RefsAccounted" => {
            for k in cfg.skb_ids() {
                let s = st.skb_of(k);
                if s.uarg != 0 {
                    out.push(format!("skb {k}: notification {}, pages of {:?}", s.uarg, s.bufs));
                }
            }
            for r in cfg.reqs() {
                let n = st.nd_of(r);
                out.push(format!(
                    "notification {r}: {} refs {} (holders {}) head {} next {}; reused {}",
                    n.state.id(),
                    n.refs,
                    st.holders(r),
                    n.head,
                    n.next,
                    st.reused[usize::from(r) - 1]
                ));
            }
            out.push(format!("node held by {:?}", st.node));
        }
        _ => out.push(format!(
            "posted {}, reaped {}, cq {}, overflow {}, sq {:?}",
            cqes(&st.posted),
            st.reaped,
            cqes(&st.cq),
            cqes(&st.ovf),
            st.sq
        )),
    }
    out.join("; ")
}

/// At the end, every request done and every CQE reaped: no skb, no task
/// work, no pin, every notification of a request that allocated one
/// posted once, and the node held by the table alone, if by anything.
pub fn quiescent(sys: &IoUringZc) -> Result<(), String> {
    let st = sys.model_state();
    if !st.quiescent() {
        return Err(format!(
            "still in flight: sq {:?}, todo {}, compl {}, tw {:?}, cq {}, overflow {}, skbs {:?}",
            st.sq,
            st.todo,
            st.compl.len(),
            st.tw,
            st.cq.len(),
            st.ovf.len(),
            st.skb.iter().map(|k| k.uarg).collect::<Vec<_>>()
        ));
    }
    for r in sys.cfg.spec.reqs() {
        if sys.ctx.bufs.pins(r) != 0 {
            return Err(format!("request {r}: its pages are still pinned"));
        }
        let n = st.nd_of(r);
        let posted = n.state == NdState::Posted;
        if !(posted || n.state == NdState::None) || st.notifs_of(r) != usize::from(posted) {
            return Err(format!(
                "request {r}: notification {} with {} notification CQEs",
                n.state.id(),
                st.notifs_of(r)
            ));
        }
    }
    let b = &sys.ctx.bufs;
    if b.notif_holds() | b.req_holds() != 0 {
        return Err(format!("the rsrc node is still held: {:?}", st.node));
    }
    Ok(())
}
