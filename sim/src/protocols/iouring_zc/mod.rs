//! io_uring zero-copy send (specs/IoUringZcNotif.tla) on real atomics:
//! the SQ and CQ rings (ringlab_ring's free-running-index rings, the
//! application producing SQEs and consuming CQEs), the requests, their
//! notifications with an atomic ubuf_info reference count, the skbs that
//! hold those references, the task's task work, the CQ's overflow list,
//! and the registered buffer's rsrc node with the pages' pins.
//!
//! Each kernel function is a method of its object, written to run on any
//! thread (loom sees every atomic and lock); [`IoUringZc`] puts them
//! together and exposes each spec action as a method of the same name in
//! snake_case; [`IoUringZc::model_state`] maps the whole onto the spec's
//! variables.
//!
//! config.rs: what a run is; cqe.rs: struct io_uring_sqe / io_uring_cqe
//! as the rings carry them; rings.rs: the SQ and CQ; cq.rs: posting CQEs
//! and the overflow list; notif.rs: a notification and its references;
//! skb.rs: the socket's skbs; req.rs: a request; rsrc.rs: the registered
//! buffer's node and the pages' pins; ctx.rs: the ring context, the
//! kernel's side; user.rs: the application; system.rs: all of it, step
//! by step; project.rs: the projection to the model; invariants.rs: the
//! checks; pick.rs: how the scheduler draws a step; protocol.rs: the
//! harness's view (the drain, the report); threads.rs: the real-thread
//! runner's threads.

pub mod config;
mod cq;
pub mod cqe;
mod ctx;
mod notif;
mod project;
mod req;
mod rings;
mod rsrc;
mod skb;
mod system;
mod user;

#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
mod pick;
#[cfg(not(loom))]
pub mod protocol;
#[cfg(not(loom))]
pub mod threads;

pub use config::IoUringZcConfig;
pub use cq::CqState;
pub use cqe::{Cqe, Sqe, IORING_CQE_F_MORE, IORING_CQE_F_NOTIF};
pub use ctx::Ctx;
pub use notif::Notif;
pub use req::Request;
pub use rings::{CqCons, CqProd, SqCons, SqProd};
pub use rsrc::Buffers;
pub use skb::Skb;
pub use system::IoUringZc;
pub use user::App;
pub use ringlab_model::iouring_zc::{
    Action, Config, Fail, Mutant, NdState, PrepOutcome, Reuse, SendOutcome, St,
};
#[cfg(not(loom))]
pub use protocol::{Report, NAME};

pub use crate::{Disabled, Step};

/// The mutant this run puts back, as the spec names it: iou-skip-notif,
/// iou-notif-order and iou-fixedbuf-life are `mutant-<id>` of
/// ringlab-mutant (the spec's synthetic mutants are TLC's alone).
pub fn mutant() -> Mutant {
    if ringlab_mutant::on("mutant-iou-skip-notif") {
        Mutant::SkipNotif
    } else if ringlab_mutant::on("mutant-iou-notif-order") {
        Mutant::NotifOrder
    } else if ringlab_mutant::on("mutant-iou-fixedbuf-life") {
        Mutant::FixedbufLife
    } else {
        Mutant::None
    }
}
