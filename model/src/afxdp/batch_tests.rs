//! The batch path (batch.rs) against the per-descriptor loop under the
//! same completion design, and the cases only batches meet.

use super::*;

const EAGAIN: i32 = 11;
const EBUSY: i32 = 16;

fn setup(comp_size: u32, tx_size: u32) -> Setup {
    Setup {
        frame_size: 4096,
        frames: 64,
        headroom: 0,
        fill_size: 4,
        comp_size,
        rx_size: 4,
        tx_size,
        need_wakeup: false,
        rx_socket: false,
        loopback: false,
        sg: false,
        shared: false,
        rx_shared: false,
    }
}

fn d(frame: u64, len: u32) -> TxDesc {
    TxDesc { addr: frame * 4096, len, options: 0, class: "valid".into() }
}

/// `n` frames of 60 bytes, from frame `first` on.
fn run(first: u64, n: u64) -> Vec<TxDesc> {
    (first..first + n).map(|f| d(f % 64, 60)).collect()
}

fn addrs(frames: std::ops::Range<u64>) -> Vec<u64> {
    frames.map(|f| f * 4096).collect()
}

fn kicks(o: &Obs) -> Vec<i32> {
    let Obs::Kicks(k) = o else { panic!("not kicks: {o:?}") };
    k.clone()
}

/// Scenarios on which batch 1 and the per-descriptor loop agree: each
/// call ends with the same descriptors taken and, where the consumer is
/// compared, after a peek that found the ring empty.
fn agreeing() -> Vec<Scenario> {
    let bad = TxDesc { addr: 3, len: 0, options: 0, class: "ZeroLen".into() };
    let mut mixed = run(0, 5);
    mixed.push(bad);
    mixed.extend(run(10, 3));
    let mut dropped = run(0, 6);
    dropped[3].len = 1600;
    vec![
        Scenario { setup: setup(64, 64), ops: vec![Op::Tx(run(0, 40)), Op::KickIdle, Op::DrainCq(64), Op::Stats] },
        Scenario {
            setup: setup(64, 16),
            ops: vec![Op::Tx(mixed), Op::Kick, Op::Stats, Op::KickIdle, Op::DrainCq(64), Op::Stats],
        },
        Scenario {
            setup: setup(64, 16),
            ops: vec![Op::Tx(dropped), Op::Kick, Op::DrainCq(64), Op::KickIdle, Op::DrainCq(64)],
        },
        Scenario {
            setup: setup(4, 16),
            ops: vec![
                Op::Tx(run(0, 10)),
                Op::Kick,
                Op::DrainCq(2),
                Op::Kick,
                Op::DrainCq(8),
                Op::KickIdle,
                Op::DrainCq(8),
            ],
        },
    ]
}

#[test]
fn batch_1_agrees_with_per_descriptor() {
    for budget in [32, 40] {
        for s in agreeing() {
            assert_eq!(predict(&s, &Profile::batch(1, budget)), predict(&s, &Profile::design_b(budget)), "{s:?}");
        }
    }
}

#[test]
fn batches_agree_with_per_descriptor_on_whole_calls() {
    for batch in [4, 16, 64] {
        for s in agreeing() {
            assert_eq!(
                predict(&s, &Profile::batch(batch, 32)),
                predict(&s, &Profile::design_b(32)),
                "batch {batch}: {s:?}"
            );
        }
    }
}

/// The batch peek re-reads the producer without publishing the consumer
/// (xskq_cons_nb_entries), where the per-descriptor peek publishes it
/// first (xskq_cons_get_entries): after a call that ended with the ring
/// empty but unpublished, the next one that stops early shows it.
#[test]
fn batch_peek_does_not_publish_consumer() {
    let mut first = run(0, 4);
    first[3].len = 1600; // dropped by veth: EBUSY with the ring empty
    let s =
        Scenario { setup: setup(64, 64), ops: vec![Op::Tx(first), Op::Kick, Op::Tx(run(4, 40)), Op::Kick, Op::Rings] };
    let per = predict(&s, &Profile::design_b(32));
    let bat = predict(&s, &Profile::batch(1, 32));
    assert_eq!((kicks(&per[1]), kicks(&per[3])), (vec![EBUSY], vec![EAGAIN]));
    assert_eq!((kicks(&bat[1]), kicks(&bat[3])), (vec![EBUSY], vec![EAGAIN]));
    let (Obs::Rings(p), Obs::Rings(b)) = (&per[4], &bat[4]) else { panic!() };
    assert_eq!((p.tx, b.tx), ((44, 4), (44, 0)));
}

