//! What the kernel documents, as plain arithmetic on 128-bit bit-vectors
//! (every value is a zero-extended u64 or u32, so no sum or product here
//! can wrap): which pools exist (xdp_umem_reg(), net/xdp/xdp_umem.c) and
//! which TX descriptors are legal in them (Documentation/networking/
//! af_xdp.rst, xsk-tx-metadata.rst, uapi if_xdp.h). Nothing here calls
//! the implementation.

use z3::ast::{Bool, BV};

const X: u32 = 128;

fn wide(v: &BV) -> BV {
    v.zero_ext(X - v.get_size())
}

fn n(v: u64) -> BV {
    BV::from_u64(v, X)
}

/// One descriptor and its pool, as the solver's variables.
pub struct Vars {
    pub addr: BV,
    pub len: BV,
    pub options: BV,
    pub chunk_size: BV,
    /// umem->size, which the pool keeps as addrs_cnt.
    pub umem_size: BV,
    pub tx_metadata_len: BV,
}

/// Options carry XDP_PKT_CONTD (bit 0) and XDP_TX_METADATA (bit 1), no
/// other bit. Whether XDP_TX_METADATA has metadata to point at is not a
/// property of the descriptor: xsk_build_skb() refuses it later.
fn known_options(v: &Vars) -> Bool {
    wide(&v.options).bvult(n(4))
}

/// tx_metadata_len: 0 without XDP_UMEM_TX_METADATA_LEN, else a multiple
/// of 8 in 16..256.
pub fn metadata_len_ok(v: &Vars) -> Bool {
    let m = wide(&v.tx_metadata_len);
    let set = Bool::and(&[m.bvuge(n(16)), m.bvult(n(256)), m.bvurem(n(8)).eq(n(0))]);
    Bool::or(&[m.eq(n(0)), set])
}

/// An aligned umem of chunk size `c` (a power of two, at most the page
/// size): a whole number of chunks, 1..=U32_MAX of them, 1..=U32_MAX
/// pages of `page`.
pub fn aligned_pool(v: &Vars, c: u64, page: u64) -> Bool {
    let s = wide(&v.umem_size);
    let chunks = s.bvudiv(n(c));
    let pages = (&s + n(page - 1)).bvudiv(n(page));
    Bool::and(&[
        wide(&v.chunk_size).eq(n(c)),
        s.bvurem(n(c)).eq(n(0)),
        chunks.bvuge(n(1)),
        chunks.bvule(n(u32::MAX as u64)),
        pages.bvule(n(u32::MAX as u64)),
    ])
}

/// An unaligned umem on pages of `page` bytes: chunk size in
/// 2048..=page, 1..=U32_MAX chunks (`c <= size < c * 2^32`), at most
/// U32_MAX pages.
pub fn unaligned_pool(v: &Vars, page: u64) -> Bool {
    let (s, c) = (wide(&v.umem_size), wide(&v.chunk_size));
    let pages = (&s + n(page - 1)).bvudiv(n(page));
    Bool::and(&[
        c.bvuge(n(2048)),
        c.bvule(n(page)),
        s.bvuge(&c),
        s.bvult(&(&c * n(1 << 32))),
        pages.bvule(n(u32::MAX as u64)),
    ])
}

/// Aligned mode, chunk size `c`: a non-empty packet whose metadata
/// (the tx_metadata_len bytes right before addr) and data
/// `[addr - tx_metadata_len, addr + len)` lie in one chunk, and that chunk
/// lies in the umem.
pub fn legal_aligned(v: &Vars, c: u64) -> Bool {
    let (a, l, m, s) = (
        wide(&v.addr),
        wide(&v.len),
        wide(&v.tx_metadata_len),
        wide(&v.umem_size),
    );
    let (start, end) = (&a - &m, &a + &l);
    let chunk = start.bvudiv(n(c));
    Bool::and(&[
        l.bvuge(n(1)),
        a.bvuge(&m),
        chunk.eq((&end - n(1)).bvudiv(n(c))),
        ((&chunk + n(1)) * n(c)).bvule(&s),
        known_options(v),
    ])
}

/// Unaligned mode: addr is a 48-bit address plus the offset in its top 16
/// bits (XSK_UNALIGNED_BUF_OFFSET_SHIFT). A non-empty packet whose
/// metadata and data fit one chunk and lie in the umem; where the pool's
/// pages are not contiguous (`split`), within one page of `page` bytes.
pub fn legal_unaligned(v: &Vars, page: u64, split: bool) -> Bool {
    let (a, l, m, s) = (
        wide(&v.addr),
        wide(&v.len),
        wide(&v.tx_metadata_len),
        wide(&v.umem_size),
    );
    let at = &a.bvurem(n(1 << 48)) + &a.bvudiv(n(1 << 48));
    let (start, end) = (&at - &m, &at + &l);
    let one_page = start.bvudiv(n(page)).eq((&end - n(1)).bvudiv(n(page)));
    Bool::and(&[
        l.bvuge(n(1)),
        at.bvuge(&m),
        (&m + &l).bvule(wide(&v.chunk_size)),
        end.bvule(&s),
        if split {
            one_page
        } else {
            Bool::from_bool(true)
        },
        known_options(v),
    ])
}
