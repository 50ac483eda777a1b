//! ringlab simulator: the xsk rings on real atomics.
//!
//! [`ring`] mirrors the kernel's `net/xdp/xsk_queue.h` (6.12) and libxdp's
//! `xdp/xsk.h` over [`sync`], which is loom's under `cfg(loom)`. Outside
//! loom, [`sched`] drives one producer and one consumer actor step by step,
//! each step one action of `specs/XskRing.tla`, and [`trace`] records the
//! steps for [`tlatrace`] to check against the spec with TLC.
//! [`copy_tx`] runs copy-mode transmit (specs/XskCopyTx.tla) on the same
//! rings; [`devmem`] the devmem TCP receive tokens of
//! specs/DevmemTokens.tla on the same shim's atomics.

pub mod copy_tx;
pub mod devmem;
pub mod idx;
pub mod ring;
pub mod sync;

/// Items of the std build only: loom builds just the ring and its shim.
macro_rules! std_only {
    ($($item:item)*) => { $( #[cfg(not(loom))] $item )* };
}

std_only! {
    pub mod action;
    pub mod actor;
    pub mod cli;
    pub mod config;
    pub mod copytx_trace;
    pub mod devmem_trace;
    pub mod invariants;
    pub mod outcome;
    pub mod payload;
    pub mod rng;
    pub mod sched;
    pub mod threads;
    pub mod tlatrace;
    pub mod tlc;
    pub mod trace_check;
    pub mod trace;

    pub use outcome::{Failure, RunError, Summary};
    pub use sched::Sim;
}

/// The mutant features this build was compiled with.
pub fn mutants() -> Vec<&'static str> {
    macro_rules! on {
        ($($f:literal),* $(,)?) => {
            [$(($f, cfg!(feature = $f))),*]
        };
    }
    let all = on![
        "mutant-xsk-rmb",
        "mutant-barrier-a",
        "mutant-barrier-b",
        "mutant-barrier-d",
        "mutant-wrapping-add",
        "mutant-batch-release-count",
        "mutant-reserve-partial",
        "mutant-cached-cons-offset",
        "mutant-cons-no-publish",
        "mutant-xsk-immature-cq",
        "mutant-xsk-txbusy-rollback",
        "mutant-xsk-shared-cq-race",
        "mutant-xsk-cq-leak-2019",
        "mutant-xsk-cq-resv-fail",
        "mutant-mb-send-partial",
        "mutant-zcrx-uref-race",
        "mutant-dm-dontneed-loop",
        "mutant-dm-cmsg-trunc",
        "mutant-dm-recv-no-ref",
        "mutant-dm-close-no-release",
        "mutant-dm-unbind-no-cleanup",
        "mutant-dm-mode-mix",
    ];
    all.into_iter()
        .filter(|(_, on)| *on)
        .map(|(name, _)| name)
        .collect()
}

#[cfg(all(test, not(loom)))]
mod tests {
    #[test]
    fn mutants_names_exactly_the_features_built_in() {
        let on = super::mutants();
        assert_eq!(on.contains(&"mutant-xsk-rmb"), cfg!(feature = "mutant-xsk-rmb"));
    }
}
