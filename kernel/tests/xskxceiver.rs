//! xskxceiver's statistics and poll cases that apply to copy mode on a
//! veth (STAT_TX_INVALID, STAT_RX_DROPPED, STAT_RX_FULL, STAT_FILL_EMPTY,
//! POLL_RX, POLL_TX, POLL_RXQ_FULL, POLL_TXQ_FULL), the need_wakeup flags,
//! and the overflow classes of invalid TX descriptors, as fixed scenarios:
//! each is predicted by the model under the running kernel's profile and
//! compared with the kernel at every operation. Prints SKIP and passes
//! when this process cannot use AF_XDP (not root, no AF_XDP).

use ringlab_kernel::campaign::in_sandbox;
use ringlab_kernel::env::release;
use ringlab_kernel::runner;
use ringlab_model::afxdp::{predict, Obs, Op, Profile, Scenario, Setup, Stats, POLLIN_MASK, POLLOUT_MASK};

mod common;

use common::{desc, setup, skip};

fn profile() -> Profile {
    Profile::for_release(&release())
}

/// The model's prediction of `s` under the running kernel's profile,
/// checked to be exactly what the kernel does; printed.
fn observe(name: &str, s: Scenario) -> Vec<Obs> {
    let p = profile();
    let want = predict(&s, &p);
    let k = in_sandbox(move |env| runner::run(env, &s)).unwrap();
    println!("{name} on {} (profile {}):", release(), p.name);
    for (i, o) in k.iter().enumerate() {
        println!("  {i}: {o:?}");
    }
    assert_eq!(want, k, "{name}: the kernel (right) diverges from the model under profile {}", p.name);
    k
}

fn stats(o: &Obs) -> (Stats, Option<Stats>) {
    let Obs::Stats { tx, rx, .. } = o else { panic!("not stats: {o:?}") };
    (*tx, *rx)
}

fn rx_stats(o: &Obs) -> Stats {
    stats(o).1.expect("an RX socket")
}

fn rx_len(o: &Obs) -> usize {
    let Obs::Rx(v) = o else { panic!("not rx: {o:?}") };
    v.len()
}

/// STAT_TX_INVALID, xskxceiver's shape: one batch, every other descriptor
/// too long for its frame. Each invalid one ends a sendto (it is completed
/// alone after the loop), so KickIdle calls again. (live.rs's
/// `invalid_descriptor_table` has each invalid class alone.)
#[test]
fn stat_tx_invalid() {
    if skip() {
        return;
    }
    let batch: Vec<_> = (0..16u64)
        .map(|k| if k % 2 == 0 { desc(k * 4096, 64, 0, "valid") } else { desc(k * 4096, 4097, 0, "TooLong") })
        .collect();
    let ops = vec![Op::Tx(batch), Op::KickIdle, Op::DrainCq(64), Op::Stats, Op::StatsLen(24)];
    let k = observe("STAT_TX_INVALID", Scenario { setup: setup(false, false), ops });
    assert_eq!(stats(&k[3]).0.tx_invalid_descs, 8);
    assert_eq!(k[4], Obs::StatsWords { tx: Ok(vec![0, 0, 8]), rx: None });
}

/// STAT_RX_DROPPED: a headroom that leaves 768 bytes of a 2048-byte frame
/// (pool->frame_len = 2048 - 1024 - XDP_PACKET_HEADROOM); longer frames
/// are dropped by xsk_rcv_check (rx_dropped, no buffer taken).
#[test]
fn stat_rx_dropped() {
    if skip() {
        return;
    }
    let st = Setup { frame_size: 2048, headroom: 1024, ..setup(true, false) };
    assert_eq!(st.rx_frame_len(), 768);
    let ops = vec![Op::Fill(16), Op::Inject(vec![60, 768, 769, 1000, 1514, 64]), Op::ConsumeRx(16), Op::Stats];
    let k = observe("STAT_RX_DROPPED", Scenario { setup: st, ops });
    assert_eq!(rx_len(&k[2]), 3);
    let Obs::Rx(v) = &k[2] else { unreachable!() };
    assert!(v.iter().all(|d| d.0 % 2048 == 256 + 1024), "data at XDP_PACKET_HEADROOM + headroom");
    let rx = rx_stats(&k[3]);
    assert_eq!((rx.rx_dropped, rx.rx_ring_full, rx.rx_fill_ring_empty_descs), (3, 0, 0));
}

