//! Unit tests of the actions whose semantics are easy to get wrong, of the
//! CPU symmetry and of the refinement mapping.

use super::tla::{action, constants, state_conjunction};
use super::*;
use crate::explore::SpecMachine;

const C0: Cpu = 0;
const C1: Cpu = 1;

/// Run `actions` from Init, each of which must be enabled.
fn run(cfg: &Config, actions: &[Action]) -> State {
    let mut s = State::init(cfg);
    for a in actions {
        assert!(s.enabled(cfg).contains(a), "{a} is not enabled");
        s = s.step(cfg, a).unwrap_or_else(|| panic!("{a} did not step"));
    }
    s
}

/// Run `actions` from `s`, each of which must be enabled.
fn run_from(cfg: &Config, mut s: State, actions: &[Action]) -> State {
    for a in actions {
        assert!(s.enabled(cfg).contains(a), "{a} is not enabled");
        s = s.step(cfg, a).unwrap_or_else(|| panic!("{a} did not step"));
    }
    s
}

fn redirect(c: Cpu, k: Sock, len: u8) -> Action {
    Action::XdpRun {
        c,
        v: Verdict::Redirect,
        k,
        len,
    }
}

/// Both buffers on the fill ring, a packet to socket 1 on each CPU, each
/// CPU holding its lock.
fn two_locked(cfg: &Config) -> State {
    run(
        cfg,
        &[
            Action::UserFill { b: 1 },
            Action::UserFill { b: 2 },
            redirect(C0, 1, 1),
            redirect(C1, 2, 1),
            Action::RxLock { c: C0 },
            Action::RxLock { c: C1 },
        ],
    )
}

#[test]
fn a_fill_ring_entry_is_read_then_taken() {
    let cfg = Config::generic();
    let s = run(
        &cfg,
        &[
            Action::UserFill { b: 2 },
            Action::UserFill { b: 1 },
            redirect(C0, 1, 1),
            Action::RxLock { c: C0 },
            Action::XpAllocPeek { c: C0 },
        ],
    );
    // The read leaves the ring as it was; only the take moves on.
    assert_eq!(
        (s.cpu[0].peek, s.fq.clone(), s.fq_held),
        (Some(2), vec![2, 1], 0)
    );
    assert!(s.xp_alloc_peek(&cfg, C0).is_none());
    assert!(s.xsk_rcv_reserve(&cfg, C0).is_none());
    let t = s.xp_alloc_take(&cfg, C0).unwrap();
    assert_eq!((t.cpu[0].bufs.clone(), t.cpu[0].peek), (vec![2], None));
    assert_eq!((t.fq.clone(), t.fq_held), (vec![1], 1));
    // The consumer is not published yet: the application has no room.
    assert!(t.user_fill(&cfg, 1).is_none());
    // The other CPU waits for pool->rx_lock.
    let u = t.step(&cfg, &redirect(C1, 2, 1)).unwrap();
    assert!(u.rx_lock(&cfg, C1).is_none());

    // Per-socket locks (xsk-gen-rx-race): both CPUs read the entry at
    // cached_cons, each takes one: buffer 1 twice, buffer 2 lost.
    let race = Config::generic().with_mutant(Mutant::XskGenRxRace);
    let mut s = two_locked(&race);
    for a in [
        Action::XpAllocPeek { c: C0 },
        Action::XpAllocPeek { c: C1 },
        Action::XpAllocTake { c: C0 },
        Action::XpAllocTake { c: C1 },
    ] {
        s = s.step(&race, &a).unwrap();
    }
    assert_eq!(
        (s.cpu[0].bufs.clone(), s.cpu[1].bufs.clone()),
        (vec![1], vec![1])
    );
    assert_eq!((s.fq.clone(), s.fq_held), (vec![], 2));
    assert_eq!((s.places(&race, 1), s.places(&race, 2)), (2, 0));
    assert_eq!(
        s.violated(&race, &["PktAccounted", "BufConservation"]),
        Some("BufConservation")
    );
}

