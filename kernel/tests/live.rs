//! ringlab diff on the running kernel: a seeded campaign, and fixed
//! scenarios after xskxceiver (SEND_RECEIVE, ALIGNED_INV_DESC,
//! TX_QUEUE_CONSUMER), multi-buffer packets (the spec's two findings, F1
//! and F2, in docs/src/copy-tx.md), and two sockets sharing a umem. Prints SKIP and passes when this process cannot use
//! AF_XDP (not root, no AF_XDP). Built with a mutant-diff-* feature (a
//! wrong model), these tests fail: that is how `ringlab mutants` sees the
//! wrong model caught.

use ringlab_kernel::campaign::{self, in_sandbox, Opts};
use ringlab_kernel::compare::{check, compare};
use ringlab_kernel::env::release;
use ringlab_model::afxdp::{predict, Invalid, Obs, Op, Profile, RingIdx, Scenario, Setup, Stats, TxDesc, XDP_PKT_CONTD};
use ringlab_model::afxdp::{V6_12, V6_18};

mod common;

use common::{agree, desc, observe, setup, skip};

fn tx_stats(o: &Obs) -> Stats {
    let Obs::Stats { tx, .. } = o else { panic!("not stats: {o:?}") };
    *tx
}

fn rings(o: &Obs) -> RingIdx {
    let Obs::Rings(r) = o else { panic!("not rings: {o:?}") };
    *r
}

fn sg_setup() -> Setup {
    Setup { sg: true, ..setup(false, false) }
}

/// The CI campaign: 500 generated scenarios, model against kernel. It stops
/// at the first divergence (shrunk), which is what a wrong model built in
/// with a `mutant-diff-*` feature must produce.
#[test]
fn campaign_of_500() {
    if skip() {
        return;
    }
    let seed = 0x5eed_0001;
    println!("seed {seed}");
    let sum = campaign::run(Opts { scenarios: 500, seed, progress: false, out: None, stop_after: Some(1), jobs: 0, observe: false }).unwrap();
    println!("{} scenarios, {} operations, {} divergences", sum.scenarios, sum.operations, sum.divergences.len());
    assert!(sum.divergences.is_empty(), "seed {seed}: {:#?}", sum.divergences);
}

/// xskxceiver SEND_RECEIVE: frames sent by one socket arrive, in order and
/// intact, at the socket on the other end.
#[test]
fn send_receive() {
    if skip() {
        return;
    }
    let descs: Vec<_> = (0..16).map(|k| desc(k * 4096, 64 + k as u32, 0, "valid")).collect();
    let s = Scenario {
        setup: setup(true, true),
        ops: vec![Op::Fill(32), Op::Tx(descs), Op::KickIdle, Op::DrainCq(64), Op::ConsumeRx(64), Op::Stats],
    };
    let p = Profile::for_release(&release());
    let want = predict(&s, &p);
    let Obs::Rx(rx) = &want[4] else { panic!() };
    assert_eq!(rx.len(), 16, "the model delivers every frame");
    assert!(rx.iter().enumerate().all(|(k, d)| d.3 == k as u32), "tags in order");
    agree(s);
}

/// xskxceiver ALIGNED_INV_DESC: each class alone, then a valid frame;
/// the invalid one is counted and completed, the valid one sent.
#[test]
fn invalid_descriptor_table() {
    if skip() {
        return;
    }
    let s = setup(false, false);
    let umem = s.umem_len();
    let table = [
        (Invalid::ZeroLen, desc(0, 0, 0, "ZeroLen")),
        (Invalid::PastUmem, desc(umem, 64, 0, "PastUmem")),
        (Invalid::Straddle, desc(4096 - 10, 64, 0, "Straddle")),
        (Invalid::TooLong, desc(0, 9001, 0, "TooLong")),
        (Invalid::UnknownOption, desc(0, 64, 1 << 2, "UnknownOption")),
        (Invalid::AddrWraps, desc(u64::MAX - 5, 64, 0, "AddrWraps")),
        (Invalid::LenMax, desc(0, u32::MAX, 0, "LenMax")),
    ];
    for (class, bad) in table {
        let ops = vec![
            Op::Tx(vec![bad, desc(8192, 64, 0, "valid"), desc(umem - 64, 64, 0, "ends at the umem end")]),
            Op::KickIdle,
            Op::DrainCq(64),
            Op::Stats,
        ];
        let sc = Scenario { setup: s.clone(), ops };
        let want = predict(&sc, &Profile::for_release(&release()));
        let Obs::Stats { tx, .. } = want[3] else { panic!() };
        assert_eq!(tx.tx_invalid_descs, 1, "{class:?} is invalid");
        agree(sc);
    }
}

