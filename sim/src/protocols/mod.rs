//! The protocols the harness runs, one folder each, named as their spec's
//! module in model/: xsk_ring (specs/XskRing.tla), copy_tx
//! (specs/XskCopyTx.tla), devmem (specs/DevmemTokens.tla).

pub mod copy_tx;
pub mod devmem;
pub mod xsk_ring;
