//! Proofs that ringlab_model's descriptor check, the code the model and
//! the simulator run, accepts exactly the legal descriptors (spec.rs) for
//! every addr (u64), len and options (u32), in every pool xdp_umem_reg()
//! accepts, in both umem modes; and that each of its mutants accepts or
//! refuses some descriptor it should not. One obligation per chunk size
//! (aligned) or per page size and page map (unaligned).

mod spec;
mod sym;

use ringlab_model::desc::{xp_validate_desc_as, Desc, Mutant, Pages, Pool};
use z3::ast::{Bool, BV};

use super::ring::Builder;
use super::{proved, refuted, Entry};
use spec::Vars;
use sym::{Sym, WORD};

/// Every chunk size of an aligned umem: a power of two from
/// XDP_UMEM_MIN_CHUNK_SIZE to PAGE_SIZE, for pages of up to 64K.
const CHUNKS: [u64; 6] = [1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16];
/// The page sizes of the kernels (4K, 16K, 64K).
const PAGES: [u64; 3] = [1 << 12, 1 << 14, 1 << 16];
/// Aligned pools are taken on 64K pages: every chunk size is allowed
/// there, and on smaller pages there are fewer pools, not other ones (the
/// aligned check reads no page size).
const ALIGNED_PAGE: u64 = 1 << 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Aligned,
    Unaligned,
}

/// One obligation: under `guard`, the check accepts iff the rules allow.
struct Query {
    guard: Bool,
    accepted: Bool,
    legal: Bool,
}

fn var(b: &mut Builder, name: &str, bits: u32) -> BV {
    let v = BV::new_const(name, bits);
    b.report(name, &v);
    v
}

fn vars(b: &mut Builder) -> Vars {
    Vars {
        addr: var(b, "addr", WORD),
        len: var(b, "len", 32),
        options: var(b, "options", 32),
        chunk_size: var(b, "chunk_size", WORD),
        umem_size: var(b, "umem_size", WORD),
        tx_metadata_len: var(b, "tx_metadata_len", WORD),
    }
}

fn bit(b: &Bool) -> BV {
    b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
}

/// `what` of the query whose guard holds (0 when none does).
fn merged(qs: &[Query], what: impl Fn(&Query) -> &Bool) -> BV {
    qs.iter().rev().fold(BV::from_u64(0, 1), |acc, q| {
        q.guard.ite(&bit(what(q)), &acc)
    })
}

fn queries(b: &mut Builder, mode: Mode, m: Mutant) -> Vec<Query> {
    let v = vars(b);
    b.assume(spec::metadata_len_ok(&v));
    let desc = Desc {
        addr: Sym(v.addr.clone()),
        len: Sym(v.len.zero_ext(WORD - 32)),
        options: Sym(v.options.zero_ext(WORD - 32)),
    };
    let pool = |unaligned: bool, pages: Pages, page_size: &BV| Pool {
        unaligned,
        chunk_size: Sym(v.chunk_size.clone()),
        addrs_cnt: Sym(v.umem_size.clone()),
        tx_metadata_len: Sym(v.tx_metadata_len.clone()),
        pages,
        page_size: Sym(page_size.clone()),
    };
    let qs: Vec<Query> = match mode {
        Mode::Aligned => {
            let page = BV::from_u64(ALIGNED_PAGE, WORD);
            let accepted = xp_validate_desc_as(&pool(false, Pages::Contiguous, &page), &desc, m).0;
            CHUNKS
                .iter()
                .map(|&c| Query {
                    guard: spec::aligned_pool(&v, c, ALIGNED_PAGE),
                    accepted: accepted.clone(),
                    legal: spec::legal_aligned(&v, c),
                })
                .collect()
        }
        Mode::Unaligned => {
            let page = var(b, "page_size", WORD);
            let split = var(b, "split_pages", 1);
            let mut qs = vec![];
            for p in PAGES {
                for (pages, s) in [(Pages::Contiguous, 0), (Pages::Split, 1)] {
                    let guard = Bool::and(&[page.eq(p), split.eq(s), spec::unaligned_pool(&v, p)]);
                    let accepted = xp_validate_desc_as(&pool(true, pages, &page), &desc, m).0;
                    qs.push(Query {
                        guard,
                        accepted,
                        legal: spec::legal_unaligned(&v, p, s == 1),
                    });
                }
            }
            qs
        }
    };
    b.assume(Bool::or(
        &qs.iter().map(|q| q.guard.clone()).collect::<Vec<_>>(),
    ));
    let (legal, accepted) = (merged(&qs, |q| &q.legal), merged(&qs, |q| &q.accepted));
    b.report("legal", &legal);
    b.report("accepted", &accepted);
    // Counterexamples read more easily without options, without metadata
    // and in a small umem.
    b.prefer(v.options.eq(0u64));
    b.prefer(v.tx_metadata_len.eq(0u64));
    b.prefer(v.umem_size.bvule(BV::from_u64(1 << 20, WORD)));
    qs
}

