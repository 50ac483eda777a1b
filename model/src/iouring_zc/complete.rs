//! Completion: IoSubmitFlushCompletions, IoRunTaskWork and
//! IoCqringOverflowFlush.

use super::config::{Config, Mutant};
use super::post::{chain, notif_cqes};
use super::state::{at, Holder, NdState, State};

impl State {
    /// IoSubmitFlushCompletions: io_submit_flush_completions() posts the
    /// submission's request CQEs once its SQEs are issued;
    /// iou-fixedbuf-life: each request drops the rsrc node as it is freed.
    pub fn io_submit_flush_completions(&self, cfg: &Config) -> Option<State> {
        if self.compl.is_empty() || self.todo != 0 || self.issuing() {
            return None;
        }
        let mut t = self.clone();
        t.post_all(cfg, &self.compl);
        t.compl.clear();
        for c in &self.compl {
            t.node.remove(&Holder::Req(c.r));
        }
        Some(t)
    }

    /// IoRunTaskWork: io_notif_tw_complete() for the oldest task work:
    /// its chain is posted, each notification dropping its rsrc node;
    /// it runs once the submission's completions are flushed.
    pub fn io_run_task_work(&self, cfg: &Config) -> Option<State> {
        let &n = self.tw.first()?;
        if !self.compl.is_empty() || self.todo != 0 || self.issuing() {
            return None;
        }
        let c = chain(&self.nd, n);
        let mut t = self.clone();
        t.post_all(cfg, &notif_cqes(&c));
        for &m in &c {
            t.nd[at(m)].state = NdState::Posted;
            t.node.remove(&Holder::Notif(m));
        }
        t.tw.remove(0);
        Some(t)
    }

    /// IoCqringOverflowFlush: io_cqring_overflow_flush() moves the
    /// oldest overflowed CQE into the CQ when it has room (iou-cq-overrun:
    /// always).
    pub fn io_cqring_overflow_flush(&self, cfg: &Config) -> Option<State> {
        let &c = self.ovf.first()?;
        if self.cq.len() >= cfg.cq_size as usize && cfg.mutant != Mutant::CqOverrun {
            return None;
        }
        let mut t = self.clone();
        t.cq.push(c);
        t.ovf.remove(0);
        Some(t)
    }
}
