//! One step of the spec: an action of Next with the values its \E chose.

use std::fmt;

use super::config::Fail;
use super::state::{Req, SkbId};

/// IoSendZcPrep's `\E o \in {"ok"} \cup (Fails \cap {"nomem",
/// "inval"})`, in TLC's order of the strings (the .cfg's Fails and the
/// ASSUME name the failures before the spec names "ok").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrepOutcome {
    Nomem,
    Inval,
    Ok,
}

impl PrepOutcome {
    pub const ALL: [PrepOutcome; 3] = [PrepOutcome::Nomem, PrepOutcome::Inval, PrepOutcome::Ok];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            PrepOutcome::Nomem => "nomem",
            PrepOutcome::Inval => "inval",
            PrepOutcome::Ok => "ok",
        }
    }

    /// The element of Fails the outcome needs (None: "ok").
    pub fn fail(self) -> Option<Fail> {
        match self {
            PrepOutcome::Nomem => Some(Fail::Nomem),
            PrepOutcome::Inval => Some(Fail::Inval),
            PrepOutcome::Ok => None,
        }
    }
}

/// IoSendZc's `\E o \in {"all", "eagain", "partial", "pipe", "fault"}`,
/// in TLC's order of the strings: the failures as the .cfg's Fails (in
/// the ASSUME's order) names them, read before the spec, and "all" last.
/// An outcome outside Fails is never enabled, so where TLC puts it does
/// not matter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SendOutcome {
    /// io_send_zc_import() fails before the first sendmsg: -EFAULT.
    Fault,
    /// -EAGAIN: the request waits on poll, done_io kept.
    Eagain,
    /// A short send, no retry.
    Partial,
    /// -EPIPE, nothing queued.
    Pipe,
    /// Every unit left queued.
    All,
}

impl SendOutcome {
    pub const ALL: [SendOutcome; 5] = [
        SendOutcome::Fault,
        SendOutcome::Eagain,
        SendOutcome::Partial,
        SendOutcome::Pipe,
        SendOutcome::All,
    ];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            SendOutcome::Fault => "fault",
            SendOutcome::Eagain => "eagain",
            SendOutcome::Partial => "partial",
            SendOutcome::Pipe => "pipe",
            SendOutcome::All => "all",
        }
    }

    /// The element of Fails the outcome needs (None: "all").
    pub fn fail(self) -> Option<Fail> {
        match self {
            SendOutcome::Fault => Some(Fail::Fault),
            SendOutcome::Eagain => Some(Fail::Eagain),
            SendOutcome::Partial => Some(Fail::Partial),
            SendOutcome::Pipe => Some(Fail::Pipe),
            SendOutcome::All => None,
        }
    }
}

/// The actions of IoUringZcNotif.tla's Next, named as the spec names
/// them, each with its parameters and choices.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// UserSubmit(r): io_uring_get_sqe(), io_uring_prep_send_zc().
    UserSubmit(Req),
    /// IoUringEnter: io_uring_enter(to_submit).
    IoUringEnter,
    /// IoSendZcPrep with its `\E o`: io_send_zc_prep() for the SQ's head.
    IoSendZcPrep { outcome: PrepOutcome },
    /// IoSendZc(r) with its `\E u, o` and `\E ks \in Choices(r, u)`:
    /// io_send_zc() queues u units, the i-th into skb ks[i].
    IoSendZc {
        r: Req,
        u: u32,
        o: SendOutcome,
        ks: Vec<SkbId>,
    },
    /// IoPollRetry(r): the poll fires, task work issues r again.
    IoPollRetry(Req),
    /// IoSubmitFlushCompletions: io_submit_flush_completions().
    IoSubmitFlushCompletions,
    /// IoRunTaskWork: io_notif_tw_complete().
    IoRunTaskWork,
    /// IoCqringOverflowFlush: io_cqring_overflow_flush().
    IoCqringOverflowFlush,
    /// SkbFree(k): skb_zcopy_clear(), io_tx_ubuf_complete().
    SkbFree(SkbId),
    /// UserReap: io_uring_cqe_seen().
    UserReap,
    /// UserReuse(r): the application writes into r's buffer.
    UserReuse(Req),
    /// IoUringUnregisterBuffers: IORING_UNREGISTER_BUFFERS.
    IoUringUnregisterBuffers,
    /// Done: every request done and every CQE reaped (a stutter step).
    Done,
}

impl Action {
    /// The spec's name of the action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::UserSubmit(_) => "UserSubmit",
            Action::IoUringEnter => "IoUringEnter",
            Action::IoSendZcPrep { .. } => "IoSendZcPrep",
            Action::IoSendZc { .. } => "IoSendZc",
            Action::IoPollRetry(_) => "IoPollRetry",
            Action::IoSubmitFlushCompletions => "IoSubmitFlushCompletions",
            Action::IoRunTaskWork => "IoRunTaskWork",
            Action::IoCqringOverflowFlush => "IoCqringOverflowFlush",
            Action::SkbFree(_) => "SkbFree",
            Action::UserReap => "UserReap",
            Action::UserReuse(_) => "UserReuse",
            Action::IoUringUnregisterBuffers => "IoUringUnregisterBuffers",
            Action::Done => "Done",
        }
    }

    /// The request the action names as a parameter, if it does.
    pub fn req(&self) -> Option<Req> {
        match *self {
            Action::UserSubmit(r)
            | Action::IoSendZc { r, .. }
            | Action::IoPollRetry(r)
            | Action::UserReuse(r) => Some(r),
            _ => None,
        }
    }
}

/// `Name(params)` with the choices after them: `IoSendZc(1, 2, "all",
/// <<1, 2>>)`, `IoSendZcPrep("nomem")`.
impl fmt::Display for Action {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.name();
        match self {
            Action::UserSubmit(x) | Action::IoPollRetry(x) | Action::UserReuse(x) => {
                write!(out, "{n}({x})")
            }
            Action::SkbFree(k) => write!(out, "{n}({k})"),
            Action::IoSendZcPrep { outcome } => write!(out, "{n}(\"{}\")", outcome.id()),
            Action::IoSendZc { r, u, o, ks } => {
                let ks: Vec<String> = ks.iter().map(|k| k.to_string()).collect();
                write!(out, "{n}({r}, {u}, \"{}\", <<{}>>)", o.id(), ks.join(", "))
            }
            _ => write!(out, "{n}"),
        }
    }
}
