//! Submission: IoSendZcPrep (io_send_zc_prep) and IoSendZc (io_send_zc,
//! io_link_skb, io_notif_flush) with the operators they use (FailCqe,
//! Linkable, Queue, Choices), and IoPollRetry.

use super::action::{PrepOutcome, SendOutcome};
use super::config::{Config, Mutant};
use super::notif::{dropped, put};
use super::state::{at, members, Cqe, Holder, NdState, Notif, Req, Skb, SkbId, St, State};

/// io_uring's errors (res < 0).
pub const ENOMEM: i64 = -12;
pub const EINVAL: i64 = -22;
pub const EFAULT: i64 = -14;
pub const EPIPE: i64 = -32;

impl State {
    /// FailCqe(r, res): the request CQE of a send that failed
    /// (io_sendrecv_fail): F_MORE iff r allocated a notification, which
    /// io_send_zc_cleanup() flushes; iou-skip-notif: never.
    pub fn fail_cqe(&self, cfg: &Config, r: Req, res: i64) -> Cqe {
        let more = self.nd_of(r).state != NdState::None && cfg.mutant != Mutant::SkipNotif;
        Cqe::req(r, res, more)
    }

    /// IoSendZcPrep with outcome o: io_send_zc_prep() for the SQ's head,
    /// which is then issued (the next SQE waits for that).
    /// "nomem": io_alloc_notif() fails, no notification. "inval", or a
    /// fixed buffer once the table is unregistered (-EFAULT): the
    /// notification was allocated and cleanup flushes it, through Release
    /// (iou-skip-notif: drops it). "ok": the notification with the
    /// submitter's reference; a fixed buffer's rsrc node held by it
    /// (iou-fixedbuf-life: by the request).
    pub fn io_send_zc_prep(&self, cfg: &Config, o: PrepOutcome) -> Option<State> {
        if self.todo == 0 || self.issuing() {
            return None;
        }
        if o.fail().is_some_and(|f| !cfg.fails(f)) {
            return None;
        }
        let r = *self.sq.first()?;
        let mut t = self.clone();
        t.sq.remove(0);
        t.todo -= 1;
        let unregistered = cfg.fixed && !self.node.contains(&Holder::Table);
        // The CASE's arms in order: TLC takes the first that holds.
        if o == PrepOutcome::Nomem {
            t.st[at(r)] = St::Done;
            t.compl.push(Cqe::req(r, ENOMEM, false));
        } else if o == PrepOutcome::Inval || unregistered {
            let res = if o == PrepOutcome::Inval {
                EINVAL
            } else {
                EFAULT
            };
            let mut d = self.nd.clone();
            d[at(r)] = Notif::live(r);
            t.st[at(r)] = St::Done;
            let skip = cfg.mutant == Mutant::SkipNotif;
            if skip {
                dropped(&mut d, r);
                t.nd = d;
            } else {
                let mut tw = self.tw.clone();
                put(&mut d, &mut tw, r);
                t.release(cfg, d, tw);
            }
            t.compl.push(Cqe::req(r, res, !skip));
        } else {
            t.st[at(r)] = St::Issue;
            t.nd[at(r)] = Notif::live(r);
            if cfg.fixed {
                t.node.insert(if cfg.mutant == Mutant::FixedbufLife {
                    Holder::Req(r)
                } else {
                    Holder::Notif(r)
                });
            }
        }
        Some(t)
    }

    /// Linkable(r, k, d): r may put a unit on skb k, which holds another
    /// request's notification (io_link_skb): r is not linked yet and
    /// nothing is linked behind it.
    pub fn linkable(&self, cfg: &Config, r: Req, k: SkbId, d: &[Notif]) -> bool {
        let uarg = self.skb_of(k).uarg;
        cfg.link && uarg != 0 && uarg != r && d[at(r)].head == r && members(d, r).is_empty()
    }

    /// Queue(r, ks, d): the skbs and notifications once the units of r
    /// are queued, unit i into skb ks[i]: a new skb takes a reference on
    /// r's notification (net_zcopy_get); on another's skb (io_link_skb)
    /// r is linked behind the head of that skb's notification n, which
    /// takes a reference for it (iou-link-no-ref: none), and goes right
    /// after n in the head's list.
    pub fn queue(&self, cfg: &Config, r: Req, ks: &[SkbId], d: &[Notif]) -> (Vec<Skb>, Vec<Notif>) {
        let mut s = self.skb.clone();
        let mut dd = d.to_vec();
        for &k in ks {
            let x = &mut s[usize::from(k) - 1];
            if x.uarg == 0 {
                *x = Skb {
                    uarg: r,
                    bufs: [r].into(),
                };
                dd[at(r)].refs += 1;
            } else if x.uarg == r {
                x.bufs.insert(r);
            } else {
                let n = x.uarg;
                let h = dd[at(n)].head;
                x.bufs.insert(r);
                // The EXCEPT's right-hand sides read dd as it was.
                let after = dd[at(n)].next;
                dd[at(r)].head = h;
                dd[at(r)].next = after;
                dd[at(n)].next = r;
                if cfg.mutant != Mutant::LinkNoRef {
                    dd[at(h)].refs += 1;
                }
            }
        }
        (s, dd)
    }

