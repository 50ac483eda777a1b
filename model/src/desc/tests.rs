use super::*;
use crate::rng::Rng;

/// The documented rules in u128, for an aligned pool: a non-empty packet
/// whose metadata and data lie in one chunk of the umem, no option bit
/// but XDP_PKT_CONTD and XDP_TX_METADATA.
fn legal_aligned(p: &Pool<u64>, addr: u64, len: u32, options: u32) -> bool {
    let (c, m) = (p.chunk_size as u128, p.tx_metadata_len as u128);
    let (a, l) = (addr as u128, len as u128);
    if l == 0 || a < m {
        return false;
    }
    let first = (a - m) / c;
    first == (a + l - 1) / c && (first + 1) * c <= p.addrs_cnt as u128 && options < 4
}

/// The same for an unaligned pool: the address is bits 0..47 plus bits
/// 48..63; metadata and data fit a chunk, lie in the umem, and cross no
/// page boundary where pages are split.
fn legal_unaligned(p: &Pool<u64>, addr: u64, len: u32, options: u32) -> bool {
    let (m, l) = (p.tx_metadata_len as u128, len as u128);
    let a = (addr as u128 % (1 << 48)) + (addr as u128 >> 48);
    if l == 0 || a < m {
        return false;
    }
    let (start, end) = (a - m, a + l);
    let page = p.page_size as u128;
    let one_page = p.pages == Pages::Contiguous || start / page == (end - 1) / page;
    m + l <= p.chunk_size as u128 && end <= p.addrs_cnt as u128 && one_page && options < 4
}

fn check(p: &Pool<u64>, addr: u64, len: u32, options: u32) -> bool {
    xp_validate_desc_as(p, &Desc::new(addr, len, options), Mutant::None)
}

fn reg(size: u64, chunk: u32, unaligned: bool, meta: Option<u32>) -> Result<Pool<u64>, RegError> {
    UmemReg {
        size,
        chunk_size: chunk,
        unaligned,
        tx_metadata_len: meta,
        page_size: PAGE_SIZE,
    }
    .xdp_umem_reg(Pages::Contiguous)
}

#[test]
fn grid_verdicts() {
    let p = Pool::aligned(4096, 64 * 4096);
    let valid: Vec<String> = boundary_grid(4096, 64 * 4096)
        .into_iter()
        .filter(|g| check(&p, g.addr, g.len, g.options))
        .map(|g| g.what)
        .collect();
    assert_eq!(
        valid,
        [
            "len 1",
            "len chunk-1",
            "len chunk",
            "len chunk in the last chunk",
            "len chunk-1 to the umem end",
            "addr chunk-1",
            "addr chunk",
            "addr chunk+1",
            "addr umem end-1",
            "options bit 0",
            "options bit 1",
        ]
    );
}

#[test]
fn grid_meets_every_aligned_mutant() {
    for (c, frames) in [(2048u64, 16u64), (4096, 64)] {
        let p = Pool::aligned(c, c * frames);
        let grid = boundary_grid(c, c * frames);
        for m in [
            Mutant::NoStraddle,
            Mutant::ChunkEndExclusive,
            Mutant::SumU32,
            Mutant::UmemEndInclusive,
        ] {
            let told = grid.iter().any(|g| {
                let d = Desc::new(g.addr, g.len, g.options);
                xp_validate_desc_as(&p, &d, m) != xp_validate_desc_as(&p, &d, Mutant::None)
            });
            assert!(told, "{m:?} agrees with the kernel on the whole grid");
        }
    }
}

#[test]
fn agrees_with_the_rules_on_samples() {
    let mut r = Rng::new(11);
    let pick = |r: &mut Rng, xs: &[u64]| xs[r.below(xs.len() as u32) as usize];
    let mut valid = [0; 2];
    for _ in 0..200_000 {
        let any = r.next_u64();
        let unaligned = r.chance(1, 2);
        let chunk = if unaligned {
            2048 + r.below(2049)
        } else {
            pick(&mut r, &[2048, 4096]) as u32
        };
        let chunks = pick(&mut r, &[1, 2, 3, 16, 1 << 20, u32::MAX as u64]);
        let partial = unaligned && chunks < u32::MAX as u64;
        let size = chunks * chunk as u64
            + if partial {
                pick(&mut r, &[0, 1, 100])
            } else {
                0
            };
        let meta = if r.chance(1, 2) {
            None
        } else {
            Some(8 * (2 + r.below(30)))
        };
        let mut p = reg(size, chunk, unaligned, meta).unwrap();
        if r.chance(1, 2) {
            p.pages = Pages::Split;
        }
        let near = |r: &mut Rng, x: u64| x.wrapping_add(r.below(9) as u64).wrapping_sub(4);
        let c = chunk as u64;
        let base = pick(
            &mut r,
            &[0, c, size, size - c, 1 << 32, 1 << 48, u64::MAX, any],
        );
        let mut addr = near(&mut r, base);
        if unaligned && r.chance(1, 4) {
            addr = (addr & XSK_UNALIGNED_BUF_ADDR_MASK) | (any << 48);
        }
        let len = pick(&mut r, &[0, 60, c, 1 << 32, any & 0xffff]);
        let len = near(&mut r, len) as u32;
        let options = pick(&mut r, &[0, 1, 2, 3, 4, 1 << 31, any >> 32]) as u32;
        let want = if unaligned {
            legal_unaligned(&p, addr, len, options)
        } else {
            legal_aligned(&p, addr, len, options)
        };
        assert_eq!(
            check(&p, addr, len, options),
            want,
            "{p:?} addr {addr:#x} len {len:#x} options {options:#x}"
        );
        valid[unaligned as usize] += want as u32;
    }
    assert!(
        valid.iter().all(|&n| n > 2_000),
        "too few valid samples: {valid:?}"
    );
}

