//! The ring context (struct io_ring_ctx and the submitter's task): the
//! kernel's side of every action, each a method named as the kernel
//! function it mirrors, written to run on any thread. Each checks the
//! spec's guard and returns Disabled, changing nothing, when it is false.
//!
//! The submitter's state (the SQ's consumer, the submission in progress)
//! is behind locks only one thread takes at a time; what the network
//! stack races on is atomic: a notification's reference count, the task
//! work list, the CQ behind the completion lock, the skbs behind the
//! socket's lock.

use std::collections::VecDeque;

use ringlab_model::iouring_zc::{
    Config, NdState, PrepOutcome, Req, SendOutcome, SkbId, St, EFAULT, EINVAL, ENOMEM, EPIPE,
};
use ringlab_ring::sync::Mutex;

use super::cq::Cq;
use super::cqe::{Cqe, Sqe};
use super::notif::Notif;
use super::req::Request;
use super::rings::SqCons;
use super::rsrc::{Buffers, Holder};
use super::skb::{bit, Skb};
use super::{Disabled, Step};

/// The submission in progress (struct io_submit_state).
#[derive(Debug, Default)]
pub struct Submit {
    /// SQEs the io_uring_enter() in progress still submits.
    pub todo: u32,
    /// Request CQEs not yet flushed (state->compl_reqs), oldest first.
    pub compl: Vec<Cqe>,
}

#[derive(Debug)]
pub struct Ctx {
    /// The spec's constants (the mutant is the build's, read by `on`).
    pub spec: Config,
    pub sq: Mutex<SqCons>,
    pub cq: Cq,
    pub reqs: Vec<Request>,
    pub notifs: Vec<Notif>,
    pub skbs: Vec<Skb>,
    pub submit: Mutex<Submit>,
    /// The task's task work: notifications whose last reference dropped.
    pub tw: Mutex<VecDeque<Req>>,
    pub bufs: Buffers,
}

