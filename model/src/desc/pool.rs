//! What the checks read: the descriptor, and the fields of struct
//! xsk_buff_pool they use (include/net/xsk_buff_pool.h). The pool's
//! headroom is not among them: xdp_umem_reg() bounds it, no descriptor
//! check reads it.

use super::word::Word;

/// struct xdp_desc (uapi if_xdp.h); `len` and `options` are u32 values
/// held in a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Desc<W> {
    pub addr: W,
    pub len: W,
    pub options: W,
}

impl Desc<u64> {
    pub fn new(addr: u64, len: u32, options: u32) -> Self {
        Desc {
            addr,
            len: len as u64,
            options: options as u64,
        }
    }
}

/// pool->dma_pages as xp_desc_crosses_non_contig_pg() sees it. A mixed
/// page map is not modelled, only its two extremes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// No dma_pages (copy mode), or every page followed by a contiguous
    /// one: a packet may cross pages.
    Contiguous,
    /// dma_pages set, no page marked XSK_NEXT_PG_CONTIG_MASK: no packet
    /// may cross a page boundary.
    Split,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool<W> {
    /// XDP_UMEM_UNALIGNED_CHUNK_FLAG.
    pub unaligned: bool,
    pub chunk_size: W,
    /// umem->size.
    pub addrs_cnt: W,
    /// 0 without XDP_UMEM_TX_METADATA_LEN.
    pub tx_metadata_len: W,
    pub pages: Pages,
    /// PAGE_SIZE.
    pub page_size: W,
}

/// PAGE_SIZE on x86-64.
pub const PAGE_SIZE: u64 = 4096;

impl<W: Word> Pool<W> {
    /// An aligned pool without tx metadata, as copy mode maps it.
    pub fn aligned(chunk_size: W, addrs_cnt: W) -> Self {
        Pool {
            unaligned: false,
            chunk_size,
            addrs_cnt,
            tx_metadata_len: W::lit(0),
            pages: Pages::Contiguous,
            page_size: W::lit(PAGE_SIZE),
        }
    }
}