#[test]
fn a_full_ring_puts_the_buffer_back_at_the_head_of_the_free_list() {
    let cfg = Config {
        n_bufs: 3,
        ..Config::driver()
    };
    let mut s = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            Action::UserFill { b: 2 },
            Action::NapiPoll { c: C0 },
            redirect(C0, 1, 1),
            Action::XpAllocPeek { c: C0 },
            Action::XpAllocTake { c: C0 },
            Action::XskRcvReserve { c: C0 },
            redirect(C0, 1, 1),
            Action::XpAllocPeek { c: C0 },
            Action::XpAllocTake { c: C0 },
        ],
    );
    assert_eq!(s.rx[0].len(), 1);
    assert_eq!(s.flush[0].iter().copied().collect::<Vec<_>>(), [1]);
    // Buffer 3 sits on the free list already (moved there from the
    // application, which keeps every buffer in exactly one place).
    s.ufree.remove(&3);
    s.kfree = vec![3];
    assert!(s.buf_conservation(&cfg));
    let t = s.xsk_rcv_reserve(&cfg, C0).unwrap();
    assert_eq!(t.kfree, [2, 3]);
    assert_eq!(t.rx[0].len(), 1);
    assert_eq!(t.cnt[0].rx_queue_full, 1);
    assert_eq!(t.fate[1], Fate::RxQueueFull);
    assert_eq!(t.cpu[0], Recv::IDLE);
    assert_eq!(t.violations(&cfg), Vec::<&str>::new());
    // rx-full-leak: the buffer is in no place.
    let leak = cfg.clone().with_mutant(Mutant::RxFullLeak);
    let t = s.xsk_rcv_reserve(&leak, C0).unwrap();
    assert_eq!(t.kfree, [3]);
    assert_eq!(t.places(&leak, 2), 0);
}

#[test]
fn a_packet_past_the_missing_room_check_leaves_what_does_not_fit() {
    let cfg = Config::driver().with_mutant(Mutant::RxMbNoSpaceCheck);
    let s = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            Action::UserFill { b: 2 },
            Action::NapiPoll { c: C0 },
            redirect(C0, 1, 2),
            Action::XskRcvCheckRoom { c: C0 },
            Action::XpAllocPeek { c: C0 },
            Action::XpAllocTake { c: C0 },
            Action::XpAllocPeek { c: C0 },
            Action::XpAllocTake { c: C0 },
            Action::XskRcvReserve { c: C0 },
        ],
    );
    assert_eq!(
        s.rx[0],
        [Desc {
            buf: 1,
            pkt: 1,
            contd: true
        }]
    );
    assert_eq!(s.kfree, [2]);
    let t = s.xdp_do_flush(&cfg, C0).unwrap();
    assert_eq!(t.rx_pub[0], 1);
    assert!(!t.multi_buf_all_or_none(&cfg));
    // With the check, two chunks do not fit a ring of one.
    let ok = Config::driver();
    let s = run(
        &ok,
        &[
            Action::UserFill { b: 1 },
            Action::UserFill { b: 2 },
            Action::NapiPoll { c: C0 },
            redirect(C0, 1, 2),
            Action::XskRcvCheckRoom { c: C0 },
        ],
    );
    assert_eq!((s.fate[0], s.cnt[0].rx_queue_full), (Fate::RxQueueFull, 1));
}

