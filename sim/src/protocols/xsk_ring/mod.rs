//! One xsk ring (specs/XskRing.tla): a producer actor and a consumer actor
//! over a ring of [`ringlab_ring`], either side the kernel's
//! (`xsk_queue.h`) or libxdp's, each step one spec action.

#[cfg(not(loom))]
pub mod action;
#[cfg(not(loom))]
pub mod actor;
#[cfg(not(loom))]
pub mod config;
#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
pub mod outcome;
#[cfg(not(loom))]
pub mod payload;
#[cfg(not(loom))]
pub mod sched;
#[cfg(not(loom))]
pub mod threads;
#[cfg(not(loom))]
pub mod trace;

#[cfg(not(loom))]
pub use outcome::{Failure, RunError, Summary};
#[cfg(not(loom))]
pub use sched::Sim;
