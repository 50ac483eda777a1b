use super::super::ring::{Builder, PARAMS};
use super::super::{by_name, in_fresh_context, run, Outcome};
use super::*;
use ringlab_model::desc::{Pages, UmemReg};
use std::collections::HashMap;
use z3::{SatResult, Solver};

fn sat(hyp: &[Bool], more: &[Bool]) -> bool {
    let s = Solver::new();
    for h in hyp.iter().chain(more) {
        s.assert(h);
    }
    match s.check() {
        SatResult::Sat => true,
        SatResult::Unsat => false,
        SatResult::Unknown => panic!("unknown"),
    }
}

/// Guards against vacuous obligations: under each guard some descriptor
/// is legal and some is not, and the check accepts some.
#[test]
fn every_obligation_has_legal_and_illegal_descriptors() {
    for mode in [Mode::Aligned, Mode::Unaligned] {
        in_fresh_context(move || {
            let mut b = Builder::new(PARAMS[0]);
            let qs = queries(&mut b, mode, Mutant::None);
            let vc = b.finish(vec![]);
            for (i, q) in qs.iter().enumerate() {
                assert!(
                    sat(&vc.hyp, &[q.guard.clone(), q.legal.clone()]),
                    "{mode:?} {i}: nothing legal"
                );
                assert!(
                    sat(&vc.hyp, &[q.guard.clone(), q.legal.not()]),
                    "{mode:?} {i}: nothing illegal"
                );
                assert!(
                    sat(&vc.hyp, &[q.guard.clone(), q.accepted.clone()]),
                    "{mode:?} {i}: nothing accepted"
                );
            }
        });
    }
}

/// The pools the proofs range over are the ones ringlab_model's
/// xdp_umem_reg() accepts, on samples at the edges of each limit.
#[test]
fn pool_hypotheses_match_umem_reg() {
    let chunks = [1024u64, 2048, 3000, 4096, 6144, 8192, 65536, 131072];
    let metas = [None, Some(8), Some(16), Some(20), Some(248), Some(256)];
    for mode in [Mode::Aligned, Mode::Unaligned] {
        in_fresh_context(move || {
            let mut b = Builder::new(PARAMS[0]);
            let _ = queries(&mut b, mode, Mutant::None);
            let vc = b.finish(vec![]);
            let get = |n: &str| {
                vc.free
                    .iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, v)| v.clone())
                    .unwrap()
            };
            let pages: &[u64] = if mode == Mode::Aligned {
                &[ALIGNED_PAGE]
            } else {
                &PAGES
            };
            for &page in pages {
                for c in chunks {
                    let sizes = [
                        0,
                        c - 1,
                        c,
                        3 * c,
                        3 * c + 1,
                        u32::MAX as u64 * c,
                        (u32::MAX as u64 + 1) * c,
                    ];
                    for size in sizes {
                        for meta in metas {
                            let reg = UmemReg {
                                size,
                                chunk_size: c as u32,
                                unaligned: mode == Mode::Unaligned,
                                tx_metadata_len: meta,
                                page_size: page,
                            };
                            let ok = reg.xdp_umem_reg(Pages::Contiguous).is_ok();
                            let mut fix = vec![
                                get("chunk_size").eq(c),
                                get("umem_size").eq(size),
                                get("tx_metadata_len").eq(meta.unwrap_or(0) as u64),
                            ];
                            if mode == Mode::Unaligned {
                                fix.push(get("page_size").eq(page));
                            }
                            assert_eq!(sat(&vc.hyp, &fix), ok, "{reg:?}");
                        }
                    }
                }
            }
        });
    }
}

fn counterexample(name: &str) -> HashMap<String, u64> {
    match run(&by_name(name).unwrap()).outcome {
        Outcome::Refuted { counterexample } => counterexample.into_iter().collect(),
        o => panic!("{name}: expected a counterexample, got {o:?}"),
    }
}

/// Each mutant's counterexample, re-run on u64 through the model: the
/// mutant and the kernel's check disagree on it, as the proof says.
#[test]
fn counterexamples_replay_on_u64() {
    for (name, m) in [
        ("desc-no-straddle", Mutant::NoStraddle),
        ("desc-chunk-end-exclusive", Mutant::ChunkEndExclusive),
        ("desc-sum-u32", Mutant::SumU32),
        ("desc-umem-end-inclusive", Mutant::UmemEndInclusive),
        ("desc-offset-unmasked", Mutant::OffsetUnmasked),
    ] {
        let cx = counterexample(name);
        let unaligned = cx.contains_key("page_size");
        let pool = Pool {
            unaligned,
            chunk_size: cx["chunk_size"],
            addrs_cnt: cx["umem_size"],
            tx_metadata_len: cx["tx_metadata_len"],
            pages: if cx.get("split_pages") == Some(&1) {
                Pages::Split
            } else {
                Pages::Contiguous
            },
            page_size: cx.get("page_size").copied().unwrap_or(ALIGNED_PAGE),
        };
        let d = Desc::new(cx["addr"], cx["len"] as u32, cx["options"] as u32);
        let kernel = xp_validate_desc_as(&pool, &d, Mutant::None);
        let mutant = xp_validate_desc_as(&pool, &d, m);
        assert_ne!(kernel, mutant, "{name}: {cx:?}");
        assert_eq!(
            (cx["legal"], cx["accepted"]),
            (kernel as u64, mutant as u64),
            "{name}"
        );
    }
}