#[test]
fn the_fast_path_receives_into_the_queues_socket() {
    let cfg = Config::fast();
    let s = run(&cfg, &[Action::NapiPoll { c: C1 }]);
    assert_eq!(s.rxq_xsk, 1);
    // Index 1 names the queue's socket: XDP_REDIRECT_XSK.
    let t = s.step(&cfg, &redirect(C1, 1, 1)).unwrap();
    assert_eq!((t.cpu[1].sock, t.cpu[1].tgt, t.cpu[1].fast), (1, 1, true));
    // Index 2 is empty: the XSKMAP path's -ENXIO.
    let u = s.step(&cfg, &redirect(C1, 2, 1)).unwrap();
    assert_eq!(
        (u.fate[0], u.cpu[1].stage),
        (Fate::RedirectErr, Stage::Idle)
    );
    // The socket the fast path received into is the driver's to flush,
    // not on the XSKMAP flush list; the mapping puts it there.
    let mut r = run(
        &cfg,
        &[Action::UserFill { b: 2 }, Action::NapiPoll { c: C1 }],
    );
    for a in [
        redirect(C1, 1, 1),
        Action::XpAllocPeek { c: C1 },
        Action::XpAllocTake { c: C1 },
        Action::XskRcvReserve { c: C1 },
    ] {
        r = r.step(&cfg, &a).unwrap();
    }
    assert_eq!((r.fast_xs.clone(), r.flush[1].len()), (vec![0, 1], 0));
    let image = r.refinement_image();
    assert_eq!(image.flush[1].iter().copied().collect::<Vec<_>>(), [1]);
    assert_eq!((image.fast_xs.clone(), image.rxq_xsk), (vec![0, 0], 0));
    let done = r.xdp_do_flush(&cfg, C1).unwrap();
    assert_eq!((done.rx_pub[0], done.fast_xs[1], done.fq_held), (1, 0, 0));
    assert!(done.flushed_at_poll_end(&cfg));
    // Without flushing its own socket the driver leaves it unpublished.
    let missing = cfg.clone().with_mutant(Mutant::RedirectXskMissingFlush);
    assert!(!r
        .xdp_do_flush(&missing, C1)
        .unwrap()
        .flushed_at_poll_end(&missing));
    // Once socket 2 is bound too, the queue keeps none: the XSKMAP path.
    let two = s
        .step(&cfg, &Action::XskMapUpdate { k: 2, s: 2 })
        .and_then(|x| x.step(&cfg, &Action::XskBind { s: 2 }))
        .unwrap();
    let t = two.step(&cfg, &redirect(C1, 1, 1)).unwrap();
    assert_eq!((t.cpu[1].sock, t.cpu[1].fast), (1, false));
    // Seed 002's helper ignores the index: a receive into socket 1 for
    // index 2, which the XSKMAP path cannot take.
    let seed = cfg.clone().with_mutant(Mutant::RedirectXskIgnoreKey);
    let t = s.step(&seed, &redirect(C1, 2, 1)).unwrap();
    assert_eq!((t.cpu[1].sock, t.cpu[1].tgt, t.cpu[1].fast), (1, 0, true));
    assert!(!t.delivered_to_key(&seed));
    let abs = seed.refined();
    assert!(!refinement::refines_step(&abs, &s, &redirect(C1, 2, 1), &t));
    let ok = s.step(&cfg, &redirect(C1, 1, 1)).unwrap();
    assert!(refinement::refines_step(
        &cfg.refined(),
        &s,
        &redirect(C1, 1, 1),
        &ok
    ));
    assert!(refinement::refines_init(&abs, &State::init(&seed)));
}

#[test]
fn a_second_socket_binding_clears_the_queues_socket() {
    let cfg = Config::fast();
    let s = State::init(&cfg);
    assert_eq!(s.rxq_xsk, 1);
    let t = s.xsk_bind(&cfg, 2).unwrap();
    assert_eq!((t.st_of(2), t.rxq_xsk), (Sst::Bound, 0));
    assert!(t.rxq_xsk_in_step(&cfg));
    // It is not set again when the queue goes back to one socket.
    let u = t.xsk_release(&cfg, 1).unwrap();
    assert_eq!(u.rxq_xsk, 0);
    // rxq-xsk-two-sockets: the queue keeps the first.
    let two = cfg.clone().with_mutant(Mutant::RxqXskTwoSockets);
    let t = s.xsk_bind(&two, 2).unwrap();
    assert_eq!(t.rxq_xsk, 1);
    assert!(!t.rxq_xsk_in_step(&two));
    // Both sockets late: the first bound is kept, the second clears it.
    let late = Config {
        late_bind: vec![1, 2],
        ..Config::fast()
    };
    let s = State::init(&late);
    assert_eq!(s.rxq_xsk, 0);
    let t = s.xsk_bind(&late, 2).unwrap();
    assert_eq!(t.rxq_xsk, 2);
    assert_eq!(t.xsk_bind(&late, 1).unwrap().rxq_xsk, 0);
    // The XSKMAP path keeps no socket.
    let map = Config {
        redirect: Redirect::Map,
        ..late
    };
    assert_eq!(State::init(&map).xsk_bind(&map, 2).unwrap().rxq_xsk, 0);
    // Release takes the queue's socket away (rxq-xsk-stale: it stays).
    assert_eq!(State::init(&cfg).xsk_release(&cfg, 1).unwrap().rxq_xsk, 0);
    let stale = cfg.clone().with_mutant(Mutant::RxqXskStale);
    assert_eq!(
        State::init(&stale).xsk_release(&stale, 1).unwrap().rxq_xsk,
        1
    );
}

