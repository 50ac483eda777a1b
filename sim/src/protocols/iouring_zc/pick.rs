//! The choice policy: one spec action drawn with weights from those the
//! state allows now. The kernel's steps (prep, send, flush, task work)
//! and the network stack's frees are the common ones, so that requests
//! complete while skbs still hold their notifications; failures are
//! rarer than full sends, and unregistering the buffer is rare (it turns
//! every later fixed send into -EFAULT).

use ringlab_model::iouring_zc::{Action, PrepOutcome, Req, SendOutcome, SkbId, St, State};
use ringlab_model::rng::Rng;

use super::system::IoUringZc;

impl IoUringZc {
    /// A step drawn from `rng`; None once the run is done or nothing is
    /// enabled.
    pub(crate) fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        if self.is_done() {
            return None;
        }
        let choices = self.choices(rng);
        if choices.is_empty() {
            return None;
        }
        let weights: Vec<u32> = choices.iter().map(|(_, w)| *w).collect();
        Some(choices[rng.weighted(&weights)].0.clone())
    }

    /// An outcome of io_send_zc() for r and the units it queues.
    fn send_outcome(&self, st: &State, r: Req, rng: &mut Rng) -> (SendOutcome, u32) {
        let spec = &self.cfg.spec;
        let sent = st.sent[usize::from(r) - 1];
        let left = spec.req_len - sent;
        let mut outs = vec![(SendOutcome::All, 12)];
        for (o, w) in [
            (SendOutcome::Eagain, 3),
            (SendOutcome::Partial, 2),
            (SendOutcome::Pipe, 1),
            (SendOutcome::Fault, 1),
        ] {
            let room = match o {
                SendOutcome::Fault => sent == 0,
                SendOutcome::Partial => left > 0,
                _ => true,
            };
            if room && o.fail().is_some_and(|f| spec.fails(f)) {
                outs.push((o, w));
            }
        }
        let ws: Vec<u32> = outs.iter().map(|(_, w)| *w).collect();
        let o = outs[rng.weighted(&ws)].0;
        let u = match o {
            SendOutcome::All => left,
            SendOutcome::Pipe | SendOutcome::Fault => 0,
            _ => rng.below(left.max(1)).min(left.saturating_sub(1)),
        };
        (o, u)
    }

    /// The skbs for u units of r: each unit onto r's own skb, a free
    /// slot (each at most once), or (once) another notification's skb;
    /// None if the draw is not one r may use.
    fn skbs_for(&self, st: &State, r: Req, u: u32, rng: &mut Rng) -> Option<Vec<SkbId>> {
        let spec = &self.cfg.spec;
        let mut free: Vec<SkbId> = spec.skb_ids().filter(|&k| st.skb_of(k).uarg == 0).collect();
        let own: Vec<SkbId> = spec.skb_ids().filter(|&k| st.skb_of(k).uarg == r).collect();
        let other: Vec<SkbId> = spec
            .skb_ids()
            .filter(|&k| !matches!(st.skb_of(k).uarg, 0) && st.skb_of(k).uarg != r)
            .collect();
        let mut ks = Vec::new();
        let mut linked = false;
        for _ in 0..u {
            let pick = rng.below(8);
            let k = if pick < 2 && !own.is_empty() {
                own[rng.below(own.len() as u32) as usize]
            } else if pick == 2 && spec.link && !linked && !other.is_empty() {
                linked = true;
                other[rng.below(other.len() as u32) as usize]
            } else if !free.is_empty() {
                free.remove(rng.below(free.len() as u32) as usize)
            } else if !own.is_empty() {
                own[0]
            } else {
                return None;
            };
            ks.push(k);
        }
        self.ctx.is_choice(r, &ks).then_some(ks)
    }

    /// The actions to draw from, with weights.
    fn choices(&self, rng: &mut Rng) -> Vec<(Action, u32)> {
        let spec = &self.cfg.spec;
        let st = self.model_state();
        let mut out = Vec::new();
        let between = st.todo == 0 && !st.issuing() && st.compl.is_empty();
        for r in spec.reqs() {
            match st.st_of(r) {
                St::User if st.sq.len() < spec.sq_size as usize => out.push((Action::UserSubmit(r), 16)),
                St::Issue => {
                    let (o, u) = self.send_outcome(&st, r, rng);
                    if let Some(ks) = self.skbs_for(&st, r, u, rng) {
                        out.push((Action::IoSendZc { r, u, o, ks }, 48));
                    }
                }
                St::Retry if between => out.push((Action::IoPollRetry(r), 16)),
                _ => {}
            }
            if !st.reused[usize::from(r) - 1] && self.app.may_reuse(r, spec.reuse) {
                out.push((Action::UserReuse(r), 8));
            }
        }
        if between && !st.sq.is_empty() {
            out.push((Action::IoUringEnter, 16));
        }
        if st.todo > 0 && !st.issuing() {
            let mut outcomes = vec![(PrepOutcome::Ok, 24)];
            for o in [PrepOutcome::Nomem, PrepOutcome::Inval] {
                if o.fail().is_some_and(|f| spec.fails(f)) {
                    outcomes.push((o, 2));
                }
            }
            let ws: Vec<u32> = outcomes.iter().map(|(_, w)| *w).collect();
            let outcome = outcomes[rng.weighted(&ws)].0;
            out.push((Action::IoSendZcPrep { outcome }, 48));
        }
        if !st.compl.is_empty() && st.todo == 0 && !st.issuing() {
            out.push((Action::IoSubmitFlushCompletions, 32));
        }
        if !st.tw.is_empty() && between {
            out.push((Action::IoRunTaskWork, 32));
        }
        if !st.ovf.is_empty() && st.cq.len() < spec.cq_size as usize {
            out.push((Action::IoCqringOverflowFlush, 16));
        }
        for k in spec.skb_ids() {
            if st.skb_of(k).uarg != 0 {
                out.push((Action::SkbFree(k), 12));
            }
        }
        if !st.cq.is_empty() {
            out.push((Action::UserReap, 24));
        }
        if st.node.contains(&ringlab_model::iouring_zc::Holder::Table) && rng.chance(1, 32) {
            out.push((Action::IoUringUnregisterBuffers, 1));
        }
        out
    }
}
