//! The receive chain's projection on fixed scenarios: the expected
//! trace of XskRx, every step a step of the Rust model of the spec,
//! observations unchanged, and the scenarios the spec cannot express
//! refused with their reason.

use super::chain_tests::setup;
use super::*;
use crate::xsk_rx::{Action, Fate, Verdict};

fn rx_setup(rx_shared: bool) -> Setup {
    Setup { rx_socket: true, rx_shared, fill_size: 4, rx_size: 2, ..setup(false, false) }
}

fn p() -> Profile {
    Profile::for_release("6.12")
}

/// Fills, a frame of every fate, reads, and a buffer back from the free
/// list.
pub(super) fn mixed() -> Scenario {
    use XdpAct::*;
    let long = 4096 - 256 + 1;
    Scenario {
        setup: rx_setup(true),
        ops: vec![
            Op::Fill(2),
            Op::InjectAs(vec![(60, Redirect), (60, Drop), (long, Redirect), (60, Pass), (60, Redirect2)]),
            // The fill ring is empty: rx_dropped.
            Op::InjectAs(vec![(60, Redirect2)]),
            Op::Fill(2),
            // Socket 1's ring (2 entries) takes one more, then is full.
            Op::Inject(vec![60, 60]),
            Op::Stats,
            Op::ConsumeRx(8),
            // The chunk the full ring gave back comes off the free list.
            Op::Inject(vec![60]),
            Op::ConsumeRx(8),
            Op::ConsumeRx2(8),
        ],
    }
}

fn names(t: &RxTrace) -> Vec<&'static str> {
    t.steps.iter().map(|s| s.action.name()).collect()
}

#[test]
fn a_receive_scenario_is_the_expected_trace_of_xskrx() {
    let s = mixed();
    let t = rx_spec_trace(&s, &p()).unwrap();
    assert_eq!(t.obs, predict(&s, &p()), "the recorder changed an observation");
    assert_eq!(t.states.len(), t.steps.len() + 1);
    assert_eq!((t.config.n_sockets, t.config.n_bufs, t.config.max_pkts, t.config.max_len), (2, 16, 9, 2));
    assert_eq!(t.config.verdicts, vec![Verdict::Redirect, Verdict::Drop, Verdict::Pass]);
    let rcv = ["XdpRun", "RxLock", "XpAllocPeek", "XpAllocTake", "XskRcvReserve", "XskFlush"];
    let mut want = vec!["UserFill", "UserFill"];
    want.extend(rcv);
    want.extend(["XdpRun", "XdpRun", "XdpRun"]);
    want.extend(rcv);
    want.extend(["XdpRun", "RxLock", "XpAllocFail", "XskFlush"]);
    want.extend(["UserFill", "UserFill"]);
    want.extend(rcv);
    want.extend(rcv);
    want.extend(["UserRecv", "UserRecv"]);
    want.extend(["XdpRun", "RxLock", "XpAllocFree", "XskRcvReserve", "XskFlush"]);
    want.extend(["UserRecv", "UserRecv"]);
    assert_eq!(names(&t), want);
    let last = t.states.last().unwrap();
    use Fate::*;
    assert_eq!(last.fate, vec![Rx, XdpDrop, RxDropped, XdpPass, Rx, RxDropped, Rx, RxQueueFull, Rx]);
    assert_eq!((last.cnt[0].rx_dropped, last.cnt[0].rx_queue_full, last.cnt[1].rx_dropped), (1, 1, 1));
    assert_eq!((last.ufree.len(), last.fq.len(), last.fq_held, last.rx[1].len()), (16, 0, 0, 0));
    assert_eq!(t.first_rejected(), Option::None);
    // The step XskRcvReserve leaves the descriptor unpublished; XskFlush
    // publishes it and the fill ring's consumer.
    let k = t.steps.iter().position(|s| s.action == Action::XskRcvReserve { c: 0 }).unwrap();
    assert_eq!((t.states[k + 1].rx_pub[0], t.states[k + 1].fq_held), (0, 1));
    assert_eq!((t.states[k + 2].rx_pub[0], t.states[k + 2].fq_held), (1, 0));
}

#[test]
fn a_corrupted_trace_is_rejected_at_the_corrupted_step() {
    let t = rx_spec_trace(&mixed(), &p()).unwrap();
    let k = t.steps.iter().position(|s| s.action.name() == "XpAllocTake").unwrap() + 1;
    let mut bad = t.clone();
    for s in &mut bad.states[k..] {
        s.fq_held = 0;
    }
    assert_eq!(bad.first_rejected().map(|r| r.0), Some(k));
    let mut bad = t.clone();
    bad.states[3].cnt[0].rx_dropped += 1;
    assert_eq!(bad.first_rejected().map(|r| r.0), Some(3));
}

#[test]
fn fills_of_chunks_the_application_does_not_hold_are_refused() {
    // 16 chunks, a fill ring of 4: the fifth fill is chunk 4 again... after
    // 16 fills the addresses cycle to chunk 0, still on the RX ring.
    let mut s = Scenario { setup: Setup { frames: 4, ..rx_setup(false) }, ops: vec![Op::Fill(4), Op::Inject(vec![60])] };
    s.ops.push(Op::Fill(1));
    let e = rx_spec_trace(&s, &p()).unwrap_err();
    assert_eq!((e.op, e.kind), (2, Refusal::FillNotOwned));
    assert!(e.what.contains("on RX ring 1"), "{e}");
    let tx_only = Scenario { setup: setup(false, false), ops: vec![] };
    assert_eq!(rx_spec_trace(&tx_only, &p()).unwrap_err().kind, Refusal::NoRxSocket);
    let lb = Scenario { setup: Setup { loopback: true, ..rx_setup(false) }, ops: vec![] };
    assert_eq!(rx_spec_trace(&lb, &p()).unwrap_err().kind, Refusal::Loopback);
}

#[test]
fn a_widened_trace_is_still_a_trace_of_the_spec() {
    let t = rx_spec_trace(&mixed(), &p()).unwrap();
    let mut with = t.config.clone();
    with.n_bufs = 64;
    with.max_pkts = 40;
    let w = t.widened(&with);
    assert_eq!(w.first_rejected(), None);
}
