//! The chain's projection on fixed scenarios: accepted step by step by
//! the Rust model of the spec, observations unchanged, and a corrupted
//! trace rejected at the corrupted step.

use super::*;
use crate::copy_tx::{Stage, State};

/// A small umem and rings; also the one-socket tests' setup.
pub(super) fn setup(shared: bool, sg: bool) -> Setup {
    Setup {
        frame_size: 4096,
        frames: 16,
        headroom: 0,
        fill_size: 4,
        comp_size: 8,
        rx_size: 4,
        tx_size: 8,
        need_wakeup: false,
        rx_socket: false,
        loopback: false,
        sg,
        shared,
        rx_shared: false,
    }
}

fn d(addr: u64, len: u32, options: u32) -> TxDesc {
    TxDesc { addr, len, options, class: "test".into() }
}

/// A sent frame, one veth drops, an invalid one, a reap, a second socket.
fn mixed() -> Scenario {
    Scenario {
        setup: setup(true, false),
        ops: vec![
            Op::Tx(vec![d(0, 60, 0), d(4096, 1, 0), d(8192, 0, 0)]),
            Op::Kick,
            Op::Stats,
            Op::KickIdle,
            Op::DrainCq(2),
            Op::Tx2(vec![d(12 * 4096 + 1, 60, 0)]),
            Op::Kick2,
            // libxdp's peek sees the rest of the earlier window first.
            Op::DrainCq(8),
            Op::DrainCq(8),
        ],
    }
}

fn profiles() -> [Profile; 3] {
    [Profile::for_release("6.12"), Profile::for_release("6.18"), Profile::batch(16, 64)]
}

#[test]
fn every_step_is_a_step_of_the_spec_and_observations_are_predicts() {
    for p in profiles() {
        let s = mixed();
        let t = spec_trace(&s, &p).unwrap();
        assert_eq!(t.obs, predict(&s, &p), "{}", p.name);
        assert_eq!(t.states.len(), t.steps.len() + 1);
        assert_eq!(t.first_rejected(), None, "{}", p.name);
        // Four submissions and the stray; two sockets.
        assert_eq!((t.config.frames.len(), t.config.sockets.len()), (5, 2));
        let acts: Vec<&str> = t.steps.iter().map(|k| k.action).collect();
        for a in ["UserSubmit", "Sendto", "DriverFree", "UserReap"] {
            assert!(acts.contains(&a), "{}: {acts:?}", p.name);
        }
        // Stats is a stutter: no step belongs to it.
        assert!(t.steps.iter().all(|k| k.op != 2));
        // At the end every frame is the application's, the stray too.
        let last = t.states.last().unwrap();
        assert_eq!(last.free.len(), 5, "{}: {last:?}", p.name);
    }
}

#[test]
fn a_sent_frame_is_in_flight_until_the_driver_frees_it() {
    let p = Profile::for_release("6.12");
    let t = spec_trace(&mixed(), &p).unwrap();
    let k = t.steps.iter().position(|k| k.action == "DriverFree").unwrap();
    let (sent, freed) = (&t.states[k], &t.states[k + 1]);
    assert_eq!(t.steps[k - 1].action, "XmitSend");
    assert_eq!((sent.flight.len(), sent.cq.len(), sent.call[0].stage), (1, 0, Stage::Loop));
    assert_eq!((freed.flight.len(), freed.cq.as_slice()), (0, &[1][..]));
}

#[test]
fn a_completion_projects_to_its_frame_only_at_the_profiles_address() {
    let p = Profile::for_release("6.18");
    let first = Via::Packet { first: true };
    assert_eq!(expected_completion(&p, 4097, first), 4096);
    assert_eq!(expected_completion(&p, 4097, Via::Lone), 4097);
    assert_eq!(expected_completion(&p, 4097, Via::Packet { first: false }), 4097);
    assert_eq!(expected_completion(&Profile::for_release("6.12"), 4097, first), 4097);
    // 6.18 completes the odd address 12 * 4096 + 1 as the even one below,
    // which is that submission's frame in the spec.
    let t = spec_trace(&mixed(), &p).unwrap();
    assert_eq!(t.first_rejected(), None);
    assert!(t.states.iter().all(|s| !s.cq.contains(&STRAY)));
}

