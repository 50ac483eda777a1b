//! One xsk ring (specs/XskRing.tla): a producer actor and a consumer actor
//! over a ring of [`ringlab_ring`], either side the kernel's
//! (`xsk_queue.h`) or libxdp's, each step one spec action.
//!
//! action.rs: the spec's actions and a step's outcome; actor/: the two
//! actors, each step function one action; config.rs: which ring;
//! payload.rs: what an entry holds; system.rs: the ring and its actors
//! in one place; project.rs: the projection to the spec's variables;
//! invariants.rs; protocol.rs: the harness's view (the choice policy,
//! the drain, the report); threads.rs: the two actors on two threads.
//! Everything here is std only: loom checks the ring itself.

#[cfg(not(loom))]
pub mod action;
#[cfg(not(loom))]
pub mod actor;
#[cfg(not(loom))]
pub mod config;
#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
pub mod payload;
#[cfg(not(loom))]
pub mod project;
#[cfg(not(loom))]
pub mod protocol;
#[cfg(not(loom))]
pub mod system;
#[cfg(not(loom))]
pub mod threads;

#[cfg(not(loom))]
pub use self::{
    action::{Action, Choice, StepError},
    config::{RingKind, Side, SimConfig},
    project::State,
    protocol::{replay, run, Summary, NAME},
    system::XskRing,
};

/// A trace of this protocol, typed.
#[cfg(not(loom))]
pub type RingTrace = crate::harness::Trace<SimConfig, State>;

/// Read a trace of this protocol (an error names what is wrong).
#[cfg(not(loom))]
pub fn trace_of(r: impl std::io::BufRead) -> Result<RingTrace, crate::harness::TraceError> {
    RingTrace::parse_of(r, NAME)
}
