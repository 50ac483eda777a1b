//! Next: every action with every choice its \E allows, in the spec's order.

use super::action::{Action, PrepOutcome, SendOutcome};
use super::config::Config;
use super::state::{at, St, State};

impl State {
    /// Apply one action with its choices; None if it is not enabled (or
    /// names a request or skb outside the config).
    pub fn step(&self, cfg: &Config, action: &Action) -> Option<State> {
        match action {
            Action::UserSubmit(r) => self.user_submit(cfg, *r),
            Action::IoUringEnter => self.io_uring_enter(cfg),
            Action::IoSendZcPrep { outcome } => self.io_send_zc_prep(cfg, *outcome),
            Action::IoSendZc { r, u, o, ks } => self.io_send_zc(cfg, *r, *u, *o, ks),
            Action::IoPollRetry(r) => self.io_poll_retry(cfg, *r),
            Action::IoSubmitFlushCompletions => self.io_submit_flush_completions(cfg),
            Action::IoRunTaskWork => self.io_run_task_work(cfg),
            Action::IoCqringOverflowFlush => self.io_cqring_overflow_flush(cfg),
            Action::SkbFree(k) => self.skb_free(cfg, *k),
            Action::UserReap => self.user_reap(cfg),
            Action::UserReuse(r) => self.user_reuse(cfg, *r),
            Action::IoUringUnregisterBuffers => self.io_uring_unregister_buffers(cfg),
            Action::Done => self.done(cfg),
        }
    }

    /// Every action instance Next could take, in TLC's order: Next's
    /// disjuncts (per request: UserSubmit, UserReuse, IoSendZc,
    /// IoPollRetry), each \E's set in TLC's order, and of several bound
    /// variables the first varying fastest (IoSendZc's u within o). In
    /// this order the search stops at a violation with TLC's count of
    /// distinct states. IoSendZc is listed only for a request being
    /// issued, with Choices of this state: no other instance is ever
    /// enabled.
    pub fn candidate_actions(&self, cfg: &Config) -> Vec<Action> {
        let mut out = Vec::new();
        for r in cfg.reqs() {
            out.push(Action::UserSubmit(r));
            out.push(Action::UserReuse(r));
            if self.st_of(r) == St::Issue {
                let left = cfg.req_len.saturating_sub(self.sent[at(r)]);
                let choices: Vec<_> = (0..=left).map(|u| self.choices(cfg, r, u)).collect();
                for o in SendOutcome::ALL {
                    for (u, ks) in (0..=left).zip(&choices) {
                        out.extend(ks.iter().map(|ks| Action::IoSendZc {
                            r,
                            u,
                            o,
                            ks: ks.clone(),
                        }));
                    }
                }
            }
            out.push(Action::IoPollRetry(r));
        }
        out.push(Action::IoUringEnter);
        out.push(Action::UserReap);
        out.push(Action::IoUringUnregisterBuffers);
        out.extend(
            PrepOutcome::ALL
                .into_iter()
                .map(|outcome| Action::IoSendZcPrep { outcome }),
        );
        out.push(Action::IoSubmitFlushCompletions);
        out.push(Action::IoRunTaskWork);
        out.push(Action::IoCqringOverflowFlush);
        out.extend(cfg.skb_ids().map(Action::SkbFree));
        out.push(Action::Done);
        out
    }

    /// Every enabled action instance, in candidate_actions' order.
    pub fn enabled(&self, cfg: &Config) -> Vec<Action> {
        self.successors(cfg).into_iter().map(|(a, _)| a).collect()
    }

    /// Every step of Next from this state (Done's stutter included).
    pub fn successors(&self, cfg: &Config) -> Vec<(Action, State)> {
        crate::explore::enabled_steps(self.candidate_actions(cfg), |a| self.step(cfg, a))
    }
}
