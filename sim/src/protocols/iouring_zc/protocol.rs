//! io_uring SEND_ZC as a protocol of the harness: [`IoUringZc`] stepped
//! one action of specs/IoUringZcNotif.tla at a time, the concrete checks
//! and every spec invariant after each (see [`super::invariants`]), then
//! drained: every request submitted, issued and completed, every skb
//! freed, every task work run and every CQE reaped, after which every
//! notification has posted its one CQE and no page is pinned.

use std::collections::BTreeMap;

use ringlab_model::iouring_zc::{self as model, Action, PrepOutcome, SendOutcome, SkbId, St};
use ringlab_model::rng::Rng;
use serde::Serialize;

use super::config::IoUringZcConfig;
use super::invariants;
use super::system::IoUringZc;
use crate::harness::{Protocol, Stats, Violation};
use crate::Disabled;

/// The trace header's name of this protocol.
pub const NAME: &str = "iouring_zc";

/// Drain steps at most: each request needs a handful, each CQE one reap.
const DRAIN_BOUND: u64 = 100_000;

/// What a clean run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    pub steps: u64,
    /// Invariant checks made (each covers every invariant).
    pub checks: u64,
    /// Steps of each action.
    pub actions: BTreeMap<&'static str, u64>,
    /// CQEs posted: request CQEs and notifications.
    pub request_cqes: u64,
    pub notif_cqes: u64,
    /// CQEs that waited on the overflow list (the drain's moves too).
    pub overflowed: u64,
    /// Notifications linked behind another's (io_link_skb).
    pub linked: u64,
}

impl Protocol for IoUringZc {
    const NAME: &'static str = NAME;
    type Config = IoUringZcConfig;
    type Action = Action;
    type Spec = model::State;
    type Report = Report;

    fn new(cfg: IoUringZcConfig) -> Result<Self, String> {
        IoUringZc::new(cfg)
    }
    fn config(&self) -> &IoUringZcConfig {
        &self.cfg
    }
    fn seed(&self) -> u64 {
        self.cfg.seed
    }
    fn name(a: &Action) -> &'static str {
        a.name()
    }
    fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        IoUringZc::pick(self, rng)
    }
    fn step(&mut self, a: &Action) -> Result<(), Disabled> {
        IoUringZc::step(self, a)
    }

    /// What only the concrete state shows, then the spec's invariants.
    fn check(&self) -> Result<(), Violation> {
        invariants::concrete(self).map_err(Violation::concrete)?;
        invariants::check(self).map(|_| ())
    }

    /// The next step towards every request done and every CQE reaped:
    /// the request being issued sends the rest (into its own skb, else
    /// fresh ones, else an skb is freed first), the submission goes on,
    /// its completions are flushed, task work runs, a retry is issued,
    /// the SQ is submitted, overflowed CQEs move in, CQEs are reaped,
    /// skbs are freed, requests not yet submitted are; None once done.
    fn drain(&mut self, _: &mut Rng) -> Result<Option<Action>, String> {
        if self.drained >= DRAIN_BOUND {
            return Err(format!("the drain took {DRAIN_BOUND} steps and is not done"));
        }
        self.drained += 1;
        let spec = self.cfg.spec.clone();
        let st = self.model_state();
        let between = st.todo == 0 && !st.issuing() && st.compl.is_empty();
        let used = |k: SkbId| st.skb_of(k).uarg != 0;
        if let Some(r) = spec.reqs().find(|&r| st.st_of(r) == St::Issue) {
            let u = spec.req_len - st.sent[usize::from(r) - 1];
            let own = spec.skb_ids().find(|&k| st.skb_of(k).uarg == r);
            let free: Vec<SkbId> = spec.skb_ids().filter(|&k| !used(k)).collect();
            let all = |ks| Action::IoSendZc { r, u, o: SendOutcome::All, ks };
            if let Some(k) = own {
                return Ok(Some(all(vec![k; u as usize])));
            }
            if free.len() >= u as usize {
                return Ok(Some(all(free[..u as usize].to_vec())));
            }
            if let Some(k) = spec.skb_ids().find(|&k| used(k)) {
                return Ok(Some(Action::SkbFree(k)));
            }
            // Fewer skbs than units: a fresh skb each, the rest after a
            // retry onto r's own.
            let short = [SendOutcome::Eagain, SendOutcome::Partial]
                .into_iter()
                .find(|o| o.fail().is_some_and(|f| spec.fails(f)))
                .ok_or_else(|| format!("request {r} cannot send {u} units into {} skbs without eagain or partial", free.len()))?;
            let ks = free.clone();
            return Ok(Some(Action::IoSendZc { r, u: ks.len() as u32, o: short, ks }));
        }
        let next = if st.todo > 0 {
            Some(Action::IoSendZcPrep { outcome: PrepOutcome::Ok })
        } else if !st.compl.is_empty() {
            Some(Action::IoSubmitFlushCompletions)
        } else if !st.tw.is_empty() {
            Some(Action::IoRunTaskWork)
        } else if let Some(r) = spec.reqs().find(|&r| st.st_of(r) == St::Retry) {
            Some(Action::IoPollRetry(r))
        } else if between && !st.sq.is_empty() {
            Some(Action::IoUringEnter)
        } else if !st.ovf.is_empty() && st.cq.len() < spec.cq_size as usize {
            Some(Action::IoCqringOverflowFlush)
        } else if !st.cq.is_empty() {
            Some(Action::UserReap)
        } else if let Some(k) = spec.skb_ids().find(|&k| used(k)) {
            Some(Action::SkbFree(k))
        } else if let Some(r) = spec.reqs().find(|&r| st.st_of(r) == St::User) {
            Some(Action::UserSubmit(r))
        } else {
            spec.reqs()
                .find(|&r| !st.reused[usize::from(r) - 1] && self.app.may_reuse(r, spec.reuse))
                .map(Action::UserReuse)
        };
        Ok(next)
    }

    fn quiescent(&self) -> Result<(), String> {
        invariants::quiescent(self)?;
        let st = self.model_state();
        if let Some(r) = self.cfg.spec.reqs().find(|&r| st.st_of(r) != St::Done) {
            return Err(format!("request {r} is {}", st.st_of(r).id()));
        }
        Ok(())
    }

    fn project(&self) -> model::State {
        self.model_state()
    }

    fn report(&self, stats: &Stats) -> Report {
        let st = self.model_state();
        let notif_cqes = st.posted.iter().filter(|c| c.notif).count() as u64;
        Report {
            seed: self.cfg.seed,
            steps: stats.steps,
            checks: stats.checks,
            actions: stats.actions.clone(),
            request_cqes: st.posted.len() as u64 - notif_cqes,
            notif_cqes,
            overflowed: self.ctx.cq.locked(|c| c.overflowed),
            linked: st.nd.iter().enumerate().filter(|(i, n)| usize::from(n.head) != i + 1).count() as u64,
        }
    }
}
