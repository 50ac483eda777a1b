//! The receive chain checked by TLC: a fixed receive scenario (fills,
//! a frame of every fate, reads, a buffer back from the free list) and a
//! sample of generated receive scenarios, each run of the model projected
//! onto specs/XskRx.tla (afxdp::rx_spec_trace) and validated through
//! specs/XskRxTraces.tla, a few TLC runs for all of them. A trace
//! corrupted at one step is rejected at that step, the others in its run
//! accepted. Built with `ringlab-model/mutant-chain-rx-fq-released-early`
//! (the fill ring's consumer published before the frame is on the RX
//! ring) every trace with a frame received is rejected.

use ringlab_kernel::campaign::scenario_seed;
use ringlab_kernel::{gen, gen_rx};
use ringlab_model::afxdp::{rx_spec_trace, Op, Profile, Scenario, Setup, XdpAct};
use ringlab_tlc::trace::kernel_chain::Verdict;
use ringlab_tlc::trace::rx_chain::{check, validate_rx_scenarios};

const SEED: u64 = 0x5c_a1_7c1c;

fn fixed() -> Scenario {
    use XdpAct::*;
    let setup = Setup {
        frame_size: 4096,
        frames: 16,
        headroom: 0,
        fill_size: 4,
        comp_size: 8,
        rx_size: 2,
        tx_size: 8,
        need_wakeup: false,
        rx_socket: true,
        loopback: false,
        sg: false,
        shared: false,
        rx_shared: true,
    };
    Scenario {
        setup,
        ops: vec![
            Op::Fill(2),
            Op::InjectAs(vec![(60, Redirect), (60, Drop), (4096 - 255, Redirect), (60, Pass), (60, Redirect2)]),
            Op::InjectAs(vec![(60, Redirect2)]),
            Op::Fill(2),
            Op::Inject(vec![60, 60]),
            Op::ConsumeRx(8),
            Op::Inject(vec![60]),
            Op::ConsumeRx(8),
            Op::ConsumeRx2(8),
        ],
    }
}

/// Receive scenarios of the generator (one seed in eight).
fn sample(n: usize) -> Vec<(u64, Scenario)> {
    (0..)
        .map(|i| scenario_seed(SEED, i))
        .filter(|&s| gen_rx::carries_rx(s))
        .take(n)
        .map(|s| (s, gen::scenario(s)))
        .collect()
}

#[test]
fn tlc_accepts_the_fixed_receive_trace() {
    let p = Profile::for_release("6.12");
    let t = rx_spec_trace(&fixed(), &p).unwrap();
    let c = check(&[t]).unwrap();
    assert_eq!(c.verdicts, vec![Verdict::Accepted]);
}

#[test]
fn tlc_validates_every_generated_receive_scenario_it_is_given() {
    let p = Profile::for_release("6.12");
    let r = validate_rx_scenarios(&sample(30), &p).unwrap();
    println!(
        "seed {SEED:#x}: {} validated, {} rejected, refused {:?}, {} steps, {} TLC runs, {:.1}s",
        r.validated,
        r.rejected.len(),
        r.refused_by,
        r.steps,
        r.tlc_runs,
        r.seconds
    );
    let lines: Vec<String> = r.rejected.iter().take(5).map(|x| format!("  {x}")).collect();
    assert!(r.rejected.is_empty(), "TLC rejected {} traces, e.g.\n{}", r.rejected.len(), lines.join("\n"));
    assert!(r.ok(), "{:?}", r.refused);
    assert!(r.validated >= 25, "most receive scenarios are within the spec: {r:?}");
}

#[test]
fn a_corrupted_trace_is_rejected_at_the_corrupted_step_and_the_others_pass() {
    let p = Profile::for_release("6.12");
    let t = rx_spec_trace(&fixed(), &p).unwrap();
    let k = t.steps.iter().position(|s| s.action.name() == "XskRcvReserve").unwrap() + 1;
    let mut bad = t.clone();
    // A drop counted that no step counts.
    for s in &mut bad.states[k..] {
        s.cnt[0].rx_queue_full += 1;
    }
    let c = check(&[t.clone(), bad, t]).unwrap();
    assert_eq!(c.tlc_runs, 1);
    assert_eq!(c.verdicts[0], Verdict::Accepted);
    assert_eq!(c.verdicts[2], Verdict::Accepted);
    let Verdict::Rejected { step, enabled } = &c.verdicts[1] else { panic!("{:?}", c.verdicts) };
    assert_eq!(*step, k);
    assert!(enabled.iter().any(|a| a == "XskRcvReserve(c1)"), "{enabled:?}");
}
