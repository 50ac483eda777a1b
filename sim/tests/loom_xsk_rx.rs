//! loom: AF_XDP receive under every interleaving (up to
//! LOOM_MAX_PREEMPTIONS, default 3) of the threads that share its rings:
//! two CPUs receiving on the generic path into two sockets of one umem
//! (one fill ring, pool->rx_lock), the application filling the fill ring
//! while the queue's poll consumes it, and a socket's release racing a
//! poll that looks it up in the XSKMAP. Afterwards every buffer is in
//! exactly one place (BufConservation), and no CPU touched a freed
//! socket.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p ringlab-sim --release --test loom_xsk_rx`
//!
//! Kills (`ringlab mutants`): xsk-gen-rx-race (each CPU takes its own
//! socket's rx_lock: both are inside pool->fq at once, which loom
//! reports, and one fill ring entry is taken twice).
#![cfg(loom)]

use loom::thread;
use ringlab_model::xsk_rx::{Config, Fate, Sst, Verdict};
use ringlab_sim::xsk_rx::rcv::{rx_lock, xdp_do_flush, xsk_generic_rcv, xsk_map_redirect};
use ringlab_sim::xsk_rx::{Cost, XskRx, XskRxConfig};

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(f);
}

fn system(spec: Config) -> XskRx {
    XskRx::new(XskRxConfig::from_spec(spec)).unwrap()
}

/// Every buffer in exactly one place.
fn conserved(sys: &XskRx) {
    let st = sys.model_state();
    for b in sys.cfg.spec.bufs() {
        assert_eq!(st.places(&sys.cfg.spec, b), 1, "buffer {b}: {st:?}");
    }
}

/// Generic path, two sockets of one umem, two CPUs: the fill ring holds
/// buffers 1 and 2; CPU 0 receives packet 1 into socket 1 while CPU 1
/// receives packet 2 into socket 2. Each socket gets one buffer, not the
/// same one.
#[test]
fn two_cpus_share_the_fill_ring_under_the_pools_rx_lock() {
    model(|| {
        let spec = Config {
            n_bufs: 2,
            ..Config::generic()
        };
        let sys = system(spec);
        assert!(sys.app.fill(1) && sys.app.fill(2));
        let cpus: Vec<_> = [(0u8, 1u8), (1, 2)]
            .into_iter()
            .map(|(c, s)| {
                let (pool, sock) = (sys.pool.clone(), sys.socks[usize::from(s) - 1].clone());
                thread::spawn(move || xsk_generic_rcv(&pool, &sock, rx_lock(&pool, &sock), c, s, 1))
            })
            .collect();
        for h in cpus {
            assert_eq!(h.join().unwrap(), Fate::Rx);
        }
        let st = sys.model_state();
        assert_eq!(st.fq, Vec::<u8>::new());
        assert_eq!(st.fq_held, 0);
        let got: Vec<u8> = st.rx.iter().flatten().map(|d| d.buf).collect();
        assert_eq!(got.len(), 2);
        assert_ne!(got[0], got[1], "one fill ring entry taken twice: {st:?}");
        conserved(&sys);
    });
}

/// Driver path: the poll on CPU 0 receives one packet while the
/// application puts buffer 2 on the fill ring (buffer 1 is already on
/// it, or, in the second run, not). The poll takes an entry the
/// application published, or finds none; nothing is lost or doubled.
#[test]
fn the_user_refills_while_the_poll_consumes() {
    for prefilled in [true, false] {
        model(move || {
            let spec = Config {
                n_sockets: 1,
                n_bufs: 2,
                max_len: 1,
                fq_size: 2,
                rx_size: 2,
                ..Config::driver()
            };
            let sys = system(spec);
            if prefilled {
                assert!(sys.app.fill(1));
            }
            let app = sys.app.clone();
            let user = thread::spawn(move || app.fill(2));
            let (pool, sock, cpu, rxq) = (
                sys.pool.clone(),
                sys.socks[0].clone(),
                sys.cpus[0].clone(),
                sys.rxq.clone(),
            );
            let poll = thread::spawn(move || {
                assert!(rxq.napi_schedule(0));
                let mut cost = Cost::default();
                let f = xsk_map_redirect(&pool, &sock, &cpu, 1, 1, &mut cost);
                xdp_do_flush(&pool, &cpu, |_| &*sock, &mut cost);
                rxq.napi_complete(0);
                f
            });
            assert!(user.join().unwrap(), "the fill ring has room");
            let f = poll.join().unwrap();
            if prefilled {
                assert_eq!(f, Fate::Rx);
            }
            assert!(matches!(f, Fate::Rx | Fate::RxDropped), "{f:?}");
            let st = sys.model_state();
            assert_eq!(st.rx_pub[0] as usize, st.rx[0].len());
            conserved(&sys);
        });
    }
}

/// Driver path: a poll on CPU 0 looks index 1 up and receives into the
/// socket it finds, while the application closes socket 1: xsk_release()
/// takes it out of the XSKMAP, synchronize_net() waits for the poll
/// (here: the release takes the queue's NAPI itself once the poll has
/// ended), then the socket and its rings are freed. The poll never
/// touches the freed socket, and whatever it put on the rx ring goes back
/// to the application.
#[test]
fn release_racing_a_poll_waits_for_it() {
    model(|| {
        let spec = Config {
            n_sockets: 1,
            n_bufs: 1,
            max_len: 1,
            fq_size: 1,
            rx_size: 1,
            verdicts: vec![Verdict::Redirect],
            ..Config::driver()
        };
        let sys = system(spec);
        assert!(sys.app.fill(1));
        let (pool, sock, cpu, rxq, map) = (
            sys.pool.clone(),
            sys.socks[0].clone(),
            sys.cpus[0].clone(),
            sys.rxq.clone(),
            sys.map.clone(),
        );
        let poll = thread::spawn(move || {
            while !rxq.napi_schedule(0) {
                thread::yield_now();
            }
            let mut cost = Cost::default();
            let f = match map.lookup(1, &mut cost) {
                Some(_) => {
                    let st = sock.state();
                    assert_ne!(st, Sst::Freed, "the poll found a freed socket");
                    if st == Sst::Bound {
                        xsk_map_redirect(&pool, &sock, &cpu, 1, 1, &mut cost)
                    } else {
                        Fate::RedirectErr
                    }
                }
                None => Fate::RedirectErr,
            };
            xdp_do_flush(&pool, &cpu, |_| &*sock, &mut cost);
            rxq.napi_complete(0);
            f
        });
        let (sock, map, rxq, app) = (
            sys.socks[0].clone(),
            sys.map.clone(),
            sys.rxq.clone(),
            sys.app.clone(),
        );
        let release = thread::spawn(move || {
            sock.set_state(Sst::Unbinding);
            map.delete(1);
            // synchronize_net(): no poll that may have found the socket is
            // still running.
            while !rxq.napi_schedule(1) {
                thread::yield_now();
            }
            rxq.napi_complete(1);
            sock.set_state(Sst::Freed);
            app.freed(1, || {
                sock.rx_state().0.into_iter().map(|(b, _)| b).collect()
            });
        });
        release.join().unwrap();
        let f = poll.join().unwrap();
        assert!(matches!(f, Fate::Rx | Fate::RedirectErr), "{f:?}");
        conserved(&sys);
        let st = sys.model_state();
        assert!(st.rx[0].is_empty() && st.st[0] == Sst::Freed);
    });
}
