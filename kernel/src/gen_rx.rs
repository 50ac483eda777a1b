//! Receive scenarios, one seed in eight: an RX socket, for half of them a
//! second one sharing its umem on the same queue, and frames the XDP
//! program redirects to either, drops or passes, mixed (XDP_DROP_HALF's
//! alternation among them) with fills, RX consumption on both sockets,
//! statistics and the rings. They reach what single-socket scenarios
//! cannot: two RX rings drawing on one fill ring and one free list, and
//! frames that must leave no trace on any ring or counter. Fills hand in
//! only chunks the application holds (the model, run alongside, says
//! which), as an application does and as XskRx's UserFill requires, so
//! the receive chain can validate them.

use ringlab_model::afxdp::{Model, Op, Profile, Scenario, Setup, XdpAct};
use ringlab_model::rng::Rng;

use crate::gen::{fit, inject_lens, setup};

/// Whether `seed`'s scenario is a receive scenario (never a grid seed).
pub fn carries_rx(seed: u64) -> bool {
    seed % 8 == 3
}

/// The frames of one injection: lengths as single-socket injections draw
/// them, each given an action; or alternately redirected and dropped.
fn frames(r: &mut Rng, lens: Vec<u32>, shared: bool) -> Vec<(u32, XdpAct)> {
    let half = r.chance(1, 4);
    let w = [4, if shared { 3 } else { 1 }, 2, 1];
    lens.into_iter()
        .enumerate()
        .map(|(k, len)| {
            let act = match (half, r.weighted(&w)) {
                (true, _) if k % 2 == 0 => XdpAct::Redirect,
                (true, _) => XdpAct::Drop,
                (false, 0) => XdpAct::Redirect,
                (false, 1) => XdpAct::Redirect2,
                (false, 2) => XdpAct::Drop,
                _ => XdpAct::Pass,
            };
            (len, act)
        })
        .collect()
}

/// Up to `n` fill addresses from the next one on, as long as the
/// application holds each chunk; None if it holds not even the first.
fn fill(m: &Model, s: &Setup, n: u32) -> Option<Op> {
    let held = (0..n.min(s.frames) as u64).take_while(|&k| m.rx_chunk_place(s.fill_addr(m.fill_seq + k)).is_none()).count() as u32;
    (held > 0).then_some(Op::Fill(held))
}

/// The receive scenario of `seed`; its TX socket's ring holds a TX
/// budget of `budget` (the runner sets the budget on every TX socket).
pub fn scenario(seed: u64, budget: u32) -> Scenario {
    let mut r = Rng::new(seed);
    let mut s = setup(&mut r);
    fit(&mut r, &mut s, budget);
    s.rx_socket = true;
    s.rx_shared = r.chance(1, 2);
    s.shared = false;
    let sh = s.rx_shared as u32;
    let mut ops = Vec::new();
    let mut m = Model::new(&s, &Profile::for_release("6.12"));
    for _ in 0..6 + r.below(24) {
        let w = [4, 5, 1, 3, 3 * sh, 2, 1, 1];
        let op = match r.weighted(&w) {
            0 => match fill(&m, &s, r.one_to(s.fill_size)) {
                Some(op) => op,
                None => continue,
            },
            1 => {
                let lens = inject_lens(&mut r, &s);
                Op::InjectAs(frames(&mut r, lens, s.rx_shared))
            }
            2 => Op::Inject(inject_lens(&mut r, &s)),
            3 => Op::ConsumeRx(r.one_to(s.rx_size + 2)),
            4 => Op::ConsumeRx2(r.one_to(s.rx_size + 2)),
            5 => Op::Stats,
            6 => Op::Rings,
            _ => Op::PollRx,
        };
        m.apply(&op);
        ops.push(op);
    }
    ops.push(Op::Stats);
    Scenario { setup: s, ops }
}
