//! Scenarios drawn from a seed: a setup, for one seed in four the
//! boundary descriptors of its umem (gen_grid.rs), then operations mixing
//! valid TX descriptors with every invalid class, kicks, poll(2), completion
//! drains, statistics (also read with short and long optlens), and (with
//! an RX socket) fills, injected frames, RX consumption and polls; with
//! XDP_USE_SG multi-buffer packets, with a shared umem a second socket
//! (gen_mb.rs); long runs of frames for batches; one seed in eight a
//! receive scenario (gen_rx.rs). The same seed and profile always give the
//! same scenario.

use ringlab_model::afxdp::{Invalid, Op, Profile, Scenario, Setup, TxDesc};
use ringlab_model::rng::Rng;

use crate::{gen_grid, gen_mb, gen_rx};
use crate::txopts::TX_BATCH_SIZE;

/// The largest frame a 1500-MTU veth forwards (ETH_HLEN + MTU).
pub const MAX_WIRE: u32 = 1514;

pub(crate) fn pick<T: Copy>(r: &mut Rng, xs: &[T]) -> T {
    xs[r.below(xs.len() as u32) as usize]
}

pub fn setup(r: &mut Rng) -> Setup {
    let frame_size = pick(r, &[2048, 4096]);
    Setup {
        frame_size,
        frames: pick(r, &[16, 64]),
        headroom: pick(r, &[0, 128, 512]),
        fill_size: pick(r, &[4, 8, 32]),
        comp_size: pick(r, &[4, 8, 64, 64]),
        rx_size: pick(r, &[4, 8, 32]),
        tx_size: pick(r, &[8, 16, 64, 64]),
        need_wakeup: r.chance(1, 2),
        rx_socket: r.chance(1, 2),
        loopback: false,
        sg: r.chance(1, 3),
        shared: r.chance(1, 4),
        rx_shared: false,
    }
}

/// A descriptor the kernel must accept: inside one chunk of the umem, with
/// lengths a veth forwards; addr 0 and chunk-ending packets included.
pub(crate) fn valid(r: &mut Rng, s: &Setup) -> TxDesc {
    let fs = s.frame_size as u64;
    let any_frame = r.below(s.frames);
    let frame = pick(r, &[0, s.frames - 1, any_frame]) as u64;
    let any_len = r.one_to(MAX_WIRE);
    let len = pick(r, &[1, 13, 14, 60, MAX_WIRE, MAX_WIRE + 4, MAX_WIRE + 5, s.frame_size, any_len, any_len]);
    let offset = match r.below(3) {
        0 => 0,
        1 => fs - len as u64, // ends exactly at the chunk (or umem) end
        _ => r.below((fs - len as u64) as u32 + 1) as u64,
    };
    TxDesc { addr: frame * fs + offset, len, options: 0, class: "valid".into() }
}

pub(crate) fn invalid(r: &mut Rng, s: &Setup, class: Invalid) -> TxDesc {
    let fs = s.frame_size as u64;
    let base = r.below(s.frames) as u64 * fs;
    let (addr, len, options) = match class {
        Invalid::ZeroLen => (base, 0, 0),
        Invalid::PastUmem => (s.umem_len() + pick(r, &[0, 64, fs]), 60, 0),
        Invalid::Straddle => (base + fs - pick(r, &[1, 10, 59]), 60, 0),
        Invalid::TooLong => (base, pick(r, &[s.frame_size + 1, 9001]), 0),
        Invalid::UnknownOption => (base, 60, 1 << pick(r, &[2, 5, 31])),
        Invalid::AddrWraps => (u64::MAX - pick(r, &[0, 5, 100]), 60, 0),
        Invalid::LenMax => (base, u32::MAX, 0),
        Invalid::LenWrapsU32 => {
            let off = fs - pick(r, &[16, 60]);
            (base + off, (u32::MAX - off as u32) + 1 + pick(r, &[1, 60]), 0)
        }
        Invalid::AddrTopChunk => (!(fs - 1), pick(r, &[60, s.frame_size]), 0),
        Invalid::OptionsAllUnknown => (base, 60, !0b11),
    };
    TxDesc { addr, len, options, class: format!("{class:?}") }
}

pub(crate) const CLASSES: [Invalid; 10] = [
    Invalid::ZeroLen,
    Invalid::PastUmem,
    Invalid::Straddle,
    Invalid::TooLong,
    Invalid::UnknownOption,
    Invalid::AddrWraps,
    Invalid::LenMax,
    Invalid::LenWrapsU32,
    Invalid::AddrTopChunk,
    Invalid::OptionsAllUnknown,
];

/// XDP_MAX_TX_SKB_BUDGET takes at most the TX ring's entries: a budget
/// over 32 gets a ring that holds it, or twice that (room for a full
/// budget behind leftovers).
pub(crate) fn fit(r: &mut Rng, s: &mut Setup, budget: u32) {
    if budget > TX_BATCH_SIZE {
        s.tx_size = s.tx_size.max(budget.next_power_of_two() << r.below(2));
    }
}