/// STAT_RX_FULL: a 4-entry RX ring, 10 frames: 4 on the ring, 6 counted in
/// rx_ring_full (__xsk_rcv_zc), their buffers back on the pool's free
/// list, which the next frames take first (xp_alloc). The v1 statistics
/// struct folds rx_ring_full into rx_dropped (xsk_getsockopt); a shorter
/// optlen is EINVAL, a longer one gets the 48-byte struct.
#[test]
fn stat_rx_full() {
    if skip() {
        return;
    }
    let st = Setup { rx_size: 4, fill_size: 16, ..setup(true, false) };
    let ops = vec![
        Op::Fill(16),
        Op::Inject(vec![60; 10]),
        Op::Stats,
        Op::StatsLen(16),
        Op::StatsLen(24),
        Op::StatsLen(40),
        Op::StatsLen(48),
        Op::StatsLen(64),
        Op::ConsumeRx(2),
        Op::Inject(vec![60; 3]),
        Op::ConsumeRx(8),
        Op::ConsumeRx(8),
        Op::Stats,
    ];
    let k = observe("STAT_RX_FULL", Scenario { setup: st, ops });
    assert_eq!(rx_stats(&k[2]).rx_ring_full, 6);
    let Obs::StatsWords { rx: Some(v1), .. } = &k[4] else { panic!() };
    assert_eq!(v1, &Ok(vec![6, 0, 0]), "v1: rx_ring_full folded into rx_dropped");
    let Obs::StatsWords { rx: Some(full), .. } = &k[7] else { panic!() };
    assert_eq!(full.as_ref().map(|w| w.len()), Ok(6), "optlen 64 reads back 48");
    // libxdp's peek re-reads the producer only once its cached window is
    // used up, so the first read after a partial one sees the window's rest.
    assert_eq!((rx_len(&k[10]), rx_len(&k[11])), (2, 2));
    assert_eq!(rx_stats(&k[12]).rx_ring_full, 7);
}

/// STAT_FILL_EMPTY: frames with no buffer in the fill ring are dropped,
/// each counted in rx_fill_ring_empty_descs (__xp_alloc) and rx_dropped
/// (__xsk_rcv); two buffers then take two of the next three frames.
#[test]
fn stat_fill_empty() {
    if skip() {
        return;
    }
    let ops = vec![
        Op::Inject(vec![60; 3]),
        Op::Stats,
        Op::Fill(2),
        Op::Inject(vec![60; 3]),
        Op::ConsumeRx(8),
        Op::Stats,
        Op::Rings,
    ];
    let k = observe("STAT_FILL_EMPTY", Scenario { setup: setup(true, false), ops });
    let rx = rx_stats(&k[1]);
    assert_eq!((rx.rx_dropped, rx.rx_fill_ring_empty_descs), (3, 3));
    assert_eq!(rx_len(&k[4]), 2);
    let rx = rx_stats(&k[5]);
    assert_eq!((rx.rx_dropped, rx.rx_fill_ring_empty_descs), (4, 4));
}

/// POLL_TX and POLL_RX: frames sent by poll(2) alone (xsk_poll drives TX
/// in copy mode) arrive at the other socket, which polls for them:
/// POLLIN while its RX ring holds any, none once it is read.
#[test]
fn poll_tx_rx() {
    if skip() {
        return;
    }
    let descs: Vec<_> = (0..8).map(|k| desc(k * 4096, 64 + k as u32, 0, "valid")).collect();
    let ops = vec![
        Op::Fill(16),
        Op::PollRx,
        Op::Tx(descs),
        Op::Poll,
        Op::DrainCq(64),
        Op::PollRx,
        Op::ConsumeRx(3),
        Op::PollRx,
        Op::ConsumeRx(8),
        Op::PollRx,
        Op::Poll,
        Op::Stats,
    ];
    let k = observe("POLL_TX/POLL_RX", Scenario { setup: setup(true, true), ops });
    assert_eq!(k[1], Obs::Revents(0), "nothing to receive yet");
    assert_eq!(k[3], Obs::Revents(POLLOUT_MASK));
    let Obs::Completions(c) = &k[4] else { panic!() };
    assert_eq!(c.len(), 8, "poll sent every descriptor");
    assert_eq!((&k[5], &k[7], &k[9]), (&Obs::Revents(POLLIN_MASK), &Obs::Revents(POLLIN_MASK), &Obs::Revents(0)));
    assert_eq!(stats(&k[11]).0.tx_ring_empty_descs, 2, "each poll's transmit ends on an empty ring");
}

