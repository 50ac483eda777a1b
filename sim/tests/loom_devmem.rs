//! loom: array-mode token releases (seed 004) under every interleaving
//! (up to LOOM_MAX_PREEMPTIONS, default 3) of the threads that touch one
//! net_iov's uref and pp_ref_count: a release racing unbind's cleanup, two
//! releases of the same token through two sockets of the binding, two
//! releases of two tokens racing unbind, and a receive racing unbind. Each
//! starts from one net_iov whose frag was queued in two pieces and one
//! piece read: the skb's reference and one token's. Afterwards: no counter below zero, pp_ref_count back to the
//! skb's reference alone, the net_iov not yet in the pool, and, once the
//! skb is freed, pushed to it exactly once.
//!
//! One more, in xarray mode (6.12.117), finds a leak the spec's atomic
//! RecvMsg cannot show: a release of an id that recvmsg has reserved but
//! not yet filled in erases the reservation, and the reference recvmsg
//! then takes has no token naming it.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p ringlab-sim --release --test loom_devmem`
//!
//! Kills (`ringlab mutants`): zcrx-uref-race (a release reads uref > 0
//! and decrements it later: unbind's exchange or the other release gets
//! in between, uref goes to -1 and one reference is dropped twice).
#![cfg(loom)]

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use loom::thread;
use ringlab_sim::devmem::{Cost, Devmem, DevmemConfig, DmabufToken, Mode, Niov, RecvError, Sock};

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(f);
}

const S0: Sock = Sock { b: 0, i: 0 };

/// One array-mode binding, two sockets, one net_iov; its frag queued on
/// socket 0 in two pieces, the first read: pp_ref_count 2, uref 1.
fn system() -> Devmem {
    let cfg = DevmemConfig::new(&[Mode::Array], 1, 2, 1, 2).limit(4, 4);
    let mut sys = Devmem::new(cfg).unwrap();
    sys.bind_rx(0, Mode::Array).unwrap();
    sys.rx_frag(S0, Niov { b: 0, i: 0 }).unwrap();
    sys.recv_msg(S0, true).unwrap();
    assert_eq!(sys.bindings[0].niovs[0].counts(), (2, 1));
    sys
}

/// SO_DEVMEM_DONTNEED of token 0 through socket k, on a thread; how many
/// tokens it released.
fn release(sys: &Devmem, k: usize) -> thread::JoinHandle<usize> {
    let s = sys.socks[k].clone();
    thread::spawn(move || {
        let t = [DmabufToken {
            token_start: 0,
            token_count: 1,
        }];
        s.devmem_dontneed(&t, 4, &mut Cost::default())
            .unwrap()
            .freed
            .len()
    })
}

fn unbind(sys: &Devmem) -> thread::JoinHandle<()> {
    let (b, socks) = (sys.bindings[0].clone(), sys.socks.clone());
    thread::spawn(move || b.unbind(&socks, &mut Cost::default()).unwrap())
}

/// After the threads: no underflow, only the skb's reference left (or
/// none, if its last piece was read), nothing in the pool yet; then close
/// frees what is queued and the net_iov is pushed exactly once.
fn settled(sys: &Devmem, skb_refs: i64) {
    let b = &sys.bindings[0];
    let (pp, uref) = b.niovs[0].counts();
    assert!(
        pp >= 0 && uref >= 0,
        "underflow: pp_ref_count {pp}, uref {uref}"
    );
    assert_eq!(uref, 0, "a token is still counted");
    assert_eq!(pp, skb_refs, "pp_ref_count is not the skb's references");
    assert_eq!(b.pool.returned(), [u64::from(skb_refs == 0)]);
    for s in &sys.socks {
        s.close(&mut Cost::default()).unwrap();
    }
    assert_eq!(b.niovs[0].counts(), (0, 0));
    assert_eq!(
        b.pool.returned(),
        [1],
        "the net_iov is pushed to the pool exactly once"
    );
}

/// The application returns its token while unbind's cleanup exchanges
/// every uref with zero: exactly one of them drops the token's reference.
#[test]
fn release_races_unbind_cleanup() {
    model(|| {
        let sys = system();
        let r = release(&sys, 0);
        let u = unbind(&sys);
        let freed = r.join().unwrap();
        u.join().unwrap();
        assert!(freed <= 1);
        settled(&sys, 1);
    });
}