/// A frame veth drops in the middle of a batch is completed; the skbs
/// after it give their descriptors back and their slots, -EBUSY.
#[test]
fn veth_drop_inside_a_batch() {
    let mut descs = run(0, 10);
    descs[4].len = 1519;
    let s = Scenario {
        setup: setup(64, 16),
        ops: vec![Op::Tx(descs), Op::Kick, Op::DrainCq(64), Op::Kick, Op::DrainCq(64), Op::Stats, Op::Rings],
    };
    let o = predict(&s, &Profile::batch(16, 32));
    assert_eq!(kicks(&o[1]), vec![EBUSY]);
    assert_eq!(o[2], Obs::Completions(addrs(0..5)));
    assert_eq!(kicks(&o[3]), vec![0]);
    assert_eq!(o[4], Obs::Completions(addrs(5..10)));
    let Obs::Stats { tx, .. } = &o[5] else { panic!() };
    assert_eq!((tx.tx_invalid_descs, tx.tx_ring_empty_descs), (0, 1));
    let Obs::Rings(r) = o[6] else { panic!() };
    assert_eq!((r.tx, r.cq), ((10, 10), (10, 10)));
}

/// A CQ with fewer free slots than the batch: as many as fit are sent, the
/// next batch finds no slot and the call returns 0 (6.12.117's
/// cq_full_errno), the rest waiting in the TX ring.
#[test]
fn cq_smaller_than_the_batch() {
    let s = Scenario {
        setup: setup(4, 16),
        ops: vec![
            Op::Tx(run(0, 10)),
            Op::Kick,
            Op::Rings,
            Op::DrainCq(3),
            Op::Kick,
            Op::DrainCq(64),
            Op::DrainCq(64),
            Op::Rings,
        ],
    };
    let o = predict(&s, &Profile::batch(16, 32));
    assert_eq!(kicks(&o[1]), vec![0]);
    let Obs::Rings(r) = o[2] else { panic!() };
    assert_eq!((r.tx, r.cq), ((10, 0), (4, 0)));
    assert_eq!(o[3], Obs::Completions(addrs(0..3)));
    // Three slots free: frames 4, 5, 6; the user's peek first ends the
    // window it had cached (frame 3).
    assert_eq!(kicks(&o[4]), vec![0]);
    assert_eq!(o[5], Obs::Completions(addrs(3..4)));
    assert_eq!(o[6], Obs::Completions(addrs(4..7)));
    let Obs::Rings(r) = o[7] else { panic!() };
    assert_eq!((r.tx, r.cq), ((10, 0), (7, 7)));
}

/// Budget 40 with batches of 16: 16 + 16 + 8, then the per-descriptor
/// budget check returns -EAGAIN with the next descriptor in place.
#[test]
fn budget_not_a_multiple_of_the_batch() {
    let s = Scenario {
        setup: setup(64, 64),
        ops: vec![Op::Tx(run(0, 64)), Op::Kick, Op::DrainCq(64), Op::Kick, Op::DrainCq(64), Op::Rings],
    };
    let o = predict(&s, &Profile::batch(16, 40));
    assert_eq!(kicks(&o[1]), vec![EAGAIN]);
    assert_eq!(o[2], Obs::Completions(addrs(0..40)));
    assert_eq!(kicks(&o[3]), vec![0]);
    assert_eq!(o[4], Obs::Completions(addrs(40..64)));
    let Obs::Rings(r) = o[5] else { panic!() };
    assert_eq!(r.tx, (64, 64));
}

/// A multi-buffer packet between plain frames goes through the
/// per-descriptor loop, the plain frames around it in batches; the
/// completions are the same in ring order.
#[test]
fn multi_buffer_packet_between_batches() {
    let mut descs = run(0, 3);
    descs.extend((3..6).map(|f| TxDesc { options: if f < 5 { XDP_PKT_CONTD } else { 0 }, ..d(f, 100) }));
    descs.extend(run(6, 3));
    let s = Scenario {
        setup: Setup { sg: true, ..setup(64, 16) },
        ops: vec![Op::Tx(descs), Op::KickIdle, Op::DrainCq(64), Op::Stats, Op::Rings],
    };
    let o = predict(&s, &Profile::batch(16, 32));
    assert_eq!(o[2], Obs::Completions(addrs(0..9)));
    assert_eq!(o, predict(&s, &Profile::design_b(32)));
}
