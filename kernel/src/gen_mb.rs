//! Generated multi-buffer packets (XDP_PKT_CONTD), and the shared-umem
//! scenarios whose two sockets transmit at the same time.

use ringlab_model::afxdp::{Op, Scenario, Setup, TxDesc, XDP_PKT_CONTD};
use ringlab_model::rng::Rng;

use crate::gen::{fit, invalid, pick, CLASSES, MAX_WIRE};

/// MAX_SKB_FRAGS of an x86-64 kernel built with the default
/// CONFIG_MAX_SKB_FRAGS: packets of 18 descriptors pass, 19 overflow.
pub const MAX_SKB_FRAGS: u32 = 17;

/// A valid fragment: short, so that most packets fit a 1500-MTU veth.
fn frag(r: &mut Rng, s: &Setup) -> TxDesc {
    let fs = s.frame_size as u64;
    let frame = r.below(s.frames) as u64;
    let len = pick(r, &[1, 14, 60, 100, 200]);
    let offset = pick(r, &[0, fs - len as u64, 1]);
    TxDesc { addr: frame * fs + offset, len, options: 0, class: "frag".into() }
}

/// One packet: XDP_PKT_CONTD on all but the last descriptor; sometimes on
/// the last too (the packet goes on in a later batch), sometimes one
/// descriptor replaced by an invalid one; lengths up to two past the
/// MAX_SKB_FRAGS + 1 limit.
pub fn packet(r: &mut Rng, s: &Setup) -> Vec<TxDesc> {
    let m = MAX_SKB_FRAGS;
    let n = pick(r, &[2, 2, 3, 5, m, m + 1, m + 2, m + 3]) as usize;
    let mut v: Vec<TxDesc> = (0..n).map(|_| frag(r, s)).collect();
    for d in &mut v[..n - 1] {
        d.options |= XDP_PKT_CONTD;
    }
    if r.chance(1, 4) {
        v[n - 1].options |= XDP_PKT_CONTD;
        v[n - 1].class = "frag, packet open".into();
    }
    if r.chance(1, 4) {
        let i = r.below(n as u32) as usize;
        let class = pick(r, &CLASSES);
        let mut bad = invalid(r, s, class);
        bad.options |= v[i].options & XDP_PKT_CONTD;
        v[i] = bad;
    }
    v
}

/// A valid single-buffer descriptor in socket `owner`'s half of the umem
/// (Setup::owner), of a length veth forwards.
fn owned(r: &mut Rng, s: &Setup, owner: u32) -> TxDesc {
    let (fs, half) = (s.frame_size as u64, s.frames / 2);
    let frame = (owner * half + r.below(half)) as u64;
    let any = 14 + r.below(MAX_WIRE - 13);
    let len = pick(r, &[14, 60, MAX_WIRE, any]);
    let offset = pick(r, &[0, fs - len as u64]);
    TxDesc { addr: frame * fs + offset, len, options: 0, class: format!("valid, socket {owner}") }
}

/// Two sockets sharing a umem kick at the same time. Each ring holds at
/// most one sendto's budget of descriptors (32, or the larger budget the
/// ring was fitted to) and the CQ twice that, at least 64, so every
/// KickBoth finds room for all of both, and only valid single-buffer
/// descriptors are sent: no lone completion (xsk_cq_submit_addr_single_locked)
/// can meet the other socket's reserved slot, and so the result of each
/// call does not depend on how the two interleave.
pub fn concurrent(r: &mut Rng, mut s: Setup, budget: u32) -> Scenario {
    s.sg = false;
    s.tx_size = pick(r, &[8, 16, 32]);
    fit(r, &mut s, budget);
    s.comp_size = (2 * s.tx_size).max(64);
    let mut ops = Vec::new();
    for _ in 0..3 + r.below(12) {
        ops.push(match r.weighted(&[4, 4, 4, 1, 1]) {
            0 => Op::Tx((0..r.one_to(s.tx_size)).map(|_| owned(r, &s, 0)).collect()),
            1 => Op::Tx2((0..r.one_to(s.tx_size)).map(|_| owned(r, &s, 1)).collect()),
            2 => Op::KickBoth,
            3 => Op::Stats,
            _ => Op::Rings,
        });
    }
    ops.push(Op::KickBoth);
    ops.push(Op::Stats);
    Scenario { setup: s, ops }
}
