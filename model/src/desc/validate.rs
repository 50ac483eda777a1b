//! xp_validate_desc() of linux 6.12.117 (net/xdp/xsk_queue.h:149-222,
//! include/net/xsk_buff_pool.h:180-216), generic over the word it
//! computes in. Each `if (...) return false;` is one term of a
//! disjunction of rejections: the tests have no side effects, so their
//! order does not change the answer.

use super::mutant::Mutant;
use super::pool::{Desc, Pages, Pool};
use super::word::{Logic, Word};

/// XDP_PKT_CONTD (uapi if_xdp.h).
pub const XDP_PKT_CONTD: u32 = 1 << 0;
/// XDP_TX_METADATA (uapi if_xdp.h).
pub const XDP_TX_METADATA: u32 = 1 << 1;
/// XSK_UNALIGNED_BUF_OFFSET_SHIFT (uapi if_xdp.h).
pub const XSK_UNALIGNED_BUF_OFFSET_SHIFT: u32 = 48;
/// XSK_UNALIGNED_BUF_ADDR_MASK (uapi if_xdp.h).
pub const XSK_UNALIGNED_BUF_ADDR_MASK: u64 = (1 << XSK_UNALIGNED_BUF_OFFSET_SHIFT) - 1;

fn lit<W: Word>(v: u64) -> W {
    W::lit(v)
}

/// True when none of `rejects` holds.
fn none_of<B: Logic>(rejects: &[B]) -> B {
    rejects.iter().fold(B::lit(false), |acc, r| acc.or(r)).not()
}

/// xp_unused_options_set(): a bit other than XDP_PKT_CONTD and
/// XDP_TX_METADATA is set. Which of the two are set, and whether the pool
/// has tx metadata, is for xsk_build_skb() to judge, not for this check.
pub fn xp_unused_options_set<W: Word>(options: &W) -> W::Bool {
    let unknown = !(XDP_PKT_CONTD | XDP_TX_METADATA) as u64;
    options.and(&lit(unknown)).is_eq(&lit(0)).not()
}

/// xp_aligned_validate_desc().
pub fn xp_aligned_validate_desc<W: Word>(pool: &Pool<W>, desc: &Desc<W>, m: Mutant) -> W::Bool {
    let len = &desc.len;
    let meta = &pool.tx_metadata_len;
    // if (!len)
    let empty = len.is_eq(&lit(0));
    // check_sub_overflow(desc->addr, pool->tx_metadata_len, &addr)
    let (addr, under) = desc.addr.check_sub_overflow(meta);
    let offset = addr.and(&pool.chunk_size.sub(&lit(1)));
    // offset + len + pool->tx_metadata_len > pool->chunk_size, in u64
    let mut end = offset.add(len).add(meta);
    if m == Mutant::SumU32 {
        end = end.and(&lit(u32::MAX as u64));
    }
    let straddles = match m {
        Mutant::NoStraddle => W::Bool::lit(false),
        Mutant::ChunkEndExclusive => end.uge(&pool.chunk_size),
        _ => end.ugt(&pool.chunk_size),
    };
    // addr >= pool->addrs_cnt
    let past = match m {
        Mutant::UmemEndInclusive => addr.ugt(&pool.addrs_cnt),
        _ => addr.uge(&pool.addrs_cnt),
    };
    none_of(&[
        empty,
        under,
        straddles,
        past,
        xp_unused_options_set(&desc.options),
    ])
}

/// xp_unaligned_extract_addr() + xp_unaligned_extract_offset().
pub fn xp_unaligned_add_offset_to_addr<W: Word>(addr: &W, m: Mutant) -> W {
    let base = match m {
        Mutant::OffsetUnmasked => addr.clone(),
        _ => addr.and(&lit(XSK_UNALIGNED_BUF_ADDR_MASK)),
    };
    base.add(&addr.shr(XSK_UNALIGNED_BUF_OFFSET_SHIFT))
}

/// xp_desc_crosses_non_contig_pg(); `len` is a u32 parameter there.
pub fn xp_desc_crosses_non_contig_pg<W: Word>(pool: &Pool<W>, addr: &W, len: &W) -> W::Bool {
    let len = len.and(&lit(u32::MAX as u64));
    let in_page = addr.and(&pool.page_size.sub(&lit(1)));
    let cross_pg = in_page.add(&len).ugt(&pool.page_size);
    match pool.pages {
        Pages::Contiguous => W::Bool::lit(false),
        Pages::Split => cross_pg,
    }
}

/// xp_unaligned_validate_desc().
pub fn xp_unaligned_validate_desc<W: Word>(pool: &Pool<W>, desc: &Desc<W>, m: Mutant) -> W::Bool {
    let meta = &pool.tx_metadata_len;
    // if (!len)
    let empty = desc.len.is_eq(&lit(0));
    // len += pool->tx_metadata_len; if (len > pool->chunk_size)
    let len = desc.len.add(meta);
    let too_long = len.ugt(&pool.chunk_size);
    let (addr, under) = xp_unaligned_add_offset_to_addr(&desc.addr, m).check_sub_overflow(meta);
    // addr >= pool->addrs_cnt
    let past = addr.uge(&pool.addrs_cnt);
    // check_add_overflow(addr, len, &end) || end > pool->addrs_cnt
    let (end, wraps) = addr.check_add_overflow(&len);
    let runs_past = wraps.or(&end.ugt(&pool.addrs_cnt));
    let crosses = xp_desc_crosses_non_contig_pg(pool, &addr, &len);
    none_of(&[
        empty,
        too_long,
        under,
        past,
        runs_past,
        crosses,
        xp_unused_options_set(&desc.options),
    ])
}

/// xp_validate_desc() with mutant `m`.
pub fn xp_validate_desc_as<W: Word>(pool: &Pool<W>, desc: &Desc<W>, m: Mutant) -> W::Bool {
    if pool.unaligned {
        xp_unaligned_validate_desc(pool, desc, m)
    } else {
        xp_aligned_validate_desc(pool, desc, m)
    }
}

/// xp_validate_desc() as the model is built ([`Mutant::built`]).
pub fn xp_validate_desc<W: Word>(pool: &Pool<W>, desc: &Desc<W>) -> W::Bool {
    xp_validate_desc_as(pool, desc, Mutant::built())
}
