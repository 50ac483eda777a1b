//! loom: the shared completion queue of copy-mode transmit under every
//! interleaving (up to LOOM_MAX_PREEMPTIONS, default 3) of two sockets'
//! sendto calls, the driver freeing their skbs (the destructor publishing
//! under pool->cq_lock) and the application taking completions. Ring
//! counters start just below u32::MAX. loom's cell tracking fails any
//! completion slot access the lock and the ring barriers do not order.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p ringlab-sim --release --test loom_copytx`
//!
//! Kills (`ringlab mutants`): xsk-shared-cq-race (two reservations read
//! the same cached_prod and one slot is lost).
#![cfg(loom)]

use std::collections::BTreeSet;

use loom::thread;
use ringlab_sim::copy_tx::{CopyTx, CopyTxConfig, Design, Pool, Stage, TxResult, XskSock};
use ringlab_ring::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(f);
}

/// Two sockets, a frame per socket already submitted, rings of 2.
fn system(design: Design) -> CopyTx {
    let mut cfg = CopyTxConfig::new(design, 0, 2, 2);
    cfg.spec.outcomes = vec![TxResult::Sent];
    cfg.spec.alloc_fails = false;
    let mut sys = CopyTx::new(cfg).unwrap();
    for s in 0..2 {
        sys.user_submit(s, s as u32, true, false).unwrap();
    }
    sys
}

/// One whole sendto that sends the socket's one descriptor: each step the
/// kernel takes, the reservation in two where it is two (XmitReserve,
/// XmitReserveStore).
fn send_one(mut k: XskSock, pool: Arc<Pool>) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        k.sendto().unwrap();
        let mut sent = 0;
        loop {
            match k.call.stage {
                Stage::Loop => k.xmit_reserve(&pool).unwrap(),
                Stage::Reserving => k.xmit_reserve_store(&pool).unwrap(),
                Stage::Reserved => {
                    k.xmit_send(&pool, TxResult::Sent).unwrap();
                    sent = k.call.done;
                }
                Stage::Idle => break,
                other => panic!("stage {other:?} without a batch"),
            }
        }
        assert_eq!(sent, 1, "socket {} sent nothing", k.id);
    })
}

/// The driver frees `n` skbs as they come, newest first.
fn driver(
    sys_driver: ringlab_sim::copy_tx::Driver,
    pool: Arc<Pool>,
    n: u64,
) -> thread::JoinHandle<()> {
    let mut d = sys_driver;
    thread::spawn(move || {
        while d.freed < n {
            let len = pool.in_flight(|q| q.len());
            if len == 0 || !d.free_nth(&pool, len - 1) {
                thread::yield_now();
            }
        }
    })
}

fn shared_cq(design: Design) {
    model(move || {
        let CopyTx {
            pool,
            socks,
            driver: drv,
            mut app,
            ..
        } = system(design);
        let mut socks = socks.into_iter();
        let a = send_one(socks.next().unwrap(), pool.clone());
        let b = send_one(socks.next().unwrap(), pool.clone());
        let d = driver(drv, pool.clone(), 2);
        a.join().unwrap();
        b.join().unwrap();
        d.join().unwrap();
        let mut got = BTreeSet::new();
        while app.user_reap().is_ok() {}
        got.extend(app.free.iter().copied());
        assert_eq!(got, BTreeSet::from([0, 1]), "each frame completed once");
        assert_eq!(app.reaped, 2, "two completions");
    });
}

/// Design b: both sockets reserve under pool->cq_lock while the driver's
/// destructor stores addresses at ->producer and publishes them.
#[test]
fn shared_cq_two_sockets_and_the_destructor_design_b() {
    shared_cq(Design::B);
}

/// 6.12.117's reservation stores the address at once; the same race.
#[test]
fn shared_cq_two_sockets_and_the_destructor_design_a() {
    shared_cq(Design::A);
}

/// Design b, the application taking completions while the destructor
/// publishes them, and socket b's sendto reserves: every completion the
/// application loads is a frame sent, once. (The driver waits for each
/// socket by joining it, so only the application spins.)
#[test]
fn destructor_against_the_application() {
    model(|| {
        let CopyTx {
            pool,
            socks,
            driver: mut drv,
            mut app,
            ..
        } = system(Design::B);
        let mut socks = socks.into_iter();
        let a = send_one(socks.next().unwrap(), pool.clone());
        let b = send_one(socks.next().unwrap(), pool.clone());
        let p = pool.clone();
        let d = thread::spawn(move || {
            for h in [a, b] {
                h.join().unwrap();
                let len = p.in_flight(|q| q.len());
                if len > 0 {
                    assert!(drv.free_nth(&p, len - 1));
                }
            }
            while drv.free_nth(&p, 0) {}
        });
        let mut got = Vec::new();
        while got.len() < 2 {
            match app.user_reap() {
                Ok(f) => got.push(f),
                Err(_) => thread::yield_now(),
            }
        }
        got.sort();
        assert_eq!(got, [0, 1]);
        d.join().unwrap();
    });
}