#[test]
fn a_packet_in_flight_keeps_the_socket_its_entry_named() {
    let cfg = Config {
        remap: true,
        ..Config::driver()
    };
    let s = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            Action::NapiPoll { c: C0 },
            redirect(C0, 1, 1),
        ],
    );
    assert_eq!((s.cpu[0].sock, s.cpu[0].tgt), (1, 1));
    // Entry 1 now names socket 2; socket 1 stays bound and in flight.
    let t = s.step(&cfg, &Action::XskMapUpdate { k: 1, s: 2 }).unwrap();
    assert_eq!((t.map.clone(), t.st_of(1)), (vec![2, 2], Sst::Bound));
    let t = run_from(&cfg, t, &[Action::XpAllocPeek { c: C0 }, Action::XpAllocTake { c: C0 }]);
    let t = t.step(&cfg, &Action::XskRcvReserve { c: C0 }).unwrap();
    assert_eq!((t.rx[0].len(), t.rx[1].len()), (1, 0));
    assert!(t.delivered_to_key(&cfg));
    // Without Remap only a socket into its own empty entry.
    let fixed = Config::driver();
    assert!(s.step(&fixed, &Action::XskMapUpdate { k: 1, s: 2 }).is_none());
    // The next packet for index 1 goes to socket 2.
    let u = t.step(&cfg, &redirect(C0, 1, 1)).unwrap();
    assert_eq!((u.cpu[0].sock, u.cpu[0].tgt), (2, 2));
}

#[test]
fn release_clears_every_entry_naming_the_socket() {
    let cfg = Config {
        remap: true,
        ..Config::driver()
    };
    let s = run(&cfg, &[Action::XskMapUpdate { k: 2, s: 1 }]);
    assert_eq!(s.map, vec![1, 1]);
    let t = run_from(&cfg, s.clone(), &[Action::XskRelease { s: 1 }, Action::XskReleaseDone { s: 1 }]);
    assert_eq!(t.map, vec![0, 0]);
    assert!(t.no_use_after_free(&cfg));
    // xskmap-release-own-entry: entry 2 still names the freed socket.
    let own = cfg.clone().with_mutant(Mutant::XskmapReleaseOwnEntry);
    let t = run_from(&own, s, &[Action::XskRelease { s: 1 }, Action::XskReleaseDone { s: 1 }]);
    assert_eq!(t.map, vec![0, 1]);
    assert!(!t.no_use_after_free(&own));
}

#[test]
fn the_fast_path_compares_the_entrys_socket() {
    let cfg = Config {
        remap: true,
        ..Config::fast()
    };
    // Index 2 names the queue's socket: XDP_REDIRECT_XSK.
    let s = run(&cfg, &[Action::XskMapUpdate { k: 2, s: 1 }, Action::NapiPoll { c: C1 }]);
    let t = s.step(&cfg, &redirect(C1, 2, 1)).unwrap();
    assert_eq!((t.cpu[1].sock, t.cpu[1].tgt, t.cpu[1].fast), (1, 1, true));
    // Entry 1 names socket 2, not bound: no fast path, -ENXIO.
    let s = run(&cfg, &[Action::XskMapUpdate { k: 1, s: 2 }, Action::NapiPoll { c: C1 }]);
    let t = s.step(&cfg, &redirect(C1, 1, 1)).unwrap();
    assert_eq!((t.fate[0], t.cpu[1].stage), (Fate::RedirectErr, Stage::Idle));
}

#[test]
fn release_waits_for_every_cpu_that_holds_the_socket() {
    let cfg = Config::driver();
    let s = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            Action::NapiPoll { c: C0 },
            redirect(C0, 1, 1),
            Action::XskRelease { s: 1 },
        ],
    );
    assert!(s.xsk_release_done(&cfg, 1).is_none());
    let nosync = cfg.clone().with_mutant(Mutant::RxReleaseNoSync);
    let t = s.xsk_release_done(&nosync, 1).unwrap();
    assert_eq!(
        t.violated(&nosync, &["NoUseAfterFree"]),
        Some("NoUseAfterFree")
    );
}

