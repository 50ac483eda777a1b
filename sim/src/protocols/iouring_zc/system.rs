//! The whole io_uring SEND_ZC system in one place, each spec action a
//! method of its name returning whether it was enabled (Err: not enabled,
//! nothing changed): what the harness's scheduler and a comparison with
//! the model drive. The real-thread runner and loom call the kernel
//! functions of [`Ctx`] and [`App`] underneath directly.

use ringlab_model::iouring_zc::{Action, Mutant, PrepOutcome, Req, SendOutcome, SkbId, St};
use ringlab_ring::sync::Arc;

use super::config::IoUringZcConfig;
use super::cq::Cq;
use super::ctx::Ctx;
use super::rings::rings;
use super::user::App;
use super::{Disabled, Step};

#[derive(Debug)]
pub struct IoUringZc {
    pub cfg: IoUringZcConfig,
    pub ctx: Arc<Ctx>,
    pub app: Arc<App>,
    /// Steps of the drain so far (its bound).
    pub drained: u64,
}

impl IoUringZc {
    pub fn new(cfg: IoUringZcConfig) -> Result<IoUringZc, String> {
        cfg.validate()?;
        let s = &cfg.spec;
        let (sq_prod, sq_cons, cq_prod, cq_cons) =
            rings(s.sq_size, cfg.sq_start, s.cq_size, cfg.cq_start)?;
        Ok(IoUringZc {
            ctx: Arc::new(Ctx::new(s.clone(), sq_cons, Cq::new(cq_prod))),
            app: Arc::new(App::new(s.n_reqs, sq_prod, cq_cons)),
            cfg,
            drained: 0,
        })
    }

    fn known(&self, action: &'static str, r: Req) -> Result<(), Disabled> {
        if self.cfg.spec.reqs().contains(&r) {
            Ok(())
        } else {
            Err(Disabled::new(action, format!("no request {r}")))
        }
    }

    /// UserSubmit(r): io_uring_get_sqe() + io_uring_prep_send_zc(), if
    /// the SQ has room.
    pub fn user_submit(&mut self, r: Req) -> Step {
        self.known("UserSubmit", r)?;
        if self.ctx.req(r).st() != St::User {
            return Err(Disabled::new("UserSubmit", "the request was submitted"));
        }
        let s = &self.cfg.spec;
        if !self.app.submit(r, s.req_len, s.fixed) {
            return Err(Disabled::new("UserSubmit", "the SQ is full"));
        }
        self.ctx.req(r).set_st(St::Sq);
        Ok(())
    }

    /// IoUringEnter: io_uring_enter(to_submit) -> io_submit_sqes().
    pub fn io_uring_enter(&mut self) -> Step {
        self.ctx.io_submit_sqes()
    }

    /// IoSendZcPrep: io_send_zc_prep() for the SQ's head.
    pub fn io_send_zc_prep(&mut self, o: PrepOutcome) -> Step {
        self.ctx.io_send_zc_prep(o)
    }

    /// IoSendZc(r): io_send_zc(), io_link_skb(), io_notif_flush().
    pub fn io_send_zc(&mut self, r: Req, u: u32, o: SendOutcome, ks: &[SkbId]) -> Step {
        self.ctx.io_send_zc(r, u, o, ks)
    }

    /// IoPollRetry(r): the poll fires, task work issues r again.
    pub fn io_poll_retry(&mut self, r: Req) -> Step {
        self.ctx.io_poll_retry(r)
    }

    /// IoSubmitFlushCompletions: io_submit_flush_completions().
    pub fn io_submit_flush_completions(&mut self) -> Step {
        self.ctx.io_submit_flush_completions()
    }

    /// IoRunTaskWork: io_run_task_work() -> io_notif_tw_complete().
    pub fn io_run_task_work(&mut self) -> Step {
        self.ctx.io_run_task_work()
    }

    /// IoCqringOverflowFlush: io_cqring_overflow_flush().
    pub fn io_cqring_overflow_flush(&mut self) -> Step {
        self.ctx.io_cqring_overflow_flush()
    }

    /// SkbFree(k): skb_zcopy_clear() -> io_tx_ubuf_complete().
    pub fn skb_free(&mut self, k: SkbId) -> Step {
        self.ctx.skb_free(k)
    }

    /// UserReap: io_uring_peek_cqe() + io_uring_cqe_seen().
    pub fn user_reap(&mut self) -> Step {
        self.app
            .reap()
            .map(|_| ())
            .ok_or_else(|| Disabled::new("UserReap", "the CQ is empty"))
    }

    /// UserReuse(r): the application writes into r's buffer again.
    pub fn user_reuse(&mut self, r: Req) -> Step {
        self.known("UserReuse", r)?;
        if self.ctx.bufs.reused(r) {
            return Err(Disabled::new("UserReuse", "the buffer was written again"));
        }
        if !self.app.may_reuse(r, self.cfg.spec.reuse) {
            return Err(Disabled::new("UserReuse", "the CQE it waits for is not reaped"));
        }
        self.ctx.bufs.reuse(r);
        Ok(())
    }

    /// IoUringUnregisterBuffers: IORING_UNREGISTER_BUFFERS.
    pub fn io_uring_unregister_buffers(&mut self) -> Step {
        if self.ctx.bufs.unregister() {
            Ok(())
        } else {
            Err(Disabled::new("IoUringUnregisterBuffers", "no buffer table holds the node"))
        }
    }

    /// Done: every request done and every CQE reaped (changes nothing).
    pub fn done(&mut self) -> Step {
        if self.is_done() {
            Ok(())
        } else {
            Err(Disabled::new("Done", "a request or a CQE is under way"))
        }
    }

    /// Nothing left: every request done, nothing in flight, every CQE
    /// reaped (the spec's Quiescent with every request done).
    pub fn is_done(&self) -> bool {
        let s = self.model_state();
        s.quiescent() && s.st.iter().all(|x| *x == St::Done)
    }

    /// One spec action with the model's choices.
    pub fn step(&mut self, a: &Action) -> Step {
        match a {
            Action::UserSubmit(r) => self.user_submit(*r),
            Action::IoUringEnter => self.io_uring_enter(),
            Action::IoSendZcPrep { outcome } => self.io_send_zc_prep(*outcome),
            Action::IoSendZc { r, u, o, ks } => self.io_send_zc(*r, *u, *o, ks),
            Action::IoPollRetry(r) => self.io_poll_retry(*r),
            Action::IoSubmitFlushCompletions => self.io_submit_flush_completions(),
            Action::IoRunTaskWork => self.io_run_task_work(),
            Action::IoCqringOverflowFlush => self.io_cqring_overflow_flush(),
            Action::SkbFree(k) => self.skb_free(*k),
            Action::UserReap => self.user_reap(),
            Action::UserReuse(r) => self.user_reuse(*r),
            Action::IoUringUnregisterBuffers => self.io_uring_unregister_buffers(),
            Action::Done => self.done(),
        }
    }

    /// The mutant this run puts back.
    pub fn mutant(&self) -> Mutant {
        self.cfg.spec.mutant
    }
}