#[test]
fn unaligned_offset_is_added() {
    let p = reg(16 * 2048, 3000, true, None).unwrap();
    // 0x10 in bits 48..63 plus 0x100: address 0x110.
    let addr = (0x10 << 48) | 0x100;
    assert_eq!(xp_unaligned_add_offset_to_addr(&addr, Mutant::None), 0x110);
    assert!(check(&p, addr, 60, 0));
    assert!(!xp_validate_desc_as(
        &p,
        &Desc::new(addr, 60, 0),
        Mutant::OffsetUnmasked
    ));
}

#[test]
fn metadata_sits_before_addr() {
    let p = reg(16 * 2048, 2048, false, Some(16)).unwrap();
    assert!(!check(&p, 0, 60, 0), "no room for metadata before chunk 0");
    assert!(check(&p, 16, 60, 0));
    assert!(check(&p, 16, 2048 - 16, 0));
    assert!(!check(&p, 16, 2048 - 15, 0));
    // XDP_TX_METADATA passes the check with or without tx_metadata_len.
    assert!(check(&p, 16, 60, XDP_TX_METADATA));
    assert!(check(
        &Pool::aligned(2048, 16 * 2048),
        0,
        60,
        XDP_TX_METADATA
    ));
}

#[test]
fn split_pages_refuse_crossing() {
    let mut p = reg(16 * 4096, 3000, true, None).unwrap();
    assert!(check(&p, 4000, 200, 0));
    p.pages = Pages::Split;
    assert!(!check(&p, 4000, 200, 0));
    assert!(check(&p, 4096 - 200, 200, 0));
}

#[test]
fn reg_refuses_what_the_kernel_refuses() {
    assert_eq!(reg(4096, 1024, false, None), Err(RegError::ChunkSize(1024)));
    assert_eq!(reg(4096, 8192, false, None), Err(RegError::ChunkSize(8192)));
    assert_eq!(
        reg(3 * 3000, 3000, false, None),
        Err(RegError::ChunkNotPow2(3000))
    );
    assert_eq!(reg(2047, 2048, false, None), Err(RegError::Chunks(0)));
    assert_eq!(reg(3 * 2048 + 1, 2048, false, None), Err(RegError::Partial));
    assert_eq!(
        reg(4096, 2048, false, Some(8)),
        Err(RegError::MetadataLen(8))
    );
    assert_eq!(
        reg(4096, 2048, false, Some(20)),
        Err(RegError::MetadataLen(20))
    );
    assert_eq!(
        reg(4096, 2048, false, Some(256)),
        Err(RegError::MetadataLen(256))
    );
    assert_eq!(
        reg((u32::MAX as u64 + 1) * 4096, 4096, false, None),
        Err(RegError::Pages(1 << 32))
    );
    assert!(reg(u32::MAX as u64 * 4096, 4096, false, Some(248)).is_ok());
    assert!(reg(3 * 3000 + 7, 3000, true, None).is_ok());
}

/// Every unaligned boundary descriptor gets the oracle's verdict, with
/// pages contiguous (copy mode) and split, for power-of-two and other
/// chunk sizes; both verdicts occur so the grid can tell them apart.
#[test]
fn unaligned_grid_matches_oracle() {
    for chunk in [2048u32, 3000, 4096] {
        let size = 16 * PAGE_SIZE;
        for pages in [Pages::Contiguous, Pages::Split] {
            let mut p = reg(size, chunk, true, None).expect("unaligned umem registers");
            p.pages = pages;
            let grid = boundary_grid_unaligned(chunk as u64, size);
            let mut seen = [false; 2];
            for g in &grid {
                let want = legal_unaligned(&p, g.addr, g.len, g.options);
                assert_eq!(
                    check(&p, g.addr, g.len, g.options),
                    want,
                    "{chunk} {pages:?} {}",
                    g.what
                );
                seen[want as usize] = true;
            }
            assert_eq!(seen, [true, true], "{chunk} {pages:?}");
        }
    }
}