/// xskxceiver TX_QUEUE_CONSUMER: 33 descriptors, one sendto takes 32 and
/// says EAGAIN; the next takes the last.
#[test]
fn tx_queue_consumer_budget() {
    if skip() {
        return;
    }
    let descs: Vec<_> = (0..33).map(|k| desc(k * 4096, 64, 0, "valid")).collect();
    let s = Scenario { setup: setup(false, false), ops: vec![Op::Tx(descs), Op::Kick, Op::DrainCq(64), Op::Kick, Op::DrainCq(64)] };
    let want = predict(&s, &Profile::for_release(&release()));
    assert_eq!(want[1], Obs::Kicks(vec![11]));
    let Obs::Completions(c) = &want[2] else { panic!() };
    assert_eq!(c.len(), 32);
    agree(s);
}

/// A full CQ, the consumer after sendto, odd addresses: where the running
/// kernel differs from 6.12's source.
fn profile_rules_scenario() -> Scenario {
    let mut st = setup(false, false);
    st.comp_size = 4;
    let descs: Vec<_> = (0..6).map(|k| desc(k * 4096 + 1, 64, 0, "valid odd")).collect();
    Scenario { setup: st, ops: vec![Op::Tx(descs), Op::Kick, Op::DrainCq(8), Op::Kick, Op::DrainCq(8), Op::Stats] }
}

/// The rules where the running kernel differs from 6.12's source, each
/// shown on the kernel.
#[test]
fn profile_rules() {
    if skip() {
        return;
    }
    agree(profile_rules_scenario());
}

/// A wrong model is told apart: the same scenario predicted by the other
/// release's profile diverges from the kernel, at the first observation
/// where the two profiles differ, and agrees before it.
#[test]
fn the_other_releases_model_diverges() {
    if skip() {
        return;
    }
    let p = Profile::for_release(&release());
    let other = if p.name == V6_12.name { V6_18 } else { V6_12 };
    let s = profile_rules_scenario();
    let (right, wrong) = (predict(&s, &p), predict(&s, &other));
    let first = right.iter().zip(&wrong).position(|(a, b)| a != b).expect("the scenario tells the profiles apart");
    let checked = in_sandbox(move |env| check(env, &profile_rules_scenario(), &other)).unwrap();
    assert!(checked.is_some(), "check must report the divergence too");
    let c = in_sandbox(move |env| compare(env, &s, &other)).unwrap();
    assert_eq!(c.model, wrong);
    assert_eq!(c.kernel, right, "the kernel follows its own profile");
    let m = c.mismatch.expect("the other release's model must diverge");
    assert_eq!((m.at, &m.model, &m.kernel), (first, &wrong[first], &right[first]));
}

/// F1: f1 with XDP_PKT_CONTD, then an invalid descriptor (len 0) ending
/// the packet. 6.12.117's xsk_drop_skb cancels f1's reserved CQ slot
/// (xsk_consume_skb -> xsk_cq_cancel_locked), so only f2 would come back;
/// the running kernel decides which.
#[test]
fn f1_dropped_fragment_completed() {
    if skip() {
        return;
    }
    let (f1, f2) = (0x1000, 0x2000);
    let ops = vec![Op::Tx(vec![desc(f1, 60, XDP_PKT_CONTD, "f1"), desc(f2, 0, 0, "ZeroLen")]), Op::Kick, Op::DrainCq(64), Op::Stats];
    let s = Scenario { setup: sg_setup(), ops };
    let v612 = predict(&s, &ringlab_model::afxdp::Profile::for_release("6.12.117"));
    assert_eq!(v612[2], Obs::Completions(vec![f2]), "6.12.117's source: f1 never completes");
    println!("F1 on {}:", release());
    let k = observe(s);
    assert_eq!(tx_stats(&k[3]).tx_invalid_descs, 2, "f1 and f2 are counted invalid");
    if Profile::for_release(&release()).name == "6.18" {
        assert_eq!(k[2], Obs::Completions(vec![f1, f2]), "6.18: the dropped fragment comes back first");
    }
}

/// F2's precondition: a fragment submitted alone and kicked is consumed
/// (xs->skb holds it, its CQ slot reserved) and the TX consumer is
/// published past it before the packet's last descriptor exists, in
/// 6.12.117 by xskq_cons_peek_desc's refresh (xskq_cons_get_entries).
/// NETDEV_TX_BUSY on the last descriptor, which would take the consumer
/// back (xskq_cons_cancel_n), cannot be forced on this veth.
#[test]
fn f2_consumer_published_past_open_fragment() {
    if skip() {
        return;
    }
    let ops = vec![
        Op::Tx(vec![desc(0x1000, 60, XDP_PKT_CONTD, "f1")]),
        Op::Kick,
        Op::Rings,
        Op::DrainCq(64),
        Op::Tx(vec![desc(0x2000, 60, 0, "f2, last")]),
        Op::Kick,
        Op::DrainCq(64),
        Op::Rings,
    ];
    let s = Scenario { setup: sg_setup(), ops };
    println!("F2 on {}:", release());
    let k = observe(s);
    let open = rings(&k[2]);
    assert_eq!(open.tx, (1, 1), "the consumer is published past the open packet's fragment");
    assert_eq!(open.cq, (0, 0), "nothing completed yet");
    assert_eq!(k[3], Obs::Completions(vec![]));
    assert_eq!(k[6], Obs::Completions(vec![0x1000, 0x2000]), "the packet leaves whole with its last descriptor");
}