#[test]
fn cpus_are_symmetric() {
    let cfg = Config::generic();
    let m = Machine::new(cfg.clone()).with_symmetry();
    let a = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            redirect(C0, 1, 1),
            Action::RxLock { c: C0 },
        ],
    );
    let b = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            redirect(C1, 1, 1),
            Action::RxLock { c: C1 },
        ],
    );
    assert_ne!(a, b);
    assert_eq!(a.permuted(&[1, 0]), b);
    assert_eq!(b.lock[0], Some(C1));
    assert_eq!(m.canonical(&a), m.canonical(&b));
    assert_eq!(symmetry_group(&cfg).len(), 2);
    let p = run(&Config::driver(), &[Action::NapiPoll { c: C1 }]);
    assert_eq!(p.permuted(&[1, 0]).poller, Some(C0));
}

#[test]
fn fast_spec_has_no_generic_receive() {
    let fast = Spec::FastSpec;
    assert!(!fast.has(&Action::RxLock { c: C0 }));
    assert!(!fast.has(&Action::XskFlush { c: C0 }));
    assert!(fast.has(&Action::XskRcvReserve { c: C0 }));
    assert!(Spec::Spec.has(&Action::XskFlush { c: C0 }));
}

#[test]
fn prints_as_tla() {
    let cfg = Config::driver();
    let s = run(&cfg, &[Action::NapiPoll { c: C1 }]);
    let text = state_conjunction(&cfg, &s);
    assert!(text.contains("/\\ poller = c2\n"), "{text}");
    assert!(text.contains("/\\ rx = <<<<>>, <<>>>>\n"), "{text}");
    assert!(
        text.contains("/\\ fastXs = (c1 :> 0 @@ c2 :> 0)\n"),
        "{text}"
    );
    assert_eq!(action(&cfg, &redirect(C1, 2, 1)), "XdpRun(c2)");
    assert!(constants(&cfg).contains("    Verdicts = {\"redirect\", \"drop\", \"pass\"}\n"));
}

#[test]
fn a_socket_without_an_rx_ring_is_refused() {
    let cfg = Config {
        tx_only: vec![2],
        ..Config::generic()
    };
    // xsk_rcv_check(): -ENOBUFS, with or without a fill buffer; no
    // counter moves and the fill ring keeps its entry.
    for fill in [false, true] {
        let s = if fill { run(&cfg, &[Action::UserFill { b: 1 }]) } else { State::init(&cfg) };
        let t = s.step(&cfg, &redirect(C0, 2, 1)).unwrap();
        assert_eq!((t.fate[0], t.cpu[0].stage), (Fate::RedirectErr, Stage::Idle));
        assert_eq!((t.fq.clone(), t.cnt.clone()), (s.fq.clone(), s.cnt.clone()));
        assert!(t.violations(&cfg).is_empty());
    }
    // rx-ring-missing-unchecked: the receive goes on, into no rx ring.
    let bug = cfg.clone().with_mutant(Mutant::RxRingMissingUnchecked);
    let t = State::init(&bug).step(&bug, &redirect(C0, 2, 1)).unwrap();
    assert_eq!((t.cpu[0].stage, t.cpu[0].sock), (Stage::Lock, 2));
    assert_eq!(t.violations(&bug), ["RxRingPresent"]);
    // Its empty fill ring: the flush still writes through the rx ring.
    let t = run_from(&bug, t, &[Action::RxLock { c: C0 }, Action::XpAllocFail { c: C0 }]);
    assert_eq!(t.cpu[0].stage, Stage::Flush);
    assert!(!t.rx_ring_present(&bug));
}

