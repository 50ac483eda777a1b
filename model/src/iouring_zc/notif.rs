//! Notification references: Put and Release (io_tx_ubuf_complete), and
//! iou-skip-notif's Dropped.

use super::config::{Config, Mutant};
use super::post::{chain, notif_cqes};
use super::state::{at, Holder, NdState, Notif, Req, State};

/// Put(d, t, n): one reference of n put, on `d` (nd) and `t` (tw). At
/// zero a notification linked behind another puts its head's; a head
/// whose count reaches zero is queued as task work.
pub fn put(d: &mut [Notif], t: &mut Vec<Req>, n: Req) {
    let h = d[at(n)].head;
    d[at(n)].refs -= 1;
    if d[at(n)].refs > 0 {
        return;
    }
    // A member that drops to zero stays "live": its head's task work
    // posts it.
    let last = if h != n {
        d[at(h)].refs -= 1;
        if d[at(h)].refs > 0 {
            return;
        }
        h
    } else {
        n
    };
    d[at(last)].state = NdState::Tw;
    t.push(last);
}

/// Dropped(d, r): iou-skip-notif: r's notification dropped unposted.
pub fn dropped(d: &mut [Notif], r: Req) {
    d[at(r)].refs = 0;
    d[at(r)].state = NdState::Dropped;
}

impl State {
    /// Release(p), p = <<d, t>> the nd and tw the puts gave: they become
    /// nd' and tw'. iou-notif-order: task work a put queued runs at once,
    /// its chain posted (and its rsrc nodes dropped) before the
    /// submission's request CQEs are flushed. `self` is the next state,
    /// its tw, cq, ovf, posted and node still those the action starts
    /// from.
    pub(super) fn release(&mut self, cfg: &Config, d: Vec<Notif>, t: Vec<Req>) {
        if cfg.mutant == Mutant::NotifOrder && t.len() > self.tw.len() {
            let c = chain(&d, t[t.len() - 1]);
            self.nd = d;
            for &n in &c {
                self.nd[at(n)].state = NdState::Posted;
                self.node.remove(&Holder::Notif(n));
            }
            self.post_all(cfg, &notif_cqes(&c));
        } else {
            self.nd = d;
            self.tw = t;
        }
    }
}