/// A run of single-buffer frames as a batch takes them, longer or
/// shorter than batches of 16 and 64 and the budget: sometimes one that
/// veth drops (too short or too long), sometimes an invalid one, at any
/// place.
fn frame_run(r: &mut Rng, s: &Setup) -> Vec<TxDesc> {
    let n = pick(r, &[8, 16, 17, 31, 33, 63, 64, 65, 100, s.tx_size]).min(s.tx_size);
    let (fs, first) = (s.frame_size as u64, r.below(s.frames));
    let mut v: Vec<TxDesc> = (0..n)
        .map(|k| {
            let addr = ((first + k) % s.frames) as u64 * fs;
            TxDesc { addr, len: 14 + r.below(MAX_WIRE - 13), options: 0, class: "valid".into() }
        })
        .collect();
    if r.chance(1, 3) {
        let i = r.below(n) as usize;
        v[i].len = pick(r, &[1, 13, MAX_WIRE + 5, s.frame_size]);
        v[i].class = "valid, veth drops".into();
    }
    if r.chance(1, 3) {
        let (i, c) = (r.below(n) as usize, pick(r, &CLASSES));
        v[i] = invalid(r, s, c);
    }
    v
}

fn tx_descs(r: &mut Rng, s: &Setup) -> Vec<TxDesc> {
    if s.sg && r.chance(1, 2) {
        return gen_mb::packet(r, s);
    }
    if r.chance(1, 4) {
        return frame_run(r, s);
    }
    // TX_QUEUE_CONSUMER's shape: more clean frames than one sendto's budget.
    if s.tx_size >= 40 && r.chance(1, 3) {
        let n = 33 + r.below(8);
        let fs = s.frame_size as u64;
        return (0..n as u64)
            .map(|k| TxDesc { addr: (k % s.frames as u64) * fs, len: 60, options: 0, class: "valid".into() })
            .collect();
    }
    let n = r.one_to(s.tx_size.min(40));
    (0..n)
        .map(|_| {
            if r.chance(3, 4) {
                valid(r, s)
            } else {
                let c = pick(r, &CLASSES);
                invalid(r, s, c)
            }
        })
        .collect()
}

pub(crate) fn inject_lens(r: &mut Rng, s: &Setup) -> Vec<u32> {
    let big = s.rx_frame_len();
    (0..r.one_to(12))
        .map(|_| {
            let any = 18 + r.below(MAX_WIRE - 17);
            pick(r, &[18, 60, big, big + 1, MAX_WIRE, any]).min(MAX_WIRE)
        })
        .collect()
}

/// The scenario of `seed` for 6.12 with the default TX budget.
pub fn scenario(seed: u64) -> Scenario {
    scenario_for(seed, &Profile::for_release("6.12"))
}

/// The scenario of `seed` for profile `p`: the sockets' TX rings hold its
/// TX budget.
pub fn scenario_for(seed: u64, p: &Profile) -> Scenario {
    if gen_rx::carries_rx(seed) {
        return gen_rx::scenario(seed, p.tx_budget);
    }
    let budget = p.tx_budget;
    let mut r = Rng::new(seed);
    let mut s = setup(&mut r);
    fit(&mut r, &mut s, budget);
    if s.shared && r.chance(1, 2) {
        let mut c = gen_mb::concurrent(&mut r, s, budget);
        if gen_grid::carries_grid(seed) {
            c.ops.splice(0..0, gen_grid::block(&c.setup, p));
        }
        return c;
    }
    let n = 4 + r.below(24);
    let mut ops = if gen_grid::carries_grid(seed) { gen_grid::block(&s, p) } else { vec![] };
    for _ in 0..n {
        let (rx, sh) = (s.rx_socket as u32, s.shared as u32);
        let w = [6, 3, 4, 3, 2, 3 * rx, 3 * rx, 3 * rx, 4 * sh, 3 * sh, 1, 2, 2 * rx, 1];
        ops.push(match r.weighted(&w) {
            0 => Op::Tx(tx_descs(&mut r, &s)),
            1 => Op::Kick,
            2 => Op::KickIdle,
            3 => Op::DrainCq(r.one_to(s.comp_size + 2)),
            4 => Op::Stats,
            5 => Op::Fill(r.one_to(s.fill_size)),
            6 => Op::Inject(inject_lens(&mut r, &s)),
            7 => Op::ConsumeRx(r.one_to(s.rx_size + 2)),
            8 => Op::Tx2(tx_descs(&mut r, &s)),
            9 => Op::Kick2,
            10 => Op::Rings,
            11 => Op::Poll,
            12 => Op::PollRx,
            _ => Op::StatsLen(pick(&mut r, &[16, 24, 40, 48, 64])),
        });
    }
    ops.push(Op::KickIdle);
    if s.shared {
        ops.push(Op::Kick2);
    }
    ops.push(Op::Stats);
    Scenario { setup: s, ops }
}
