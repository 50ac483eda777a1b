//! The boundary descriptors a generated scenario may start with
//! (ringlab_model::desc::boundary_grid): every field at its edges. One
//! scenario seed in four carries them, and the first of every campaign
//! (campaign::scenario_seed), so each run meets every edge of the
//! descriptor check whatever its seed. They go out while the rings are
//! still empty, in Tx operations no larger than the TX ring or the
//! completion ring, each followed by enough sendto calls and a drain of
//! the completion ring that every one of them is read by the kernel.

use ringlab_model::afxdp::{Op, Profile, Setup, TxDesc, XDP_PKT_CONTD};
use ringlab_model::desc::{boundary_grid, XDP_TX_METADATA};

fn desc(addr: u64, len: u32, options: u32, what: &str) -> TxDesc {
    TxDesc {
        addr,
        len,
        options,
        class: format!("boundary: {what}"),
    }
}

/// Whether the scenario of `seed` starts with the grid.
pub fn carries_grid(seed: u64) -> bool {
    seed.is_multiple_of(4)
}

/// A seed near `seed` whose scenario starts with the grid.
pub fn with_grid(seed: u64) -> u64 {
    seed & !3
}

/// Whether scenarios for `p` may carry XDP_TX_METADATA: not under a batch
/// profile, whose traces the chain cannot project with it (a batch's
/// peek stops at any option, the spec's at XDP_PKT_CONTD only).
pub fn metadata_ok(p: &Profile) -> bool {
    p.tx_batch == 0
}

/// The operations that send the grid of `s`'s umem. A multi-buffer pair
/// (XDP_PKT_CONTD, then its end) is kept within one Tx, so that no
/// completion slot stays reserved across a drain. Under a batch profile
/// the pair's end carries no option instead of XDP_TX_METADATA.
///
/// Where the TX consumer is published only when a later call finds the
/// kernel's cache empty (6.12), a sendto that read descriptors can look
/// like one that read none and end KickIdle; there each descriptor gets a
/// KickIdle of its own (every call reads at least one while the
/// completion ring has room), and one more publishes the consumer so
/// that the next Tx finds the ring free. Every profile gets as many: on a
/// kernel that publishes on return (6.18) the extra kicks find nothing to
/// send, and the same seed gives the same scenario on both kernels
/// (`ringlab diff --kernels`).
pub fn block(s: &Setup, p: &Profile) -> Vec<Op> {
    let per = s.tx_size.min(s.comp_size) as usize;
    let mut groups: Vec<Vec<TxDesc>> = vec![vec![]];
    for g in boundary_grid(s.frame_size as u64, s.umem_len()) {
        let d = match g.options {
            XDP_TX_METADATA if !metadata_ok(p) => {
                desc(g.addr, g.len, 0, "end of the options bit 0 packet")
            }
            _ => desc(g.addr, g.len, g.options, &g.what),
        };
        let room = if d.options & XDP_PKT_CONTD != 0 { 2 } else { 1 };
        if groups.last().is_some_and(|cur| cur.len() + room > per) {
            groups.push(vec![]);
        }
        groups.last_mut().expect("one group").push(d);
    }
    let mut ops = vec![];
    for d in groups {
        let kicks = d.len() + 1;
        ops.push(Op::Tx(d));
        ops.extend(std::iter::repeat_n(Op::KickIdle, kicks));
        ops.push(Op::DrainCq(s.comp_size));
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::scenario_seed;
    use crate::gen::setup;
    use ringlab_model::afxdp::{aligned_valid, predict, Obs, Scenario};
    use ringlab_model::rng::Rng;

    /// Every Tx of the block fits both rings, and together they carry the
    /// whole grid, in as many Tx for every profile.
    #[test]
    fn block_fits_the_rings_and_carries_the_grid() {
        let mut r = Rng::new(3);
        let (plain, batch) = (Profile::for_release("6.18"), Profile::batch(16, 64));
        for _ in 0..200 {
            let s = setup(&mut r);
            let ops = block(&s, &plain);
            let txs = |ops: &[Op]| ops.iter().filter(|o| matches!(o, Op::Tx(_))).count();
            assert_eq!(txs(&ops), txs(&block(&s, &batch)));
            let mut n = 0;
            for op in &ops {
                if let Op::Tx(d) = op {
                    assert!(d.len() as u32 <= s.tx_size.min(s.comp_size));
                    n += d.len();
                }
            }
            assert_eq!(n, boundary_grid(s.frame_size as u64, s.umem_len()).len());
        }
    }

    /// The first scenario of every campaign starts with the grid, and
    /// about one in four of the others.
    #[test]
    fn every_campaign_sends_the_grid() {
        let p = Profile::for_release("6.18");
        let starts = |seed: u64| {
            let s = crate::gen::scenario_for(seed, &p);
            matches!(s.ops.first(), Some(Op::Tx(d)) if d[0].class.starts_with("boundary: "))
        };
        for seed in [0, 1, 7, 0x5eed_0001, u64::MAX] {
            assert!(starts(scenario_seed(seed, 0)), "campaign {seed:#x}");
        }
        let n = (1..400).filter(|&i| starts(scenario_seed(9, i))).count();
        assert!((60..140).contains(&n), "{n} of 399");
    }

    /// Under every profile the model's kernel reads every boundary
    /// descriptor: each comes back on the completion ring, and each
    /// invalid one is counted.
    #[test]
    fn the_kernel_reads_the_whole_grid() {
        let profiles = [
            Profile::for_release("6.12"),
            Profile::for_release("6.18"),
            Profile::batch(0, 32),
            Profile::batch(1, 32),
            Profile::batch(16, 64),
            Profile::batch(64, 256),
        ];
        let mut r = Rng::new(5);
        for _ in 0..100 {
            let s = setup(&mut r);
            let grid = boundary_grid(s.frame_size as u64, s.umem_len());
            let invalid = grid
                .iter()
                .filter(|g| !aligned_valid(g.addr, g.len, g.options, s.frame_size, s.umem_len()));
            let invalid = invalid.count() as u64;
            for p in &profiles {
                let mut ops = block(&s, p);
                ops.push(Op::Stats);
                let obs = predict(
                    &Scenario {
                        setup: s.clone(),
                        ops,
                    },
                    p,
                );
                let Some(Obs::Stats { tx, .. }) = obs.iter().rev().nth(1) else {
                    panic!("no stats")
                };
                let completed: usize = obs
                    .iter()
                    .map(|o| match o {
                        Obs::Completions(c) => c.len(),
                        _ => 0,
                    })
                    .sum();
                let what = format!("{} batch {}, {s:?}", p.name, p.tx_batch);
                assert_eq!(completed, grid.len(), "{what}");
                assert_eq!(tx.tx_invalid_descs, invalid, "{what}");
            }
        }
    }
}
