//! Which known bug this run puts back.
//!
//! Each mutant of the manifest (specs/manifest.json) that a Rust check
//! kills is a branch in the code guarded by [`on`]. An ordinary build has
//! no mutants: `on` is the constant `false` and the branch is compiled
//! away. A build with the `runtime` feature (the packages' `mutants`
//! feature turns it on) has all of them, and [`ENV`] picks at most one per
//! process: `ringlab mutants` builds a test target once and runs it once
//! without a mutant (its baseline) and once per mutant, instead of
//! rebuilding the crates for each.

/// The environment variable naming the mutant of this run.
pub const ENV: &str = "RINGLAB_MUTANT";

/// Every mutant a Rust check can put back, as the manifest names its
/// feature. A site asking for another name, or RINGLAB_MUTANT naming
/// another, is a bug of the harness and panics.
pub const KNOWN: &[&str] = &[
    // The ring (sim/ring).
    "mutant-xsk-rmb",
    "mutant-barrier-a",
    "mutant-barrier-b",
    "mutant-barrier-d",
    "mutant-wrapping-add",
    "mutant-batch-release-count",
    "mutant-reserve-partial",
    "mutant-cached-cons-offset",
    "mutant-cons-no-publish",
    // Copy-mode transmit (sim/src/protocols/copy_tx).
    "mutant-xsk-immature-cq",
    "mutant-xsk-txbusy-rollback",
    "mutant-xsk-shared-cq-race",
    "mutant-xsk-cq-leak-2019",
    "mutant-xsk-cq-resv-fail",
    "mutant-mb-send-partial",
    // Devmem receive tokens (sim/src/protocols/devmem).
    "mutant-zcrx-uref-race",
    "mutant-dm-dontneed-loop",
    "mutant-dm-cmsg-trunc",
    "mutant-dm-recv-no-ref",
    "mutant-dm-close-no-release",
    "mutant-dm-unbind-no-cleanup",
    "mutant-dm-mode-mix",
    "mutant-dm-nl-close-uaf",
    "mutant-dm-nl-close-dev-gone",
    "mutant-dm-sock-no-binding-ref",
    "mutant-dm-mode-reset-early",
    // AF_XDP receive (sim/src/protocols/xsk_rx).
    "mutant-xsk-gen-rx-race",
    "mutant-xdp-missing-flush",
    "mutant-redirect-xsk-ignore-key",
    "mutant-redirect-xsk-batch-tail-lost",
    "mutant-redirect-xsk-batch-reorder",
    "mutant-redirect-xsk-batch-stale-sock",
    // io_uring zero-copy send (sim/src/protocols/iouring_zc).
    "mutant-iou-skip-notif",
    "mutant-iou-notif-order",
    "mutant-iou-fixedbuf-life",
    // The NAPI skb cache (model/src/napi_cache, sim/src/protocols/napi_cache).
    "mutant-napi-kfree-list",
    "mutant-napi-virtio-cache",
    "mutant-napi-tun-no-bh",
    "mutant-napi-remote-put",
    "mutant-napi-return-overflow",
    "mutant-napi-put-unreleased",
    "mutant-napi-consume-no-unref",
    "mutant-napi-bulk-lost-head",
    "mutant-napi-defer-wrong-cpu",
    "mutant-napi-flush-count-kept",
    "mutant-napi-xdp-drop-uncounted",
    "mutant-napi-defer-no-kick",
    "mutant-napi-gro-self",
    // The model as oracle of the live diff and the chain (model/src).
    "mutant-diff-straddle",
    "mutant-diff-offset-unmasked",
    "mutant-diff-budget-33",
    "mutant-diff-rx-fq-per-socket",
    "mutant-chain-unsubmitted-completion",
    "mutant-chain-rx-fq-released-early",
];

/// Whether this run puts `name` back. Always false without `runtime`.
#[inline(always)]
pub fn on(name: &str) -> bool {
    #[cfg(feature = "runtime")]
    {
        debug_assert!(KNOWN.contains(&name), "no mutant named {name:?} in ringlab-mutant's KNOWN");
        active() == Some(name)
    }
    #[cfg(not(feature = "runtime"))]
    {
        let _ = name;
        false
    }
}

/// The mutant of this run, if any.
pub fn active() -> Option<&'static str> {
    #[cfg(feature = "runtime")]
    {
        use std::sync::OnceLock;
        static ACTIVE: OnceLock<Option<&'static str>> = OnceLock::new();
        *ACTIVE.get_or_init(|| match std::env::var(ENV) {
            Ok(v) if v.is_empty() => None,
            Ok(v) => match KNOWN.iter().find(|k| **k == v) {
                Some(k) => Some(*k),
                None => panic!("{ENV}={v:?} names no mutant; known: {}", KNOWN.join(", ")),
            },
            Err(std::env::VarError::NotPresent) => None,
            Err(e) => panic!("{ENV}: {e}"),
        })
    }
    #[cfg(not(feature = "runtime"))]
    {
        None
    }
}

/// Whether this build can put mutants back at all.
pub const fn built_in() -> bool {
    cfg!(feature = "runtime")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_prefixed() {
        let mut seen = std::collections::HashSet::new();
        for k in KNOWN {
            assert!(k.starts_with("mutant-"), "{k}");
            assert!(seen.insert(k), "{k} twice");
        }
    }

    #[test]
    fn an_ordinary_build_has_none() {
        if !built_in() {
            assert_eq!(active(), None);
            assert!(!on("mutant-xsk-rmb"));
        }
    }
}
