//! A live run onto the model: each scenario step becomes actions of
//! IoUringZcNotif (ringlab_model::iouring_zc), the outcome of each send
//! chosen by its failure class (class.rs), and the kernel's CQEs, in the
//! order they were reaped, replayed through the model: a CQE is reaped
//! from the model's CQ (IoCqringOverflowFlush moving the overflow list
//! up first), and a notification the model has not posted yet is posted
//! by freeing the skb that holds its reference (SkbFree, IoRunTaskWork),
//! the kernel's order choosing among the orders the model allows. A CQE
//! the model cannot post there, one it still owes at the batch's end, an
//! overflow the kernel did not flag, a buffer reused too early or a
//! broken invariant is a divergence.
//!
//! One profile rule (class.rs, Class::posted_late): the notification of
//! a send that fails before sock_sendmsg() is flushed by
//! io_send_zc_cleanup() once the submission's CQEs are posted, and a TCP
//! send that faults may have been linked behind another's notification
//! first, where the model puts either at the failure; such a
//! notification, and only such, may come later in the kernel than in the
//! model. The model's is reaped then and the kernel's is owed until the
//! batch's end.
//!
//! What the projection drops: payload sizes (each send is one unit,
//! ReqLen 1), errno values (class.rs), which skbs the stack used and when
//! it freed them (each send puts its unit on an skb of its own; with no
//! links, Link is FALSE), the zero-copy/copied usage bit, and plain
//! IORING_OP_SEND requests, which the spec does not have (expect.rs
//! checks them by rule).

use serde::{Deserialize, Serialize};

use ringlab_model::iouring_zc::{Action, Config, Fail, Mutant, Req, Reuse, SendOutcome, St, State, INVARIANTS};

use super::class::{classes, Class};
use super::expect::{plain_mismatch, zc_mismatch};
use super::obs::{CqeObs, Live};
use super::scenario::{Request, Scenario, Step};

/// Where the kernel and the model part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// The step of the scenario (its batch, reset or unregistration).
    pub step: usize,
    /// The CQE of that batch, if one is at fault.
    pub cqe: Option<usize>,
    pub why: String,
}

/// The model's side of an agreed run.
#[derive(Clone, Debug)]
pub struct Projection {
    pub config: Config,
    /// Init and the state after each action.
    pub states: Vec<State>,
    pub actions: Vec<Action>,
    /// Kernel CQEs checked against the model or a rule.
    pub compared: u64,
    /// Notifications the kernel posted later than the model under the
    /// profile rule (Class::posted_late).
    pub deferred: u64,
}

/// The model's constants for `s`, as the kernel set up its ring.
pub fn config(s: &Scenario, live: &Live) -> Config {
    let n = s.zc_count().max(1) as u8;
    Config {
        n_reqs: n,
        req_len: 1,
        max_skbs: n,
        sq_size: live.sq_entries,
        cq_size: live.cq_entries,
        batch: live.sq_entries,
        fixed: s.fixed,
        link: false,
        fails: Fail::ALL.to_vec(),
        reuse: Reuse::Notif,
        mutant: Mutant::None,
    }
}

struct Replay<'a> {
    cfg: Config,
    s: &'a Scenario,
    reqs: Vec<&'a Request>,
    classes: Vec<Class>,
    /// The model's request of each scenario request (zero-copy sends).
    model_req: Vec<Option<Req>>,
    /// The scenario request (from 0) of each model request (from 1).
    of_model: Vec<usize>,
    states: Vec<State>,
    actions: Vec<Action>,
    compared: u64,
    deferred: u64,
    /// Notifications the model posted early under the profile rule,
    /// which the kernel still owes.
    owed: Vec<ringlab_model::iouring_zc::Cqe>,
    step: usize,
}

