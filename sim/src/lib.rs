//! ringlab simulator: the xsk rings on real atomics.
//!
//! [`ring`] mirrors the kernel's `net/xdp/xsk_queue.h` (6.12) and libxdp's
//! `xdp/xsk.h` over [`sync`], which is loom's under `cfg(loom)`. Outside
//! loom, [`sched`] drives one producer and one consumer actor step by step,
//! each step one action of `specs/XskRing.tla`, and [`trace`] records the
//! steps for [`tlatrace`] to check against the spec with TLC.

pub mod idx;
pub mod ring;
pub mod sync;

#[cfg(not(loom))]
pub mod action;
#[cfg(not(loom))]
pub mod actor;
#[cfg(not(loom))]
pub mod cli;
#[cfg(not(loom))]
pub mod config;
#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
pub mod outcome;
#[cfg(not(loom))]
pub mod payload;
#[cfg(not(loom))]
pub mod rng;
#[cfg(not(loom))]
pub mod sched;
#[cfg(not(loom))]
pub mod threads;
#[cfg(not(loom))]
pub mod tlatrace;
#[cfg(not(loom))]
pub mod tlc;
#[cfg(not(loom))]
pub mod trace;

#[cfg(not(loom))]
pub use outcome::{Failure, RunError, Summary};
#[cfg(not(loom))]
pub use sched::Sim;

/// The mutant features this build was compiled with.
pub fn mutants() -> Vec<&'static str> {
    let all = [
        ("mutant-xsk-rmb", cfg!(feature = "mutant-xsk-rmb")),
        ("mutant-barrier-a", cfg!(feature = "mutant-barrier-a")),
        ("mutant-barrier-b", cfg!(feature = "mutant-barrier-b")),
        ("mutant-barrier-d", cfg!(feature = "mutant-barrier-d")),
        ("mutant-wrapping-add", cfg!(feature = "mutant-wrapping-add")),
        (
            "mutant-batch-release-count",
            cfg!(feature = "mutant-batch-release-count"),
        ),
        (
            "mutant-reserve-partial",
            cfg!(feature = "mutant-reserve-partial"),
        ),
        (
            "mutant-cached-cons-offset",
            cfg!(feature = "mutant-cached-cons-offset"),
        ),
        (
            "mutant-cons-no-publish",
            cfg!(feature = "mutant-cons-no-publish"),
        ),
    ];
    all.into_iter()
        .filter(|(_, on)| *on)
        .map(|(name, _)| name)
        .collect()
}