#[test]
fn the_queue_never_keeps_a_socket_without_an_rx_ring() {
    let cfg = Config {
        late_bind: vec![1, 2],
        tx_only: vec![2],
        verdicts: vec![Verdict::Redirect],
        ..Config::fast()
    };
    assert_eq!(State::init(&cfg).rxq_xsk, 0);
    let s = run(&cfg, &[Action::XskBind { s: 2 }]);
    assert_eq!(s.rxq_xsk, 0);
    let s = run(&cfg, &[Action::XskBind { s: 1 }]);
    assert_eq!(s.rxq_xsk, 1);
    // A second socket, even one without an Rx ring, turns the fast path off.
    assert_eq!(s.step(&cfg, &Action::XskBind { s: 2 }).unwrap().rxq_xsk, 0);
    let bug = cfg.clone().with_mutant(Mutant::RxqXskTxOnly);
    let t = run(&bug, &[Action::XskBind { s: 2 }]);
    assert_eq!(t.rxq_xsk, 2);
    assert_eq!(t.violated(&bug, &["RxqXskInStep"]), Some("RxqXskInStep"));
}

#[test]
fn a_receive_that_looks_its_entry_up_again_goes_astray() {
    let cfg = Config {
        remap: true,
        ..Config::generic()
    };
    let bug = cfg.clone().with_mutant(Mutant::RedirectRereadsEntry);
    for (c, sock, broken) in [(&cfg, 1, false), (&bug, 2, true)] {
        let s = run(c, &[redirect(C0, 1, 1), Action::XskMapUpdate { k: 1, s: 2 }]);
        let t = s.step(c, &Action::RxLock { c: C0 }).unwrap();
        assert_eq!((t.cpu[0].sock, t.cpu[0].tgt), (sock, 1));
        assert_eq!(t.violated(c, &["DeliveredToKey"]).is_some(), broken);
    }
}

/// The batch's constants (polls of three) with room for two packets on
/// the ring.
fn batch_cfg() -> Config {
    Config {
        rx_size: 2,
        ..Config::batch()
    }
}

/// c takes a buffer from the fill ring and reserves its descriptor.
fn take_and_reserve(c: Cpu) -> [Action; 3] {
    [
        Action::XpAllocPeek { c },
        Action::XpAllocTake { c },
        Action::XskRcvReserve { c },
    ]
}

