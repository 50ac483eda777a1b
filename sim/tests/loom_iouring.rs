//! loom: a SEND_ZC notification's last reference under every
//! interleaving (up to LOOM_MAX_PREEMPTIONS, default 3) of the threads
//! that put it: the submitter completing the request (io_send_zc's
//! io_notif_flush, then io_submit_flush_completions and the task work it
//! runs) racing the network stack freeing the skbs that hold the other
//! references (skb_zcopy_clear -> io_tx_ubuf_complete). Whichever put is
//! last queues the task work; afterwards the request's CQE and exactly
//! one notification CQE are posted, the notification after the request's
//! CQE, and the pages are unpinned.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p ringlab-sim --release --test loom_iouring`
//!
//! Kills (`ringlab mutants`): iou-notif-order (the stack's put posts the
//! notification at once, before the submitter flushes the request's CQE).
#![cfg(loom)]

use loom::thread;
use ringlab_model::iouring_zc::{Config, Fail, NdState, PrepOutcome, Reuse, SendOutcome};
use ringlab_sim::protocols::iouring_zc::{IoUringZc, IoUringZcConfig};

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(f);
}

/// One request of `len` units on a socket of `skbs` skbs; it has sent
/// all but one unit, one per skb, and is being issued again: its
/// notification holds the submitter's reference and one per skb.
fn system(len: u32, skbs: u8) -> IoUringZc {
    let spec = Config {
        n_reqs: 1,
        req_len: len,
        max_skbs: skbs,
        sq_size: 1,
        cq_size: 2,
        batch: 1,
        fixed: false,
        link: false,
        fails: vec![Fail::Eagain],
        reuse: Reuse::Notif,
        ..Config::zc_notif()
    };
    let mut sys = IoUringZc::new(IoUringZcConfig::from_spec(spec).starts(u32::MAX, u32::MAX)).unwrap();
    sys.user_submit(1).unwrap();
    sys.io_uring_enter().unwrap();
    sys.io_send_zc_prep(PrepOutcome::Ok).unwrap();
    for k in 1..=skbs {
        sys.io_send_zc(1, 1, SendOutcome::Eagain, &[k]).unwrap();
        sys.io_poll_retry(1).unwrap();
    }
    assert_eq!(sys.ctx.notif(1).refs(), 1 + i64::from(skbs));
    sys
}

/// The submitter's task: the last unit onto the request's skb 1, the
/// request CQE flushed, task work run if it is queued by then.
fn submitter(sys: &IoUringZc) -> thread::JoinHandle<()> {
    let ctx = sys.ctx.clone();
    thread::spawn(move || {
        ctx.io_send_zc(1, 1, SendOutcome::All, &[1]).unwrap();
        ctx.io_submit_flush_completions().unwrap();
        let _ = ctx.io_run_task_work();
    })
}

/// The stack frees skb k.
fn free(sys: &IoUringZc, k: u8) -> thread::JoinHandle<()> {
    let ctx = sys.ctx.clone();
    thread::spawn(move || {
        // skb 1 may be gone and made anew by the submitter's unit.
        let _ = ctx.skb_free(k);
    })
}

/// After the threads: whatever skb is left freed and the task work run
/// (the submitter's next io_uring_enter); then the request's CQE, one
/// notification after it, and nothing pinned.
fn settled(mut sys: IoUringZc) {
    for k in sys.cfg.spec.skb_ids() {
        let _ = sys.skb_free(k);
    }
    while sys.io_run_task_work().is_ok() {}
    let st = sys.model_state();
    let kinds: Vec<(bool, bool)> = st.posted.iter().map(|c| (c.notif, c.more)).collect();
    assert_eq!(
        kinds,
        [(false, true), (true, false)],
        "the request CQE with F_MORE, then one notification: {:?}",
        st.posted
    );
    assert_eq!(st.posted[0].res, i64::from(sys.cfg.spec.req_len));
    assert_eq!(st.nd_of(1).state, NdState::Posted);
    assert_eq!(st.nd_of(1).refs, 0);
    assert_eq!(sys.ctx.bufs.pins(1), 0);
    assert!(st.tw.is_empty());
}

#[test]
fn the_last_put_races_the_request_completion() {
    model(|| {
        let sys = system(2, 1);
        let (a, b) = (submitter(&sys), free(&sys, 1));
        a.join().unwrap();
        b.join().unwrap();
        settled(sys);
    });
}

#[test]
fn two_skb_frees_race_the_request_completion() {
    model(|| {
        let sys = system(3, 2);
        let (a, b, c) = (submitter(&sys), free(&sys, 1), free(&sys, 2));
        a.join().unwrap();
        b.join().unwrap();
        c.join().unwrap();
        settled(sys);
    });
}
