//! The protocols the harness runs, one folder each, named as their spec's
//! module in model/: xsk_ring (specs/XskRing.tla), copy_tx
//! (specs/XskCopyTx.tla), devmem (specs/DevmemTokens.tla), xsk_rx
//! (specs/XskRx.tla), iouring_zc (specs/IoUringZcNotif.tla), napi_cache
//! (specs/NapiSkbCache.tla). A new
//! protocol is a folder here and a line in [`replay`]
//! (docs/src/adding-a-protocol.md).

pub mod copy_tx;
pub mod devmem;
pub mod iouring_zc;
pub mod napi_cache;
pub mod xsk_ring;
pub mod xsk_rx;

#[cfg(not(loom))]
use crate::harness::{self, RawTrace, Replayed, RunError};

/// The protocols' trace names.
#[cfg(not(loom))]
pub const NAMES: [&str; 6] = [
    xsk_ring::NAME,
    copy_tx::NAME,
    devmem::NAME,
    xsk_rx::NAME,
    iouring_zc::NAME,
    napi_cache::NAME,
];

/// Replay a trace of whichever protocol its header names.
#[cfg(not(loom))]
pub fn replay(trace: &RawTrace) -> Result<Replayed, RunError> {
    match trace.header.protocol.as_str() {
        xsk_ring::NAME => xsk_ring::replay(trace),
        copy_tx::NAME => harness::replay::<copy_tx::CopyTx>(trace),
        devmem::NAME => harness::replay::<devmem::Devmem>(trace),
        xsk_rx::NAME => harness::replay::<xsk_rx::XskRx>(trace),
        iouring_zc::NAME => harness::replay::<iouring_zc::IoUringZc>(trace),
        napi_cache::NAME => harness::replay::<napi_cache::NapiSkbCache>(trace),
        p => Err(RunError::Config(format!(
            "a trace of {p:?}: the protocols are {}",
            NAMES.join(", ")
        ))),
    }
}
