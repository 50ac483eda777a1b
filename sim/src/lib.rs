//! ringlab's simulation harness and the protocols it runs.
//!
//! A protocol ([`protocols`]) is a system of objects on real atomics (the
//! ring of [`ringlab_ring`], or objects built on its `sync` shim, so loom
//! sees every access), its actions named as in its spec, its invariants,
//! and a projection of its state onto the spec's variables. The harness
//! ([`harness`]) runs any of them: one seeded scheduler, one thread runner,
//! one trace writer, replay and verdict.

mod disabled;
pub mod protocols;

pub use disabled::{Disabled, Step};
pub use protocols::{copy_tx, devmem, xsk_ring, xsk_rx};

/// Items of the std build only: loom builds just the protocols' objects.
macro_rules! std_only {
    ($($item:item)*) => { $( #[cfg(not(loom))] $item )* };
}

std_only! {
    pub mod harness;
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
        "mutant-xsk-gen-rx-race",
        "mutant-xdp-missing-flush",
        "mutant-redirect-xsk-ignore-key",
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
