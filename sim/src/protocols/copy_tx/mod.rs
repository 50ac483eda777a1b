//! Copy-mode AF_XDP transmit on real rings: the kernel's sendto loop
//! (__xsk_generic_xmit() of linux 6.12.117), seed 000's batch, the driver
//! freeing skbs in any order, and the completions their destructor
//! produces, over the simulator's ring code: a [`KernelCons`] /
//! [`UserProd`] pair per socket's tx ring and one [`KernelProd`] /
//! [`UserCons`] pair for the completion ring the sockets share, its
//! producer behind one lock (pool->cq_lock).
//!
//! Each step is a method named as its action in specs/XskCopyTx.tla
//! (snake_case), taking the choices of [`ringlab_model::copy_tx::Action`];
//! [`CopyTx::model_state`] maps the rings back to the spec's variables.
//!
//! config.rs: what a run is; umem.rs: frames and descriptor validation;
//! cq.rs: the shared completion queue; pool.rs: what the sockets share;
//! skb.rs: the skb and its destructor; sock.rs: a socket's kernel side;
//! xmit.rs and batch.rs: the sendto loop; packet.rs: its multi-buffer
//! packets; driver.rs; user.rs: the application; system.rs: all of it in
//! one place, step by step; project.rs: the projection to the model;
//! invariants.rs, sched.rs, threads.rs: the checks and the two runners;
//! cost.rs: operation counts.
//!
//! [`KernelCons`]: ringlab_ring::KernelCons
//! [`UserProd`]: ringlab_ring::UserProd
//! [`KernelProd`]: ringlab_ring::KernelProd
//! [`UserCons`]: ringlab_ring::UserCons

mod batch;
pub mod config;
pub mod cost;
mod cq;
mod driver;
mod packet;
mod pool;
mod project;
mod skb;
mod sock;
mod system;
pub mod umem;
mod user;
mod xmit;

#[cfg(not(loom))]
mod drain;
#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
mod pick;
#[cfg(not(loom))]
pub mod protocol;
#[cfg(not(loom))]
pub mod threads;

pub use config::{CopyTxConfig, Publish};
pub use cost::Cost;
pub use cq::Cq;
pub use driver::Driver;
pub use pool::Pool;
pub use ringlab_model::copy_tx::{Action, Design, DropFrags, PublishFrags, Stage, TxResult};
pub use skb::Skb;
pub use sock::{Call, XskSock};
pub use system::{sock_of, CopyTx};
pub use user::App;
#[cfg(not(loom))]
pub use {
    pick::socket_choices,
    protocol::{Report, NAME},
};

pub use crate::{Disabled, Step};