#[test]
fn a_batch_of_two_is_received_in_order() {
    let cfg = batch_cfg();
    let abs = cfg.refined();
    assert_eq!((abs.batch, abs.redirect), (1, Redirect::Map));
    let mut s = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            Action::UserFill { b: 2 },
            Action::NapiPoll { c: C0 },
        ],
    );
    // Two XDP_REDIRECT_XSK packets wait in the batch, busy, not yet
    // arrived for the XSKMAP path; each step maps to a stutter.
    for a in [redirect(C0, 1, 1), redirect(C0, 1, 1)] {
        let t = s.step(&cfg, &a).unwrap();
        assert!(refinement::refines_step(&abs, &s, &a, &t));
        assert_eq!(t.refinement_image(), s.refinement_image());
        s = t;
    }
    let e = |pkt| Batched {
        pkt,
        sock: 1,
        tgt: 1,
        len: 1,
    };
    assert_eq!((s.pend[0].clone(), s.cpu[0].stage), (vec![e(1), e(2)], Stage::Idle));
    assert_eq!((s.fate[0], s.fate[1], s.arrived), (Fate::Busy, Fate::Busy, 2));
    assert!(s.violations(&cfg).is_empty());
    let image = s.refinement_image();
    assert_eq!((image.arrived, image.fate[0], image.pend.clone()), (0, Fate::None, vec![vec![], vec![]]));
    // Full: the next one waits; so does a drop, and the poll's end.
    assert!(s.step(&cfg, &redirect(C0, 1, 1)).is_none());
    let drop = Action::XdpRun {
        c: C0,
        v: Verdict::Drop,
        k: 1,
        len: 1,
    };
    assert!(s.step(&cfg, &drop).is_none());
    assert!(s.xdp_do_flush(&cfg, C0).is_none());
    assert!(s.done(&cfg).is_none());
    assert!(s.xsk_rcv_batch(&cfg, C1).is_none());
    // The CPUs' batches are permuted with them.
    assert_eq!(s.permuted(&[1, 0]).pend, vec![vec![], vec![e(1), e(2)]]);
    let text = state_conjunction(&cfg, &s);
    assert!(
        text.contains("/\\ pend = (c1 :> <<[pkt |-> 1, sock |-> 1, tgt |-> 1, len |-> 1], [pkt |-> 2, sock |-> 1, tgt |-> 1, len |-> 1]>> @@ c2 :> <<>>)\n"),
        "{text}"
    );
    assert!(constants(&cfg).contains("    Batch = 2\n"));
    assert_eq!(action(&cfg, &Action::XskRcvBatch { c: C0 }), "XskRcvBatch(c1)");
    // Next's order: XskRcvBatch(c) right after XdpRun(c).
    let cands = s.candidate_actions(&cfg);
    let at = |a: &Action| cands.iter().position(|x| x == a).unwrap();
    let last_run = cands
        .iter()
        .rposition(|x| matches!(x, Action::XdpRun { c: C0, .. }))
        .unwrap();
    assert_eq!(at(&Action::XskRcvBatch { c: C0 }), last_run + 1);
    assert_eq!(at(&Action::RxLock { c: C0 }), last_run + 2);
    // xsk_rcv_batch() receives the oldest first, one at a time, each as
    // the XSKMAP path's XdpRun would.
    for pkt in [1, 2] {
        let a = Action::XskRcvBatch { c: C0 };
        let t = s.step(&cfg, &a).unwrap();
        assert!(refinement::refines_step(&abs, &s, &a, &t));
        assert_eq!((t.cpu[0].pkt, t.cpu[0].sock, t.cpu[0].fast), (pkt, 1, true));
        assert_eq!(t.refinement_image().arrived, u32::from(pkt));
        assert!(t.xsk_rcv_batch(&cfg, C0).is_none());
        s = run_from(&cfg, t, &take_and_reserve(C0));
    }
    let pkts: Vec<Pkt> = s.rx[0].iter().map(|d| d.pkt).collect();
    assert_eq!((pkts, s.pend[0].len()), (vec![1, 2], 0));
    let s = s.step(&cfg, &Action::XdpDoFlush { c: C0 }).unwrap();
    assert!(s.violations(&cfg).is_empty());
    assert!(s.flushed_at_poll_end(&cfg) && s.rx_in_order(&cfg));
}

/// Socket 1's packet 1 in c1's batch, then socket 2 bound with its entry
/// filled: the queue keeps no socket, and index 1 is the XSKMAP path's.
fn batch_then_second_socket(cfg: &Config) -> State {
    run(
        cfg,
        &[
            Action::UserFill { b: 1 },
            Action::UserFill { b: 2 },
            Action::NapiPoll { c: C0 },
            redirect(C0, 1, 1),
            Action::XskMapUpdate { k: 2, s: 2 },
            Action::XskBind { s: 2 },
        ],
    )
}

#[test]
fn a_packet_of_another_action_waits_for_the_batch() {
    let cfg = batch_cfg();
    let s = batch_then_second_socket(&cfg);
    assert_eq!((s.rxq_xsk, s.pend[0].len()), (0, 1));
    // XDP_REDIRECT through the XSKMAP to socket 1: after the batch.
    assert!(s.step(&cfg, &redirect(C0, 1, 1)).is_none());
    let t = run_from(&cfg, s.clone(), &[Action::XskRcvBatch { c: C0 }]);
    let t = run_from(&cfg, t, &take_and_reserve(C0));
    let t = run_from(&cfg, t, &[redirect(C0, 1, 1)]);
    let t = run_from(&cfg, t, &take_and_reserve(C0));
    assert_eq!(t.rx[0].iter().map(|d| d.pkt).collect::<Vec<_>>(), [1, 2]);
    assert!(t.rx_in_order(&cfg));
    // redirect-xsk-batch-reorder: it goes first, and lands on socket 1's
    // ring before the packet that arrived earlier.
    let bug = cfg.clone().with_mutant(Mutant::RedirectXskBatchReorder);
    let t = run_from(&bug, s, &[redirect(C0, 1, 1)]);
    assert_eq!((t.cpu[0].pkt, t.cpu[0].fast, t.pend[0].len()), (2, false, 1));
    // While a receive is in progress the batch waits too.
    assert!(t.xsk_rcv_batch(&bug, C0).is_none());
    let t = run_from(&bug, t, &take_and_reserve(C0));
    let t = run_from(&bug, t, &[Action::XskRcvBatch { c: C0 }]);
    let t = run_from(&bug, t, &take_and_reserve(C0));
    assert_eq!(t.rx[0].iter().map(|d| d.pkt).collect::<Vec<_>>(), [2, 1]);
    assert_eq!(t.violations(&bug), ["RxInOrder"]);
}