#[test]
fn a_corrupted_state_is_rejected_at_its_step() {
    let p = Profile::for_release("6.12");
    let t = spec_trace(&mixed(), &p).unwrap();
    // The first completion published: make it the stray's.
    let k = t.states.iter().position(|s| !s.cq.is_empty()).unwrap();
    let mut bad = t.states.clone();
    for s in &mut bad[k..] {
        for f in &mut s.cq {
            *f = STRAY;
        }
    }
    let r = crate::copy_tx::first_rejected(&t.config, &bad).unwrap();
    assert_eq!(r.step, k, "{r}");
    assert!(r.differ.contains(&"cq"), "{r}");
    // A state dropped from the middle: two steps in one.
    let mut skip = t.states.clone();
    skip.remove(3);
    assert_eq!(crate::copy_tx::first_rejected(&t.config, &skip).map(|r| r.step), Some(3));
    // Not Init.
    let mut first = t.states.clone();
    first[0] = State { drain: vec![true, false], ..first[0].clone() };
    assert_eq!(crate::copy_tx::first_rejected(&t.config, &first).map(|r| r.step), Some(0));
}

#[test]
fn more_frames_and_sockets_keep_a_trace_a_trace() {
    let t = spec_trace(&mixed(), &Profile::for_release("6.18")).unwrap().with_frames(9);
    assert_eq!(t.config.frames.len(), 9);
    assert!(t.states.iter().all(|s| (5..9).all(|f| s.free.contains(&f))));
    assert_eq!(t.first_rejected(), None);
    let one = Scenario { setup: setup(false, false), ops: mixed().ops[..5].to_vec() };
    let t = spec_trace(&one, &Profile::for_release("6.12")).unwrap();
    assert_eq!(t.config.sockets.len(), 1);
    let w = t.with_sockets(2);
    assert_eq!((w.config.sockets.len(), w.states[3].call.len()), (2, 2));
    assert_eq!(w.first_rejected(), None);
}

#[test]
fn a_multi_buffer_packet_and_its_drop_project() {
    let contd = XDP_PKT_CONTD;
    let s = Scenario {
        setup: setup(false, true),
        ops: vec![
            Op::Tx(vec![d(0, 60, contd), d(4096, 60, contd), d(8192, 60, 0)]),
            Op::Kick,
            Op::Tx(vec![d(0, 60, contd), d(4096, 0, 0), d(8192, 60, 0)]),
            Op::KickIdle,
            Op::DrainCq(8),
        ],
    };
    for p in profiles() {
        let t = spec_trace(&s, &p).unwrap();
        assert_eq!(t.first_rejected(), None, "{}", p.name);
        assert!(t.config.multi_buf);
        assert!(t.states.iter().any(|x| x.part[0].len() == 2), "{}", p.name);
    }
}

#[test]
fn tx_metadata_without_its_length_is_an_allocation_failure() {
    // XDP_TX_METADATA on a packet's first descriptor: -EINVAL, the slot
    // cancelled, the descriptor left in the ring (the spec's XmitAllocFail).
    let s = Scenario { setup: setup(false, false), ops: vec![Op::Tx(vec![d(0, 60, 1 << 1)]), Op::Kick, Op::Kick] };
    for p in [Profile::for_release("6.12"), Profile::for_release("6.18")] {
        let t = spec_trace(&s, &p).unwrap();
        assert_eq!(t.obs[1], Obs::Kicks(vec![22]), "{}", p.name);
        assert_eq!(t.first_rejected(), None, "{}", p.name);
        let fails = t.steps.iter().filter(|k| k.action == "XmitAllocFail").count();
        assert_eq!(fails, 2, "{}", p.name);
    }
    // A batch's peek stops at any option, the spec's at XDP_PKT_CONTD: not
    // projected, and said so.
    let e = spec_trace(&s, &Profile::batch(16, 64)).unwrap_err();
    assert_eq!((e.op, e.kind), (0, Unprojected::NotModelled), "{e}");
}