/// Replays `live`, the run of `s`, through the model.
pub fn project(s: &Scenario, live: &Live) -> Result<Projection, Divergence> {
    let cfg = config(s, live);
    let reqs: Vec<&Request> = s.requests().collect();
    let mut k = 0;
    let model_req: Vec<Option<Req>> = reqs.iter().map(|r| r.zc.then(|| { k += 1; k as Req })).collect();
    let of_model = (0..reqs.len()).filter(|&i| reqs[i].zc).collect();
    let mut r = Replay {
        states: vec![State::init(&cfg)],
        cfg,
        s,
        classes: classes(s),
        reqs,
        model_req,
        of_model,
        actions: Vec::new(),
        compared: 0,
        deferred: 0,
        owed: Vec::new(),
        step: 0,
    };
    let mut batch = 0;
    let mut first = 0;
    for (i, step) in s.steps.iter().enumerate() {
        r.step = i;
        match step {
            Step::PeerReset => {}
            Step::Unregister => r.act(Action::IoUringUnregisterBuffers, None)?,
            Step::Batch(b) => {
                let obs = live.batches.get(batch).ok_or_else(|| r.div(None, "the run has fewer batches than the scenario".into()))?;
                r.batch(first, b.len(), obs)?;
                first += b.len();
                batch += 1;
            }
        }
    }
    if let Some(c) = live.late.first() {
        return Err(r.div(None, format!("after the last batch the kernel posted {c:?}, which no request is owed")));
    }
    Ok(Projection { config: r.cfg, states: r.states, actions: r.actions, compared: r.compared, deferred: r.deferred })
}