/// The token, handed to socket 0, returned through socket 0 and through
/// socket 1 at once (array mode counts tokens per net_iov): one release
/// takes it, the other finds none.
#[test]
fn two_releases_of_one_token_through_two_sockets() {
    model(|| {
        let sys = system();
        let a = release(&sys, 0);
        let b = release(&sys, 1);
        let freed = a.join().unwrap() + b.join().unwrap();
        assert_eq!(freed, 1, "the one token was released {freed} times");
        settled(&sys, 1);
    });
}

/// Both pieces read (two tokens on the net_iov, the skb freed), then
/// both returned, through each socket, while unbind cleans up: every
/// token's reference is dropped once, by whichever gets it.
#[test]
fn two_releases_race_unbind() {
    model(|| {
        let mut sys = system();
        sys.recv_msg(S0, true).unwrap();
        assert_eq!(sys.bindings[0].niovs[0].counts(), (2, 2));
        let a = release(&sys, 0);
        let b = release(&sys, 1);
        let u = unbind(&sys);
        let freed = a.join().unwrap() + b.join().unwrap();
        u.join().unwrap();
        assert!(freed <= 2);
        settled(&sys, 0);
    });
}

/// The second piece read while unbind runs: either the token is handed
/// out first and unbind's cleanup drops it, or the receive finds the
/// binding unbound and hands out none; no token outlives the unbind.
#[test]
fn receive_races_unbind() {
    model(|| {
        let sys = system();
        let s = sys.socks[0].clone();
        let r = thread::spawn(move || s.recvmsg_dmabuf(true, &mut Cost::default()));
        let u = unbind(&sys);
        let got = r.join().unwrap();
        u.join().unwrap();
        match got {
            Ok(p) => {
                assert_eq!(p.token, 0);
                settled(&sys, 0);
            }
            Err(e) => {
                assert_eq!(e, RecvError::Unbound);
                settled(&sys, 1);
            }
        }
    });
}

/// Xarray mode (6.12.117): SO_DEVMEM_DONTNEED takes no socket lock, and
/// tcp_recvmsg_dmabuf() reserves its id (XA_ZERO_ENTRY) under xa_lock_bh,
/// drops the lock to write the cmsg and take the reference, then fills the
/// id in with __xa_cmpxchg(), ignoring its result. A release of that id
/// in between (an application returning a token it has not been given
/// yet) erases the reservation: the reference is then held with no token
/// naming it, and close does not find it. Some interleaving leaks so; none
/// goes below zero.
#[test]
fn xarray_release_of_a_reserved_id_leaks_a_reference() {
    static LEAKS: AtomicUsize = AtomicUsize::new(0);
    model(|| {
        let cfg = DevmemConfig::new(&[Mode::Xarray], 1, 1, 1, 1).limit(4, 4);
        let mut sys = Devmem::new(cfg).unwrap();
        sys.bind_rx(0, Mode::Xarray).unwrap();
        sys.rx_frag(S0, Niov { b: 0, i: 0 }).unwrap();
        let s = sys.socks[0].clone();
        let r = thread::spawn(move || s.recvmsg_dmabuf(true, &mut Cost::default()).unwrap());
        let guess = release(&sys, 0);
        let got = r.join().unwrap();
        let freed = guess.join().unwrap();
        assert_eq!(got.token, 0);
        let b = &sys.bindings[0];
        let (pp, _) = b.niovs[0].counts();
        assert!(pp >= 0, "underflow: pp_ref_count {pp}");
        let named = sys.socks[0].user_frags().entries().count() as i64;
        if pp != named {
            assert_eq!(
                (pp, named, freed),
                (1, 0, 0),
                "the only leak is the erased reservation's"
            );
            LEAKS.fetch_add(1, Relaxed);
        }
        sys.socks[0].close(&mut Cost::default()).unwrap();
        assert_eq!(
            b.niovs[0].counts().0,
            pp - named,
            "close drops what the xarray names"
        );
    });
    assert!(
        LEAKS.load(Relaxed) > 0,
        "no interleaving leaked a reference"
    );
}