/// POLL_TXQ_FULL: a 16-entry TX ring full and a 4-entry completion ring,
/// so each poll sends 4; POLLOUT only once at most 8 descriptors are
/// pending by the published counters (xsk_tx_writeable). Under 6.12.117
/// the consumer is published only when the kernel's cached window is
/// used up (xskq_cons_get_entries: at the 4th poll, which empties the
/// ring), so POLLOUT comes two polls later than on a kernel that
/// publishes it as __xsk_generic_xmit returns (profile rule
/// tx_cons_published_on_return).
#[test]
fn poll_txq_full() {
    if skip() {
        return;
    }
    let st = Setup { tx_size: 16, comp_size: 4, ..setup(false, false) };
    let descs: Vec<_> = (0..16).map(|k| desc(k * 4096, 60, 0, "valid")).collect();
    let mut ops = vec![Op::Tx(descs)];
    for _ in 0..5 {
        ops.extend([Op::Poll, Op::Rings, Op::DrainCq(4)]);
    }
    let s = Scenario { setup: st, ops };
    let revents = |o: &[Obs]| -> Vec<Obs> { o.iter().filter(|x| matches!(x, Obs::Revents(_))).cloned().collect() };
    let (o, w) = (Obs::Revents(POLLOUT_MASK), Obs::Revents(0));
    let v612 = predict(&s, &Profile::for_release("6.12.117"));
    assert_eq!(revents(&v612), vec![w.clone(), w.clone(), w.clone(), o.clone(), o.clone()], "6.12.117");
    let v618 = predict(&s, &Profile::for_release("6.18.0"));
    assert_eq!(revents(&v618), vec![w.clone(), o.clone(), o.clone(), o.clone(), o.clone()], "6.18");
    observe("POLL_TXQ_FULL", s);
}

/// POLL_RXQ_FULL: a full RX ring polls POLLIN while further frames are
/// counted in rx_ring_full; emptied, it polls nothing (xskxceiver's
/// timeout).
#[test]
fn poll_rxq_full() {
    if skip() {
        return;
    }
    let st = Setup { rx_size: 4, fill_size: 8, ..setup(true, false) };
    let ops =
        vec![Op::Fill(8), Op::Inject(vec![60; 6]), Op::PollRx, Op::Stats, Op::ConsumeRx(8), Op::PollRx, Op::Rings];
    let k = observe("POLL_RXQ_FULL", Scenario { setup: st, ops });
    assert_eq!(k[2], Obs::Revents(POLLIN_MASK));
    assert_eq!(rx_stats(&k[3]).rx_ring_full, 2);
    assert_eq!(k[5], Obs::Revents(0));
}

/// XDP_USE_NEED_WAKEUP or not: the TX ring's XDP_RING_NEED_WAKEUP is set
/// by setsockopt(XDP_TX_RING) (xsk.c:1600) and never cleared in copy
/// mode; the fill ring's is never set (only drivers call
/// xsk_set_rx_need_wakeup), also when frames find it empty.
#[test]
fn need_wakeup_flags() {
    if skip() {
        return;
    }
    for nw in [true, false] {
        let st = Setup { need_wakeup: nw, ..setup(true, false) };
        let ops = vec![
            Op::Rings,
            Op::Tx(vec![desc(0, 60, 0, "valid")]),
            Op::Kick,
            Op::Rings,
            Op::Inject(vec![60; 2]),
            Op::Rings,
            Op::Fill(4),
            Op::Inject(vec![60; 2]),
            Op::PollRx,
            Op::Poll,
            Op::Rings,
        ];
        let k = observe(&format!("need_wakeup {nw}"), Scenario { setup: st, ops });
        for o in k.iter().filter(|o| matches!(o, Obs::Rings(_))) {
            let Obs::Rings(r) = o else { unreachable!() };
            assert_eq!(r.flags, [1, 0, 0, 0], "tx, cq, fill, rx");
        }
    }
}

/// The overflow classes of invalid TX descriptors: `offset + len` just
/// past 2^32 (passes if computed in u32), len u32::MAX - 100, an address
/// whose chunk offset is 0 but which wraps u64 with its length, and every
/// unknown option bit; each in a batch between valid descriptors.
#[test]
fn invalid_overflow_classes() {
    if skip() {
        return;
    }
    let st = setup(false, false);
    let off = 4096 - 16;
    let table = [
        desc(3 * 4096 + off, (u32::MAX - off as u32) + 1 + 60, 0, "LenWrapsU32: offset + len = 2^32 + 60"),
        desc(3 * 4096, u32::MAX - 100, 0, "len u32::MAX - 100"),
        desc(!4095, 60, 0, "AddrTopChunk"),
        desc(!4095, 4096, 0, "AddrTopChunk, whole chunk: addr + len = 2^64"),
        desc(u64::MAX - 59, 60, 0, "addr + len = 2^64"),
        desc(3 * 4096, 60, !0b11, "OptionsAllUnknown"),
        desc(3 * 4096, 60, 1 << 2, "first unknown option"),
    ];
    for bad in table {
        let class = bad.class.clone();
        let ops = vec![
            Op::Tx(vec![desc(0, 60, 0, "valid"), bad, desc(4096, 60, 0, "valid")]),
            Op::KickIdle,
            Op::DrainCq(64),
            Op::Stats,
        ];
        let s = Scenario { setup: st.clone(), ops };
        assert_eq!(stats(&predict(&s, &profile())[3]).0.tx_invalid_descs, 1, "{class} is invalid");
        let k = observe(&class, s);
        let Obs::Completions(c) = &k[2] else { panic!() };
        assert_eq!(c.len(), 3, "{class}: completed alone");
    }
}
