//! Receive on the running kernel against the model: two RX sockets
//! sharing one umem on one queue, frames the XDP program drops or passes,
//! an empty XSKMAP entry, and the generated receive scenarios (gen_rx.rs).
//! The fixed scenarios' figures are asserted on the model as well, so a
//! model and a harness wrong the same way still fail. Prints SKIP and
//! passes when this process cannot use AF_XDP. Built with
//! mutant-diff-rx-fq-per-socket (a wrong model), these tests fail.

use ringlab_kernel::campaign::in_sandbox;
use ringlab_kernel::compare::check;
use ringlab_kernel::env::release;
use ringlab_kernel::gen::scenario_for;
use ringlab_kernel::gen_rx::carries_rx;
use ringlab_model::afxdp::{predict, Obs, Op, Profile, Scenario, Setup, Stats, XdpAct, XDP_PACKET_HEADROOM};

mod common;

use common::{observe, setup, skip};

/// The tag of the k-th injected frame.
const T0: u32 = 1_000_000;

fn rx(o: &Obs) -> Vec<(u64, u32)> {
    let Obs::Rx(v) = o else { panic!("not rx: {o:?}") };
    v.iter().map(|d| (d.0, d.3)).collect()
}

fn rx_stats(o: &Obs) -> (Stats, Option<Stats>) {
    let Obs::Stats { rx: Some(rx), rx2, .. } = o else { panic!("not rx stats: {o:?}") };
    (*rx, *rx2)
}

/// Where chunk k's data lands (no umem headroom).
fn at(k: u64) -> u64 {
    k * 4096 + XDP_PACKET_HEADROOM as u64
}

/// Two sockets on one queue and one umem take buffers from one fill ring
/// in arrival order; the frame that finds it empty is dropped by its own
/// socket, and both sockets report the shared ring's empty count.
#[test]
fn two_rx_sockets_share_the_fill_ring() {
    if skip() {
        return;
    }
    use XdpAct::{Redirect as R, Redirect2 as R2};
    let st = Setup { rx_shared: true, fill_size: 4, rx_size: 4, ..setup(true, false) };
    let ops = vec![
        Op::Fill(3),
        Op::InjectAs(vec![(60, R), (60, R2), (60, R), (60, R2)]),
        Op::ConsumeRx(8),
        Op::ConsumeRx2(8),
        Op::Stats,
        Op::Rings,
    ];
    let o = observe(Scenario { setup: st, ops });
    assert_eq!(rx(&o[2]), vec![(at(0), T0), (at(2), T0 + 2)]);
    assert_eq!(rx(&o[3]), vec![(at(1), T0 + 1)]);
    let (a, b) = rx_stats(&o[4]);
    let b = b.expect("the second socket's statistics");
    assert_eq!((a.rx_dropped, a.rx_fill_ring_empty_descs), (0, 1));
    assert_eq!((b.rx_dropped, b.rx_fill_ring_empty_descs), (1, 1));
    let Obs::Rings(r) = o[5] else { panic!() };
    assert_eq!((r.fill, r.rx, r.rx2), ((3, 3), (2, 2), (1, 1)));
}

/// xskxceiver XDP_DROP_HALF, with passed frames too: frames the program
/// does not redirect take no buffer and leave no count.
#[test]
fn dropped_and_passed_frames_leave_no_trace() {
    if skip() {
        return;
    }
    use XdpAct::{Drop as D, Pass as P, Redirect as R};
    let frames = vec![(60, R), (60, D), (100, R), (100, D), (60, P), (1514, R), (60, D), (60, P), (18, R)];
    let ops = vec![Op::Fill(8), Op::InjectAs(frames), Op::ConsumeRx(16), Op::Stats, Op::Rings];
    let o = observe(Scenario { setup: setup(true, false), ops });
    assert_eq!(rx(&o[2]), vec![(at(0), T0), (at(1), T0 + 2), (at(2), T0 + 5), (at(3), T0 + 8)]);
    assert_eq!(rx_stats(&o[3]).0, Stats::default());
    let Obs::Rings(r) = o[4] else { panic!() };
    assert_eq!((r.fill, r.rx), ((8, 4), (4, 4)));
}

/// Frames for the second socket with none in the XSKMAP: the lookup fails
/// and the program's fallback passes them; the RX socket sees none.
#[test]
fn an_empty_xskmap_entry_passes_the_frame() {
    if skip() {
        return;
    }
    use XdpAct::{Redirect as R, Redirect2 as R2};
    let ops = vec![Op::Fill(2), Op::InjectAs(vec![(60, R2), (60, R2), (60, R)]), Op::ConsumeRx(4), Op::Stats];
    let o = observe(Scenario { setup: setup(true, false), ops });
    assert_eq!(rx(&o[2]), vec![(at(0), T0 + 2)]);
    let (a, b) = rx_stats(&o[3]);
    assert_eq!((a, b), (Stats::default(), None));
}

/// __xsk_rcv copies a frame into its buffer before it looks for room on
/// the RX ring: when the application has handed in a buffer that is
/// still on the RX ring, a frame dropped for a full ring overwrites it.
#[test]
fn a_frame_dropped_for_a_full_ring_is_copied_first() {
    if skip() {
        return;
    }
    let st = Setup { frames: 2, fill_size: 4, rx_size: 2, ..setup(true, false) };
    let ops = vec![
        Op::Fill(2),
        Op::Inject(vec![60, 60]),
        // Chunks 0 and 1 again, both still on the RX ring.
        Op::Fill(2),
        Op::Inject(vec![60]),
        Op::ConsumeRx(4),
        Op::Stats,
    ];
    let o = observe(Scenario { setup: st, ops });
    assert_eq!(rx(&o[4]), vec![(at(0), T0 + 2), (at(1), T0 + 1)]);
    assert_eq!(rx_stats(&o[5]).0.rx_ring_full, 1);
}

/// The first 32 generated receive scenarios (seeds 3, 11, 19, ...), half
/// of them with the second socket, model against kernel in one sandbox.
#[test]
fn generated_receive_scenarios() {
    if skip() {
        return;
    }
    let p = Profile::for_release(&release());
    let seeds: Vec<u64> = (0..256).filter(|s| carries_rx(*s)).collect();
    assert_eq!(seeds.len(), 32);
    let scenarios: Vec<Scenario> = seeds.iter().map(|s| scenario_for(*s, &p)).collect();
    let shared = scenarios.iter().filter(|s| s.setup.rx_shared).count();
    let acts = |a: XdpAct| {
        scenarios.iter().flat_map(|s| &s.ops).any(|o| matches!(o, Op::InjectAs(f) if f.iter().any(|x| x.1 == a)))
    };
    assert!(shared >= 8 && shared <= 24, "{shared} of 32 with a second RX socket");
    assert!([XdpAct::Redirect, XdpAct::Redirect2, XdpAct::Drop, XdpAct::Pass].into_iter().all(acts));
    let (pp, ss) = (p, seeds.clone());
    let res = in_sandbox(move |env| {
        let mut out = Vec::new();
        for (seed, s) in ss.into_iter().zip(scenarios) {
            out.push((seed, check(env, &s, &pp)?));
        }
        Ok(out)
    })
    .unwrap();
    let bad: Vec<_> = res.into_iter().filter(|(_, m)| m.is_some()).collect();
    for (seed, m) in &bad {
        println!("seed {seed}: {m:?}\n  model: {:?}", predict(&scenario_for(*seed, &p), &p));
    }
    assert!(bad.is_empty(), "{} of 32 receive scenarios diverge", bad.len());
}
