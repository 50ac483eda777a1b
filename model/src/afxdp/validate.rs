//! The descriptor check of the live kernel's pool (aligned, no tx
//! metadata; the check itself is crate::desc's), and the classes of
//! invalid descriptor a scenario can ask for.

use serde::{Deserialize, Serialize};

use crate::desc::{xp_validate_desc, Desc, Pool};

/// Whether the kernel accepts `addr, len, options` for a umem of
/// `umem_len` bytes in `chunk`-byte aligned chunks.
pub fn aligned_valid(addr: u64, len: u32, options: u32, chunk: u32, umem_len: u64) -> bool {
    xp_validate_desc(
        &Pool::aligned(chunk as u64, umem_len),
        &Desc::new(addr, len, options),
    )
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
