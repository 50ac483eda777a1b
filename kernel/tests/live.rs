//! ringlab diff on the running kernel: a seeded campaign, and fixed
//! scenarios after xskxceiver (SEND_RECEIVE, ALIGNED_INV_DESC,
//! TX_QUEUE_CONSUMER). Prints SKIP and passes when this process cannot use
//! AF_XDP (not root, no AF_XDP). Built with a mutant-diff-* feature (a
//! wrong model), these tests fail: that is how `ringlab mutants` sees the
//! wrong model caught.

use ringlab_kernel::campaign::{self, in_sandbox, Opts};
use ringlab_kernel::compare::check;
use ringlab_kernel::env::{release, skip_reason};
use ringlab_model::afxdp::{predict, Invalid, Obs, Op, Profile, Scenario, Setup, TxDesc};

fn skip() -> bool {
    match skip_reason() {
        Some(why) => {
            println!("SKIP: {why}");
            true
        }
        None => false,
    }
}

fn setup(rx_socket: bool, loopback: bool) -> Setup {
    Setup {
        frame_size: 4096,
        frames: 64,
        headroom: 0,
        fill_size: 64,
        comp_size: 64,
        rx_size: 64,
        tx_size: 64,
        need_wakeup: true,
        rx_socket,
        loopback,
    }
}

fn desc(addr: u64, len: u32, options: u32, class: &str) -> TxDesc {
    TxDesc { addr, len, options, class: class.into() }
}

/// Runs `s` on the kernel; panics with both sides on a divergence.
fn agree(s: Scenario) {
    let p = Profile::for_release(&release());
    let want = predict(&s, &p);
    let m = in_sandbox(move |env| check(env, &s, &p)).unwrap();
    assert!(m.is_none(), "kernel diverges from the model: {m:?}\nmodel: {want:?}");
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
    let sum = campaign::run(Opts { scenarios: 500, seed, progress: false, out: None, stop_after: Some(1) }).unwrap();
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

/// The rules where the running kernel differs from 6.12's source, each
/// shown on the kernel: a full CQ, the consumer after sendto, odd addresses.
#[test]
fn profile_rules() {
    if skip() {
        return;
    }
    let mut st = setup(false, false);
    st.comp_size = 4;
    let descs: Vec<_> = (0..6).map(|k| desc(k * 4096 + 1, 64, 0, "valid odd")).collect();
    agree(Scenario { setup: st, ops: vec![Op::Tx(descs), Op::Kick, Op::DrainCq(8), Op::Kick, Op::DrainCq(8), Op::Stats] });
}