/// MAX_SKB_FRAGS + 1 descriptors make a packet; one more is -EOVERFLOW:
/// the packet dropped with the descriptor that overflowed, the rest
/// drained (xs->drain_cont), each counted invalid. Odd addresses show
/// which completions lose bit 0.
#[test]
fn multi_buffer_limits() {
    if skip() {
        return;
    }
    let p = Profile::for_release(&release());
    let sysctl = std::fs::read_to_string("/proc/sys/net/core/max_skb_frags").unwrap();
    assert_eq!(sysctl.trim().parse::<u32>().unwrap(), p.max_skb_frags, "MAX_SKB_FRAGS of the running kernel");
    let pkt = |n: u64, base: u64| -> Vec<TxDesc> {
        (0..n).map(|k| desc((base + k) * 4096 + 1, 60, if k + 1 < n { XDP_PKT_CONTD } else { 0 }, "frag")).collect()
    };
    let m = p.max_skb_frags as u64 + 1;
    let ops = vec![Op::Tx(pkt(m, 0)), Op::Kick, Op::DrainCq(64), Op::Tx(pkt(m + 2, 20)), Op::KickIdle, Op::DrainCq(64), Op::Stats];
    let k = observe(Scenario { setup: sg_setup(), ops });
    let Obs::Completions(sent) = &k[2] else { panic!() };
    assert_eq!(sent.len() as u64, m, "{m} descriptors are one packet");
    assert_eq!(tx_stats(&k[6]).tx_invalid_descs, m + 2, "the overflowing packet is counted invalid, whole");
}

fn shared_setup() -> Setup {
    Setup { shared: true, ..setup(false, false) }
}

/// Two sockets on one queue sharing a umem, hence one CQ. Calls one after
/// the other complete in call order (each skb is freed inside its
/// sendto on veth), so ring order is compared exactly; a packet left open
/// on one socket holds a reserved CQ slot while the other transmits and
/// completes an invalid descriptor alone.
#[test]
fn shared_umem_sequential() {
    if skip() {
        return;
    }
    let hi = 0x20000; // the second socket's half of the umem
    let ops = vec![
        Op::Tx(vec![desc(0x1001, 60, 0, "a1"), desc(0x2000, 60, 0, "a2")]),
        Op::Tx2(vec![desc(hi + 0x1001, 60, 0, "b1")]),
        Op::Kick2,
        Op::Kick,
        Op::DrainCq(64),
        Op::Tx(vec![desc(0x3000, 60, XDP_PKT_CONTD, "a3, packet open")]),
        Op::Kick,
        Op::Tx2(vec![desc(hi + 0x2000, 60, 0, "b2"), desc(hi + 0x3000, 0, 0, "b3 invalid")]),
        Op::Kick2,
        Op::DrainCq(64),
        Op::Tx(vec![desc(0x4000, 0, 0, "a4 invalid, ends a3's packet")]),
        Op::Kick,
        Op::DrainCq(64),
        Op::Stats,
    ];
    let s = Scenario { setup: Setup { sg: true, ..shared_setup() }, ops };
    // 6.12.117 writes a3's address into its slot at reserve time, so b2's
    // destructor publishes a3 (immature), and b3 waits behind a3's slot.
    let v612 = predict(&s, &ringlab_model::afxdp::Profile::for_release("6.12.117"));
    assert_eq!((&v612[9], &v612[8]), (&Obs::Completions(vec![0x3000]), &Obs::Kicks(vec![11])));
    let k = observe(s);
    assert_eq!(k[4], Obs::Completions(vec![hi + 0x1000, 0x1000, 0x2000]), "completions in call order");
    if Profile::for_release(&release()).name == "6.18" {
        assert_eq!(k[9], Obs::Completions(vec![hi + 0x2000, hi + 0x3000]), "b's, past a3's reserved slot");
        assert_eq!(k[12], Obs::Completions(vec![0x3000, 0x4000]), "a3 dropped and completed, then a4");
    }
}

/// Both sockets' sendto at once: each socket's completions in its own
/// transmit order, the interleaving of the two not compared (Obs::Both).
#[test]
fn shared_umem_concurrent() {
    if skip() {
        return;
    }
    let hi = 0x20000;
    let a: Vec<_> = (0..16).map(|k| desc(k * 4096, 60 + k as u32, 0, "a")).collect();
    let b: Vec<_> = (0..16).map(|k| desc(hi + k * 4096, 60 + k as u32, 0, "b")).collect();
    let ops = vec![Op::Tx(a.clone()), Op::Tx2(b.clone()), Op::KickBoth, Op::Tx(a), Op::Tx2(b), Op::KickBoth, Op::Stats, Op::Rings];
    let k = observe(Scenario { setup: shared_setup(), ops });
    let Obs::Both { kicks, first, second } = &k[2] else { panic!() };
    assert_eq!((kicks, first.len(), second.len()), (&[0, 0], 16, 16));
}