fn lock<T>(m: &Mutex<T>) -> ringlab_ring::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Ctx {
    pub fn new(spec: Config, sq: SqCons, cq: Cq) -> Ctx {
        Ctx {
            reqs: spec.reqs().map(|_| Request::default()).collect(),
            notifs: spec.reqs().map(Notif::new).collect(),
            skbs: spec.skb_ids().map(|_| Skb::default()).collect(),
            bufs: Buffers::new(spec.n_reqs, spec.fixed),
            spec,
            sq: Mutex::new(sq),
            cq,
            submit: Mutex::new(Submit::default()),
            tw: Mutex::new(VecDeque::new()),
        }
    }

    pub fn req(&self, r: Req) -> &Request {
        &self.reqs[usize::from(r) - 1]
    }

    pub fn notif(&self, r: Req) -> &Notif {
        &self.notifs[usize::from(r) - 1]
    }

    pub fn skb(&self, k: SkbId) -> &Skb {
        &self.skbs[usize::from(k) - 1]
    }

    /// A request is being issued (the spec's Issuing).
    pub fn issuing(&self) -> bool {
        self.reqs.iter().any(|q| q.st() == St::Issue)
    }

    /// Nothing of a submission is under way: no SQE left to submit, none
    /// being issued, no CQE waiting for the flush.
    fn between_submissions(&self, s: &Submit) -> bool {
        s.todo == 0 && !self.issuing() && s.compl.is_empty()
    }

    /// io_uring_enter(to_submit) -> io_submit_sqes(): up to Batch SQEs,
    /// as many as the SQ holds (io_sqring_entries), once the last
    /// submission is over.
    pub fn io_submit_sqes(&self) -> Step {
        let no = |why| Err(Disabled::new("IoUringEnter", why));
        let mut s = lock(&self.submit);
        if !self.between_submissions(&s) {
            return no("a submission is under way");
        }
        let n = lock(&self.sq).nb_entries(self.spec.batch);
        if n == 0 {
            return no("the SQ is empty");
        }
        s.todo = n;
        Ok(())
    }

    /// io_send_zc_prep() for the SQ's head with outcome o, which
    /// io_submit_sqes() then issues. io_get_sqe() consumes the entry and
    /// the SQ's head is published at once (the spec's sq frees the entry
    /// here, as io_commit_sqring() would at the end of a one-SQE batch).
    pub fn io_send_zc_prep(&self, o: PrepOutcome) -> Step {
        let no = |why: &str| Err(Disabled::new("IoSendZcPrep", why));
        if o.fail().is_some_and(|f| !self.spec.fails(f)) {
            return no("the outcome is not in Fails");
        }
        let mut s = lock(&self.submit);
        if s.todo == 0 || self.issuing() {
            return no("no SQE left to submit, or one is being issued");
        }
        let sqe: Sqe = {
            let mut sq = lock(&self.sq);
            let Some(e) = sq.peek_entry() else {
                return no("the SQ is empty");
            };
            sq.release();
            sq.publish();
            e
        };
        s.todo -= 1;
        let r = Req::try_from(sqe.user_data).expect("user_data is a request number");
        let unregistered = sqe.fixed && !self.bufs.table();
        let skip = ringlab_mutant::on("mutant-iou-skip-notif");
        if o == PrepOutcome::Nomem {
            // io_alloc_notif() fails: -ENOMEM, no notification.
            self.req(r).set_st(St::Done);
            s.compl.push(Cqe::req(r, ENOMEM, false));
        } else if o == PrepOutcome::Inval || unregistered {
            // A bad flag (-EINVAL), or a fixed buffer index past the table
            // (-EFAULT): the notification was allocated; io_sendrecv_fail()
            // sets F_MORE and io_send_zc_cleanup() flushes it.
            let res = if o == PrepOutcome::Inval { EINVAL } else { EFAULT };
            self.notif(r).alloc(r);
            self.req(r).set_st(St::Done);
            // mutant-iou-skip-notif: the failed request frees its
            // notification unposted, its CQE without F_MORE (before
            // 6ae91ac9a6aa).
            if skip {
                self.notif(r).drop_unposted();
            } else {
                self.io_tx_ubuf_complete(r);
            }
            s.compl.push(Cqe::req(r, res, !skip));
        } else {
            // The notification with the submitter's reference; a fixed
            // buffer's rsrc node goes to the notification
            // (io_req_set_rsrc_node(notif)).
            self.req(r).set_st(St::Issue);
            self.notif(r).alloc(r);
            if sqe.fixed {
                // mutant-iou-fixedbuf-life: the node is the request's, and
                // goes when the request is freed, skbs or not.
                let h = if ringlab_mutant::on("mutant-iou-fixedbuf-life") {
                    Holder::Req(r)
                } else {
                    Holder::Notif(r)
                };
                self.bufs.hold(h);
            }
        }
        Ok(())
    }

    /// Members(nd, r): allocated notifications linked behind r.
    fn has_members(&self, r: Req) -> bool {
        self.spec
            .reqs()
            .any(|n| n != r && self.notif(n).head() == r && self.notif(n).state() != NdState::None)
    }

    /// io_link_skb()'s test: r may append to skb k, which holds another
    /// notification: linking is on, r is not linked and has no members.
    fn linkable(&self, r: Req, uarg: Req) -> bool {
        self.spec.link && uarg != 0 && uarg != r && self.notif(r).head() == r && !self.has_members(r)
    }

    /// Whether r may queue its units into skbs `ks` (the spec's Choices):
    /// a new skb takes one unit, an existing one is r's own or one it may
    /// link to, and at most one unit goes onto another's skb.
    pub fn is_choice(&self, r: Req, ks: &[SkbId]) -> bool {
        if !ks.iter().all(|k| self.spec.skb_ids().contains(k)) {
            return false;
        }
        let uarg: Vec<Req> = ks.iter().map(|&k| self.skb(k).get().uarg).collect();
        let fresh_once = ks
            .iter()
            .enumerate()
            .all(|(i, k)| uarg[i] != 0 || ks.iter().enumerate().all(|(j, l)| j == i || l != k));
        let usable = uarg.iter().all(|&n| n == 0 || n == r || self.linkable(r, n));
        let foreign = uarg.iter().filter(|&&n| n != 0 && n != r).count();
        fresh_once && usable && foreign <= 1
    }

    /// sendmsg's zero-copy path for one unit of r into skb k: a new skb
    /// takes a reference on r's notification (net_zcopy_get); on another
    /// notification's skb, io_link_skb() links r behind that one's head,
    /// which takes a reference for it. The skb pins r's pages.
    fn queue_unit(&self, r: Req, k: SkbId) {
        self.skb(k).with(|s| {
            if !s.carries(r) {
                self.bufs.pin(r);
            }
            if s.uarg == 0 {
                s.uarg = r;
                s.bufs = bit(r);
                self.notif(r).get();
                return;
            }
            s.bufs |= bit(r);
            if s.uarg != r {
                let n = s.uarg;
                let h = self.notif(n).head();
                self.notif(r).link(h, self.notif(n).next());
                self.notif(n).set_next(r);
                self.notif(h).get();
            }
        })
    }

    /// io_send_zc() for r: sendmsg queues u units, unit i into skb ks[i],
    /// and returns o. -EAGAIN: r waits on poll, done_io kept. Otherwise
    /// the request CQE (F_MORE) joins the submission's completions and
    /// io_notif_flush() puts the submitter's reference.
    pub fn io_send_zc(&self, r: Req, u: u32, o: SendOutcome, ks: &[SkbId]) -> Step {
        let no = |why: &str| Err(Disabled::new("IoSendZc", why));
        if !self.spec.reqs().contains(&r) || self.req(r).st() != St::Issue {
            return no("the request is not being issued");
        }
        let sent = self.req(r).sent();
        let Some(left) = self.spec.req_len.checked_sub(sent) else {
            return no("more sent than asked");
        };
        if u > left || ks.len() != u as usize || (o == SendOutcome::All) != (u == left) {
            return no("the units do not match the outcome");
        }
        if o.fail().is_some_and(|f| !self.spec.fails(f)) {
            return no("the outcome is not in Fails");
        }
        if matches!(o, SendOutcome::Pipe | SendOutcome::Fault) && u != 0 {
            return no("-EPIPE and -EFAULT queue nothing");
        }
        if o == SendOutcome::Fault && sent != 0 {
            return no("io_send_zc_import() runs before the first sendmsg only");
        }
        if !self.is_choice(r, ks) {
            return no("the skbs are not ones r may use");
        }
        for &k in ks {
            self.queue_unit(r, k);
        }
        self.req(r).add_sent(u);
        let done = sent + u;
        let res = match o {
            SendOutcome::Pipe if done == 0 => EPIPE,
            SendOutcome::Fault => EFAULT,
            _ => i64::from(done),
        };
        if o == SendOutcome::Eagain {
            self.req(r).set_st(St::Retry);
            return Ok(());
        }
        let skip = ringlab_mutant::on("mutant-iou-skip-notif");
        let more = res >= 0 || !skip;
        lock(&self.submit).compl.push(Cqe::req(r, res, more));
        self.req(r).set_st(St::Done);
        if res < 0 && skip {
            // mutant-iou-skip-notif: the failed request frees its
            // notification unposted.
            self.notif(r).drop_unposted();
        } else {
            self.io_tx_ubuf_complete(r);
        }
        Ok(())
    }

    /// The poll fires and task work issues r again (io_poll_task_func),
    /// once no submission is under way.
    pub fn io_poll_retry(&self, r: Req) -> Step {
        let s = lock(&self.submit);
        if !self.spec.reqs().contains(&r) || self.req(r).st() != St::Retry {
            return Err(Disabled::new("IoPollRetry", "the request is not waiting on poll"));
        }
        if !self.between_submissions(&s) {
            return Err(Disabled::new("IoPollRetry", "a submission is under way"));
        }
        self.req(r).set_st(St::Issue);
        Ok(())
    }

    /// io_submit_flush_completions(): the submission's request CQEs
    /// posted once its SQEs are issued, each request then freed
    /// (io_free_batch_list, which puts a request's rsrc node).
    pub fn io_submit_flush_completions(&self) -> Step {
        let mut s = lock(&self.submit);
        if s.compl.is_empty() || s.todo != 0 || self.issuing() {
            return Err(Disabled::new(
                "IoSubmitFlushCompletions",
                "no completion, or SQEs still to issue",
            ));
        }
        let compl = std::mem::take(&mut s.compl);
        self.cq.post_all(&compl);
        for c in &compl {
            self.bufs.put(Holder::Req(c.r()));
        }
        Ok(())
    }

    /// io_tx_ubuf_complete(): one reference of n put. At zero a member
    /// puts its head's; a head whose count reaches zero is queued as task
    /// work (io_notif_tw_complete), which the submitter's task runs.
    pub fn io_tx_ubuf_complete(&self, n: Req) {
        if !self.notif(n).dec_and_test() {
            return;
        }
        let h = self.notif(n).head();
        if h != n && !self.notif(h).dec_and_test() {
            return;
        }
        self.notif(h).set_state(NdState::Tw);
        // mutant-iou-notif-order: the notification is completed from the
        // put that drops its last reference, before the request CQEs of
        // the submission are flushed.
        if ringlab_mutant::on("mutant-iou-notif-order") {
            self.io_notif_tw_complete(h);
        } else {
            lock(&self.tw).push_back(h);
        }
    }

    /// io_notif_tw_complete() for head h: h and those linked behind it,
    /// in nd->next order, each posted (io_req_task_complete) and its rsrc
    /// node put. At most NReqs steps along the list, as the spec's Chain.
    pub fn io_notif_tw_complete(&self, h: Req) {
        let mut chain = vec![h];
        for _ in 0..self.spec.n_reqs {
            let next = self.notif(chain[chain.len() - 1]).next();
            if next == 0 {
                break;
            }
            chain.push(next);
        }
        let cqes: Vec<Cqe> = chain.iter().map(|&n| Cqe::notif(n)).collect();
        self.cq.post_all(&cqes);
        for &n in &chain {
            self.notif(n).set_state(NdState::Posted);
            self.bufs.put(Holder::Notif(n));
        }
    }

    /// The task runs its oldest task work (io_run_task_work), once the
    /// submission's completions are flushed.
    pub fn io_run_task_work(&self) -> Step {
        let s = lock(&self.submit);
        if !s.compl.is_empty() || s.todo != 0 || self.issuing() {
            return Err(Disabled::new("IoRunTaskWork", "a submission is under way"));
        }
        drop(s);
        let Some(h) = lock(&self.tw).pop_front() else {
            return Err(Disabled::new("IoRunTaskWork", "no task work"));
        };
        self.io_notif_tw_complete(h);
        Ok(())
    }

    /// io_cqring_overflow_flush(): the oldest overflowed CQE into the CQ.
    pub fn io_cqring_overflow_flush(&self) -> Step {
        if self.cq.overflow_flush() {
            Ok(())
        } else {
            Err(Disabled::new(
                "IoCqringOverflowFlush",
                "nothing overflowed, or the CQ is full",
            ))
        }
    }

    /// The stack frees skb k (skb_zcopy_clear): its pages unpinned, the
    /// reference it held put.
    pub fn skb_free(&self, k: SkbId) -> Step {
        if !self.spec.skb_ids().contains(&k) {
            return Err(Disabled::new("SkbFree", format!("no skb {k}")));
        }
        let Some(s) = self.skb(k).free() else {
            return Err(Disabled::new("SkbFree", format!("skb {k} is not in use")));
        };
        for r in s.reqs() {
            self.bufs.unpin(r);
        }
        self.io_tx_ubuf_complete(s.uarg);
        Ok(())
    }

    /// The submission's state now: SQEs to submit and CQEs to flush.
    pub fn submit_state(&self) -> (u32, Vec<Cqe>) {
        let s = lock(&self.submit);
        (s.todo, s.compl.clone())
    }

    /// The task work queued, oldest first.
    pub fn task_work(&self) -> Vec<Req> {
        lock(&self.tw).iter().copied().collect()
    }
}
