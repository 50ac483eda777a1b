//! The pools that exist: xdp_umem_reg()'s checks (net/xdp/xdp_umem.c,
//! 6.12.117) on the fields the descriptor checks read, and
//! xp_create_and_assign_umem()'s copy of them into the pool. The user
//! address (page aligned, not wrapping) and the headroom are checked there
//! too but reach no descriptor check, so they are left out.

use thiserror::Error;

use super::pool::{Pages, Pool};

/// XDP_UMEM_MIN_CHUNK_SIZE (include/net/xdp_sock_drv.h).
pub const XDP_UMEM_MIN_CHUNK_SIZE: u32 = 1 << 11;

/// What XDP_UMEM_REG is given, as far as the pool keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UmemReg {
    /// mr->len.
    pub size: u64,
    pub chunk_size: u32,
    /// XDP_UMEM_UNALIGNED_CHUNK_FLAG.
    pub unaligned: bool,
    /// mr->tx_metadata_len with XDP_UMEM_TX_METADATA_LEN, else None.
    pub tx_metadata_len: Option<u32>,
    /// PAGE_SIZE of the kernel.
    pub page_size: u64,
}

/// Why xdp_umem_reg() returns -EINVAL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum RegError {
    #[error("chunk size {0} is not in {XDP_UMEM_MIN_CHUNK_SIZE}..=PAGE_SIZE")]
    ChunkSize(u32),
    #[error("chunk size {0} is not a power of two (aligned mode)")]
    ChunkNotPow2(u32),
    #[error("{0} pages is more than U32_MAX")]
    Pages(u64),
    #[error("{0} chunks is not in 1..=U32_MAX")]
    Chunks(u64),
    #[error("size is not a multiple of the chunk size (aligned mode)")]
    Partial,
    #[error("tx_metadata_len {0} is not a multiple of 8 in 16..256")]
    MetadataLen(u32),
}

impl UmemReg {
    /// xdp_umem_reg(), then the pool xp_create_and_assign_umem() makes
    /// (`pages` says how its pages are DMA-mapped).
    pub fn xdp_umem_reg(&self, pages: Pages) -> Result<Pool<u64>, RegError> {
        let chunk = self.chunk_size;
        if chunk < XDP_UMEM_MIN_CHUNK_SIZE || chunk as u64 > self.page_size {
            return Err(RegError::ChunkSize(chunk));
        }
        if !self.unaligned && !chunk.is_power_of_two() {
            return Err(RegError::ChunkNotPow2(chunk));
        }
        let npgs = self.size.div_ceil(self.page_size);
        if npgs > u32::MAX as u64 {
            return Err(RegError::Pages(npgs));
        }
        let chunks = self.size / chunk as u64;
        if chunks == 0 || chunks > u32::MAX as u64 {
            return Err(RegError::Chunks(chunks));
        }
        if !self.unaligned && !self.size.is_multiple_of(chunk as u64) {
            return Err(RegError::Partial);
        }
        let meta = match self.tx_metadata_len {
            Some(m) if m >= 256 || m % 8 != 0 || m < 16 => return Err(RegError::MetadataLen(m)),
            Some(m) => m,
            None => 0,
        };
        Ok(Pool {
            unaligned: self.unaligned,
            chunk_size: chunk as u64,
            addrs_cnt: self.size,
            tx_metadata_len: meta as u64,
            pages,
            page_size: self.page_size,
        })
    }
}
