//! xp_aligned_validate_desc (net/xdp/xsk_queue.h, 6.12.117 lines 154-184)
//! for a pool with tx_metadata_len 0, and the classes of invalid
//! descriptor a scenario can ask for.

use serde::{Deserialize, Serialize};

/// XDP_PKT_CONTD | XDP_TX_METADATA: the option bits a TX descriptor may
/// carry (xp_unused_options_set, xsk_queue.h:149).
pub const KNOWN_OPTIONS: u32 = 0b11;

/// Whether the kernel accepts `addr, len, options` for a umem of
/// `umem_len` bytes in `chunk`-byte aligned chunks.
pub fn aligned_valid(addr: u64, len: u32, options: u32, chunk: u32, umem_len: u64) -> bool {
    let len = len as u64;
    // `if (!len) return false;`
    if len == 0 {
        return false;
    }
    // check_sub_overflow(desc->addr, tx_metadata_len = 0): never overflows.
    let offset = addr & (chunk as u64 - 1);
    // `offset + len + tx_metadata_len > chunk_size`: in u64, no overflow.
    let straddles = offset + len > chunk as u64;
    if straddles && !cfg!(feature = "mutant-diff-straddle") {
        return false;
    }
    // `addr >= pool->addrs_cnt`
    if addr >= umem_len {
        return false;
    }
    // xp_unused_options_set
    options & !KNOWN_OPTIONS == 0
}

/// The invalid classes of ALIGNED_INV_DESC (xskxceiver) and the
/// overflow cases of the u32/u64 arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Invalid {
    /// len 0.
    ZeroLen,
    /// addr at the umem end (or past it).
    PastUmem,
    /// Crosses the end of its chunk by a few bytes.
    Straddle,
    /// len > frame (e.g. 9001 in a 4K frame).
    TooLong,
    /// An option bit outside XDP_PKT_CONTD | XDP_TX_METADATA.
    UnknownOption,
    /// addr near u64::MAX: `offset + len` must not wrap in the check.
    AddrWraps,
    /// len u32::MAX: `offset + len` exceeds u32 but not u64.
    LenMax,
    /// len close to u32::MAX with an offset near the chunk end, so that
    /// `offset + len` is just past 2^32: it would pass the chunk check if
    /// it were computed in u32 (it is u64, xsk_queue.h:174).
    LenWrapsU32,
    /// addr at the start of the last chunk below 2^64 (offset 0, so only
    /// `addr >= pool->addrs_cnt` rejects it), `addr + len` wrapping u64.
    AddrTopChunk,
    /// Every option bit but XDP_PKT_CONTD | XDP_TX_METADATA.
    OptionsAllUnknown,
}