fn goals(b: &mut Builder, mode: Mode, m: Mutant) -> Vec<Bool> {
    queries(b, mode, m)
        .iter()
        .map(|q| q.guard.implies(q.accepted.iff(&q.legal)))
        .collect()
}

fn aligned(b: &mut Builder) -> Vec<Bool> {
    goals(b, Mode::Aligned, Mutant::None)
}

fn unaligned(b: &mut Builder) -> Vec<Bool> {
    goals(b, Mode::Unaligned, Mutant::None)
}

fn no_straddle(b: &mut Builder) -> Vec<Bool> {
    goals(b, Mode::Aligned, Mutant::NoStraddle)
}

fn chunk_end_exclusive(b: &mut Builder) -> Vec<Bool> {
    goals(b, Mode::Aligned, Mutant::ChunkEndExclusive)
}

fn sum_u32(b: &mut Builder) -> Vec<Bool> {
    goals(b, Mode::Aligned, Mutant::SumU32)
}

fn umem_end_inclusive(b: &mut Builder) -> Vec<Bool> {
    goals(b, Mode::Aligned, Mutant::UmemEndInclusive)
}

fn offset_unmasked(b: &mut Builder) -> Vec<Bool> {
    goals(b, Mode::Unaligned, Mutant::OffsetUnmasked)
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "desc-aligned",
            "xp_aligned_validate_desc accepts exactly the non-empty packets whose metadata and data lie in one \
             chunk inside the umem with no unknown option bit, for every chunk size, umem size and \
             tx_metadata_len xdp_umem_reg accepts",
            aligned,
        ),
        proved(
            "desc-unaligned",
            "xp_unaligned_validate_desc accepts exactly the non-empty packets (address plus the offset in bits \
             48..63) whose metadata and data fit a chunk and the umem, on split pages within one page, with no \
             unknown option bit, for 4K, 16K and 64K pages",
            unaligned,
        ),
        refuted(
            "desc-no-straddle",
            "the aligned check without its chunk-end test accepts a packet running into the next chunk",
            Mutant::NoStraddle.campaign_id(),
            no_straddle,
        ),
        refuted(
            "desc-chunk-end-exclusive",
            "the aligned check with >= for > at the chunk end refuses a packet ending exactly at its chunk's end",
            Mutant::ChunkEndExclusive.campaign_id(),
            chunk_end_exclusive,
        ),
        refuted(
            "desc-sum-u32",
            "the aligned check adding offset + len + tx_metadata_len in u32 accepts a len near 2^32",
            Mutant::SumU32.campaign_id(),
            sum_u32,
        ),
        refuted(
            "desc-umem-end-inclusive",
            "the aligned check with > for >= at the umem end accepts addr == umem size",
            Mutant::UmemEndInclusive.campaign_id(),
            umem_end_inclusive,
        ),
        refuted(
            "desc-offset-unmasked",
            "the unaligned check adding the offset bits without masking them off the address refuses legal \
             descriptors that carry an offset",
            Mutant::OffsetUnmasked.campaign_id(),
            offset_unmasked,
        ),
    ]
}

#[cfg(test)]
mod tests;