    /// ks \in Choices(r, Len(ks)): a new skb takes one unit, an existing
    /// one is r's own or Linkable, and at most one unit goes onto another
    /// request's skb (io_link_skb links r once).
    pub fn is_choice(&self, cfg: &Config, r: Req, ks: &[SkbId]) -> bool {
        let uarg = |k: SkbId| self.skb_of(k).uarg;
        ks.iter().all(|k| cfg.skb_ids().contains(k))
            && ks.iter().enumerate().all(|(i, &k)| {
                if uarg(k) == 0 {
                    ks.iter().enumerate().all(|(j, &l)| j == i || l != k)
                } else {
                    uarg(k) == r || self.linkable(cfg, r, k, &self.nd)
                }
            })
            && ks.iter().filter(|&&k| uarg(k) != 0 && uarg(k) != r).count() <= 1
    }

    /// Choices(r, u): the skb choices for u units, each a sequence of skb
    /// ids, in lexicographic order.
    pub fn choices(&self, cfg: &Config, r: Req, u: u32) -> Vec<Vec<SkbId>> {
        let mut all: Vec<Vec<SkbId>> = vec![Vec::new()];
        for _ in 0..u {
            all = all
                .into_iter()
                .flat_map(|ks| {
                    cfg.skb_ids().map(move |k| {
                        let mut v = ks.clone();
                        v.push(k);
                        v
                    })
                })
                .collect();
        }
        all.retain(|ks| self.is_choice(cfg, r, ks));
        all
    }

    /// IoSendZc(r) with its choices: io_send_zc() queues u units (ks: the
    /// skb of each) and sendmsg returns o. "fault": io_send_zc_import()
    /// fails (-EFAULT) while nothing is queued yet. "eagain": r waits on
    /// poll with done_io kept. Otherwise the request CQE (F_MORE; FailCqe
    /// for a result below zero) joins the submission's completions and
    /// io_notif_flush() puts the submitter's reference (iou-double-flush:
    /// cleanup puts it again while it is above zero; iou-skip-notif: a
    /// failed request drops the notification instead).
    /// iou-res-requested: a partial send reports ReqLen.
    pub fn io_send_zc(
        &self,
        cfg: &Config,
        r: Req,
        u: u32,
        o: SendOutcome,
        ks: &[SkbId],
    ) -> Option<State> {
        if !cfg.reqs().contains(&r) || self.st_of(r) != St::Issue {
            return None;
        }
        let left = cfg.req_len.checked_sub(self.sent[at(r)])?;
        if u > left || ks.len() != u as usize || (o == SendOutcome::All) != (u == left) {
            return None;
        }
        if o.fail().is_some_and(|f| !cfg.fails(f)) {
            return None;
        }
        if matches!(o, SendOutcome::Pipe | SendOutcome::Fault) && u != 0 {
            return None;
        }
        if o == SendOutcome::Fault && self.sent[at(r)] != 0 {
            return None;
        }
        if !self.is_choice(cfg, r, ks) {
            return None;
        }
        let (skb, mut d) = self.queue(cfg, r, ks, &self.nd);
        let done = self.sent[at(r)] + u;
        let res = match o {
            SendOutcome::Pipe if done == 0 => EPIPE,
            SendOutcome::Fault => EFAULT,
            SendOutcome::Partial if cfg.mutant == Mutant::ResRequested => i64::from(cfg.req_len),
            _ => i64::from(done),
        };
        let mut t = self.clone();
        t.skb = skb;
        t.sent[at(r)] = done;
        if o == SendOutcome::Eagain {
            t.st[at(r)] = St::Retry;
            t.nd = d;
            return Some(t);
        }
        t.st[at(r)] = St::Done;
        t.compl.push(if res < 0 {
            self.fail_cqe(cfg, r, res)
        } else {
            Cqe::req(r, res, true)
        });
        if res < 0 && cfg.mutant == Mutant::SkipNotif {
            dropped(&mut d, r);
            t.nd = d;
        } else {
            let mut tw = self.tw.clone();
            put(&mut d, &mut tw, r);
            if cfg.mutant == Mutant::DoubleFlush && d[at(r)].refs > 0 {
                put(&mut d, &mut tw, r);
            }
            t.release(cfg, d, tw);
        }
        Some(t)
    }

    /// IoPollRetry(r): the poll fires and task work issues r again, once
    /// no submission is in progress.
    pub fn io_poll_retry(&self, cfg: &Config, r: Req) -> Option<State> {
        if !cfg.reqs().contains(&r) || self.st_of(r) != St::Retry {
            return None;
        }
        if self.todo != 0 || self.issuing() || !self.compl.is_empty() {
            return None;
        }
        let mut t = self.clone();
        t.st[at(r)] = St::Issue;
        Some(t)
    }
}
