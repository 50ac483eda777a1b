//! Descriptors at the edges of every field, for an aligned umem of
//! `umem_len` bytes in `chunk`-byte chunks: each varies one field at its
//! boundaries and keeps the others valid, so each check is met right at
//! its edge. In ring order: the XDP_PKT_CONTD descriptor comes right before
//! the XDP_TX_METADATA one, which ends its packet (only a packet's first
//! descriptor is read for metadata, xsk_build_skb()).

use super::pool::PAGE_SIZE;
use super::validate::{
    XDP_PKT_CONTD, XDP_TX_METADATA, XSK_UNALIGNED_BUF_ADDR_MASK, XSK_UNALIGNED_BUF_OFFSET_SHIFT,
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boundary {
    pub addr: u64,
    pub len: u32,
    pub options: u32,
    /// Which edge, e.g. "len chunk+1".
    pub what: String,
}

fn b(addr: u64, len: u32, options: u32, what: &str) -> Boundary {
    Boundary {
        addr,
        len,
        options,
        what: what.into(),
    }
}

/// The length's edges, at address 0, for packets of at most `cl` bytes:
/// the start of both grids.
fn len_edges(cl: u32) -> Vec<Boundary> {
    vec![
        b(0, 0, 0, "len 0"),
        b(0, 1, 0, "len 1"),
        b(0, cl - 1, 0, "len chunk-1"),
        b(0, cl, 0, "len chunk"),
        b(0, cl + 1, 0, "len chunk+1"),
        b(0, u32::MAX, 0, "len u32::MAX"),
    ]
}

/// The grid; `chunk` a power of two of at least 64 and at most 2^31,
/// `umem_len` a multiple of it.
pub fn boundary_grid(chunk: u64, umem_len: u64) -> Vec<Boundary> {
    let c = chunk;
    let cl = chunk as u32;
    let (u, last) = (umem_len, umem_len - chunk);
    let two32 = 1u64 << 32;
    let mut v = len_edges(cl);
    v.extend([
        b(0, u32::MAX - cl + 1, 0, "len 2^32-chunk"),
        // offset chunk-16: offset + len is 2^32 + 8, 8 once cut to u32
        b(c - 16, u32::MAX - cl + 25, 0, "len past 2^32 with offset"),
        b(last, cl, 0, "len chunk in the last chunk"),
        b(last + 1, cl - 1, 0, "len chunk-1 to the umem end"),
        b(last + 1, cl, 0, "len chunk past the umem end"),
        b(c - 1, 1, 0, "addr chunk-1"),
        b(c - 1, 2, 0, "addr chunk-1 len 2"),
        b(c, 1, 0, "addr chunk"),
        b(c + 1, 1, 0, "addr chunk+1"),
        b(u - 1, 1, 0, "addr umem end-1"),
        b(u, 1, 0, "addr umem end"),
        b(u + 1, 1, 0, "addr umem end+1"),
        b(two32 - 1, 1, 0, "addr 2^32-1"),
        b(two32, 1, 0, "addr 2^32"),
        b(1 << 48, 1, 0, "addr 2^48"),
        b(1 << 63, 1, 0, "addr 2^63"),
        b(0u64.wrapping_sub(c), 1, 0, "addr 2^64-chunk"),
        b(u64::MAX, 1, 0, "addr 2^64-1"),
        b(0, 60, XDP_PKT_CONTD, "options bit 0"),
        b(c, 60, XDP_TX_METADATA, "options bit 1"),
    ]);
    v.extend((2..32).map(|i| Boundary {
        addr: 0,
        len: 60,
        options: 1 << i,
        what: format!("options bit {i}"),
    }));
    v
}

/// An unaligned address: `base` in bits 0..47, `offset` in bits 48..63
/// (xp_unaligned_add_offset_to_addr() adds the two).
fn ua(base: u64, offset: u64) -> u64 {
    base | (offset << XSK_UNALIGNED_BUF_OFFSET_SHIFT)
}

/// The grid for an unaligned umem of `umem_len` bytes with `chunk`-byte
/// packets at most; `chunk` need not be a power of two (unaligned allows
/// any size from 64 up to PAGE_SIZE), `umem_len` at least two pages.
/// A packet may start anywhere, so the edges are the umem end, the chunk
/// size as a length bound, the page boundary and the offset encoding.
pub fn boundary_grid_unaligned(chunk: u64, umem_len: u64) -> Vec<Boundary> {
    let cl = chunk as u32;
    let u = umem_len;
    let pg = PAGE_SIZE;
    let mut v = len_edges(cl);
    v.extend([
        b(1, cl, 0, "addr 1 len chunk (not chunk aligned)"),
        b(u - chunk, cl, 0, "len chunk to the umem end"),
        b(u - chunk + 1, cl, 0, "len chunk 1 past the umem end"),
        b(u - 1, 1, 0, "addr umem end-1"),
        b(u, 1, 0, "addr umem end"),
        b(pg - 1, 2, 0, "crosses a page boundary"),
        b(pg - 1, 1, 0, "ends at a page boundary"),
        b(ua(0, 1), 1, 0, "offset 1"),
        b(ua(u - 2, 1), 1, 0, "base+offset umem end-1"),
        b(ua(u - 1, 1), 1, 0, "base+offset umem end"),
        b(ua(0, u - 1), 1, 0, "offset umem end-1, base 0"),
        b(ua(0, 0xffff), 1, 0, "offset 2^16-1"),
        b(ua(pg - 2, 1), 2, 0, "base+offset crosses a page"),
        b(1 << 47, 1, 0, "base 2^47"),
        b(XSK_UNALIGNED_BUF_ADDR_MASK, 1, 0, "base 2^48-1"),
        b(u64::MAX, 1, 0, "addr 2^64-1"),
        b(0, 60, XDP_PKT_CONTD, "options bit 0"),
        b(chunk, 60, XDP_TX_METADATA, "options bit 1"),
        b(0, 60, 1 << 2, "options bit 2"),
        b(0, 60, 1 << 31, "options bit 31"),
    ]);
    v
}