#[test]
fn a_batched_packet_keeps_the_socket_chosen_for_it() {
    let cfg = batch_cfg();
    // Socket 1 closes with packet 1 in the batch; socket 2 binds alone
    // and the queue keeps it.
    let s = run(
        &cfg,
        &[
            Action::UserFill { b: 1 },
            Action::NapiPoll { c: C0 },
            redirect(C0, 1, 1),
            Action::XskRelease { s: 1 },
            Action::XskMapUpdate { k: 2, s: 2 },
            Action::XskBind { s: 2 },
        ],
    );
    assert_eq!((s.rxq_xsk, s.st_of(1)), (2, Sst::Unbinding));
    // The batch holds socket 1: not freed yet, and a packet for socket 2
    // waits until the batch is received.
    assert!(s.xsk_release_done(&cfg, 1).is_none());
    assert!(s.step(&cfg, &redirect(C0, 2, 1)).is_none());
    let t = s.step(&cfg, &Action::XskRcvBatch { c: C0 }).unwrap();
    assert_eq!((t.fate[0], t.cpu[0].stage), (Fate::RedirectErr, Stage::Idle));
    assert!(t.violations(&cfg).is_empty());
    assert!(t.xsk_release_done(&cfg, 1).is_some());
    let t = t.step(&cfg, &redirect(C0, 2, 1)).unwrap();
    assert_eq!(t.pend[0][0].sock, 2);
    // redirect-xsk-batch-stale-sock: received into the queue's socket now.
    let bug = cfg.clone().with_mutant(Mutant::RedirectXskBatchStaleSock);
    let t = s.step(&bug, &Action::XskRcvBatch { c: C0 }).unwrap();
    assert_eq!((t.cpu[0].pkt, t.cpu[0].sock, t.cpu[0].tgt), (1, 2, 1));
    assert_eq!(t.violated(&bug, &["DeliveredToKey"]), Some("DeliveredToKey"));
}

#[test]
fn a_lost_batch_tail_outlives_the_poll() {
    let cfg = batch_cfg();
    let s = run(&cfg, &[Action::NapiPoll { c: C0 }, redirect(C0, 1, 1)]);
    assert!(s.xdp_do_flush(&cfg, C0).is_none());
    let bug = cfg.clone().with_mutant(Mutant::RedirectXskBatchTailLost);
    let t = s.xdp_do_flush(&bug, C0).unwrap();
    assert_eq!((t.poller, t.pend[0].len()), (None, 1));
    assert_eq!(t.violated(&bug, &["FlushedAtPollEnd"]), Some("FlushedAtPollEnd"));
    // Only a poll on c1 receives it; the behaviour cannot end before.
    assert!(t.xsk_rcv_batch(&bug, C0).is_none());
    let u = t.step(&bug, &Action::NapiPoll { c: C1 }).unwrap();
    assert!(u.xsk_rcv_batch(&bug, C1).is_none());
    assert!(t.step(&bug, &Action::NapiPoll { c: C0 }).unwrap().xsk_rcv_batch(&bug, C0).is_some());
}

#[test]
fn the_batch_needs_the_fast_path() {
    let bad = Config {
        batch: 2,
        ..Config::driver()
    };
    assert!(bad.validate().unwrap_err().contains("Redirect = \"xsk\""));
    let zero = Config {
        batch: 0,
        ..Config::fast()
    };
    assert!(zero.validate().is_err());
    assert!(Config::batch().validate().is_ok());
    // With Batch = 1 an XDP_REDIRECT_XSK packet is received at once.
    let cfg = Config::fast();
    let s = run(&cfg, &[Action::NapiPoll { c: C0 }, redirect(C0, 1, 1)]);
    assert_eq!((s.pend[0].len(), s.cpu[0].fast), (0, true));
}