impl Replay<'_> {
    fn div(&self, cqe: Option<usize>, why: String) -> Divergence {
        Divergence { step: self.step, cqe, why }
    }

    fn now(&self) -> &State {
        self.states.last().expect("init is there")
    }

    /// Takes `a` in the model; not enabled, or breaking an invariant, is a
    /// divergence.
    fn act(&mut self, a: Action, cqe: Option<usize>) -> Result<(), Divergence> {
        let Some(t) = self.now().step(&self.cfg, &a) else {
            return Err(self.div(cqe, format!("the model cannot take {a} here")));
        };
        let names: Vec<&str> = INVARIANTS.iter().map(|(n, _)| *n).collect();
        if let Some(v) = t.violated(&self.cfg, &names) {
            return Err(self.div(cqe, format!("{a} breaks the model's invariant {v}")));
        }
        self.states.push(t);
        self.actions.push(a);
        Ok(())
    }

    /// Requests first .. first + n: their SQEs, one io_uring_enter(), the
    /// sends, the flush; then the kernel's CQEs reaped through the model.
    fn batch(&mut self, first: usize, n: usize, obs: &super::obs::BatchObs) -> Result<(), Divergence> {
        if obs.submitted != n {
            return Err(self.div(None, format!("io_uring_enter() submitted {} of {n} SQEs", obs.submitted)));
        }
        let zc: Vec<Req> = (first..first + n).filter_map(|i| self.model_req[i]).collect();
        // The model requests of the batch's notifications, in the kernel's order.
        let korder: Vec<Req> = obs.cqes.iter().filter(|c| c.notif()).filter_map(|c| self.model_req.get((c.user_data as usize).checked_sub(1)?).copied().flatten()).collect();
        for &r in &zc {
            self.act(Action::UserSubmit(r), None)?;
        }
        if !zc.is_empty() {
            self.act(Action::IoUringEnter, None)?;
            for &r in &zc {
                let c = self.classes[self.of_model[usize::from(r) - 1]];
                self.act(Action::IoSendZcPrep { outcome: c.prep() }, None)?;
                if self.now().st_of(r) == St::Issue {
                    let o = c.send().ok_or_else(|| self.div(None, format!("the model issues request {r}, which class {c:?} fails in io_send_zc_prep()")))?;
                    let (u, ks) = if o == SendOutcome::All { (1, vec![self.free_skb()]) } else { (0, vec![]) };
                    if o != SendOutcome::All {
                        // r's notification is queued now: those the
                        // kernel posted before it go first.
                        self.free_before(&korder, r)?;
                    }
                    self.act(Action::IoSendZc { r, u, o, ks }, None)?;
                }
            }
            self.act(Action::IoSubmitFlushCompletions, None)?;
            if !self.now().ovf.is_empty() && !obs.overflow_flag {
                return Err(self.div(None, format!("the model's flush overflows a CQ of {} ({} CQEs waiting), the kernel set no IORING_SQ_CQ_OVERFLOW", self.cfg.cq_size, self.now().ovf.len())));
            }
            if obs.overflow_flag {
                self.overflow(&korder, n - zc.len())?;
            }
        }
        if obs.dropped != 0 {
            return Err(self.div(None, format!("the kernel dropped {} CQEs on overflow (IORING_FEAT_NODROP)", obs.dropped)));
        }
        // Zero-copy sends are the model's to check; plain ones are ticked here.
        let mut plain_done: Vec<bool> = (first..first + n).map(|i| self.reqs[i].zc).collect();
        for (j, k) in obs.cqes.iter().enumerate() {
            let i = (k.user_data as usize).checked_sub(first + 1).filter(|&i| i < n).map(|i| i + first);
            match i.map(|i| (i, self.model_req[i])) {
                Some((i, None)) => {
                    let why = if plain_done[i - first] { Some("a second CQE for a plain send".to_string()) } else { plain_mismatch(self.classes[i], self.reqs[i].len, k) };
                    if let Some(w) = why {
                        return Err(self.div(Some(j), format!("user_data {}: {w}", k.user_data)));
                    }
                    plain_done[i - first] = true;
                    self.compared += 1;
                }
                _ => self.reap(j, k)?,
            }
        }
        if let Some(i) = plain_done.iter().position(|d| !d) {
            return Err(self.div(None, format!("the plain send of user_data {} got no CQE", first + i + 1)));
        }
        self.owed_nothing()
    }

    /// Frees the skbs of the notifications the kernel posted before r's
    /// (the stack freed them before r was issued).
    fn free_before(&mut self, korder: &[Req], r: Req) -> Result<(), Divergence> {
        let Some(pos) = korder.iter().position(|&x| x == r) else { return Ok(()) };
        for &x in &korder[..pos] {
            if let Some(k) = self.cfg.skb_ids().find(|&k| self.now().skb_of(k).uarg == x) {
                self.act(Action::SkbFree(k), None)?;
            }
        }
        Ok(())
    }

    /// The kernel flagged IORING_SQ_CQ_OVERFLOW as io_uring_enter()
    /// returned: notifications came (task work, on the way out) while the
    /// CQ held the batch's CQEs. The model posts them, in the kernel's
    /// order, until its CQ overflows too; not being able to is a
    /// divergence.
    fn overflow(&mut self, korder: &[Req], plain: usize) -> Result<(), Divergence> {
        let mut next = korder.iter();
        while self.now().ovf.is_empty() {
            if !self.now().tw.is_empty() {
                self.act(Action::IoRunTaskWork, None)?;
                continue;
            }
            let Some(&r) = next.next() else {
                // The plain sends' CQEs, which the model has not, take
                // CQ slots too.
                if self.now().cq.len() + plain > self.cfg.cq_size as usize {
                    return Ok(());
                }
                return Err(self.div(None, format!("the kernel set IORING_SQ_CQ_OVERFLOW; the model's CQ of {} cannot overflow with this batch's CQEs ({plain} of plain sends besides)", self.cfg.cq_size)));
            };
            if let Some(k) = self.cfg.skb_ids().find(|&k| self.now().skb_of(k).uarg == r) {
                self.act(Action::SkbFree(k), None)?;
            }
        }
        Ok(())
    }

    /// An skb slot no notification holds (each request has its own).
    fn free_skb(&self) -> u8 {
        self.cfg.skb_ids().find(|&k| self.now().skb_of(k).uarg == 0).expect("MaxSkbs is NReqs: a slot is free")
    }

    /// The kernel's CQE `k` (the j-th of its batch) as the model's next,
    /// or as one the model posted early under the profile rule.
    fn reap(&mut self, j: usize, k: &CqeObs) -> Result<(), Divergence> {
        if let Some(at) = self.owed.iter().position(|m| k.notif() && self.user_data(m.r) == k.user_data) {
            let m = self.owed.remove(at);
            self.check(j, &m, k)?;
            return self.act(Action::UserReuse(m.r), Some(j));
        }
        loop {
            let s = self.now();
            if let Some(m) = s.cq.first().copied() {
                let i = self.of_model[usize::from(m.r) - 1];
                if m.notif && i as u64 + 1 != k.user_data && self.classes[i].posted_late(self.s.fixed, self.s.transport.tcp()) {
                    // The kernel posts this one later (cleanup, or a chain): it owes it.
                    self.act(Action::UserReap, Some(j))?;
                    self.owed.push(m);
                    self.deferred += 1;
                    continue;
                }
                self.check(j, &m, k)?;
                self.act(Action::UserReap, Some(j))?;
                // The driver writes into the buffer once its request is over.
                if m.notif || !m.more {
                    self.act(Action::UserReuse(m.r), Some(j))?;
                }
                return Ok(());
            }
            if !s.ovf.is_empty() {
                self.act(Action::IoCqringOverflowFlush, Some(j))?;
            } else if !s.tw.is_empty() {
                self.act(Action::IoRunTaskWork, Some(j))?;
            } else if let Some(sk) = self.skb_for(k) {
                self.act(Action::SkbFree(sk), Some(j))?;
            } else {
                return Err(self.div(Some(j), format!("the kernel posts {k:?}; the model has nothing to post")));
            }
        }
    }

    fn user_data(&self, r: Req) -> u64 {
        self.of_model[usize::from(r) - 1] as u64 + 1
    }

    /// The kernel's CQE `k` against the model's `m`.
    fn check(&mut self, j: usize, m: &ringlab_model::iouring_zc::Cqe, k: &CqeObs) -> Result<(), Divergence> {
        let i = self.of_model[usize::from(m.r) - 1];
        if let Some(w) = zc_mismatch(m, i as u64 + 1, self.classes[i], self.reqs[i].len, self.s.report_usage, k) {
            return Err(self.div(Some(j), w));
        }
        self.compared += 1;
        Ok(())
    }

    /// The skb whose free posts `k`'s notification: one holding a
    /// reference on the notification of k's request.
    fn skb_for(&self, k: &CqeObs) -> Option<u8> {
        if !k.notif() {
            return None;
        }
        let i = (k.user_data as usize).checked_sub(1)?;
        let r = (*self.model_req.get(i)?)?;
        self.cfg.skb_ids().find(|&sk| self.now().skb_of(sk).uarg == r)
    }

    /// At the batch's end the model owes no CQE: none in its CQ, overflow
    /// list or task work, no notification held by an skb.
    fn owed_nothing(&self) -> Result<(), Divergence> {
        let s = self.now();
        let mut owed: Vec<String> = self.owed.iter().map(|m| format!("{m:?} (posted by the model, owed by the kernel)")).collect();
        owed.extend(s.cq.iter().chain(&s.ovf).map(|c| format!("{c:?}")));
        owed.extend(s.tw.iter().map(|r| format!("the notification of request {r} (task work)")));
        owed.extend(self.cfg.skb_ids().map(|k| s.skb_of(k).uarg).filter(|&u| u != 0).map(|u| format!("the notification of request {u} (an skb holds it)")));
        if owed.is_empty() {
            return Ok(());
        }
        Err(self.div(None, format!("the kernel's batch is over, the model still posts: {}", owed.join("; "))))
    }
}
