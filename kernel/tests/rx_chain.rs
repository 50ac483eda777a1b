//! The receive chain's step check, without TLC: generated diff scenarios
//! with an RX socket, each run of the model projected onto
//! specs/XskRx.tla (afxdp::rx_spec_trace) and every step checked against
//! the Rust model of the spec (the first state is Init, each next one a
//! successor of the one before or the same); the receive scenarios
//! (gen_rx.rs) are all within the spec. The live test runs generated
//! receive scenarios on the kernel first and checks the traces of those
//! the kernel agreed on (TLC checks them in ringlab-tlc's xskrx_chain,
//! and `ringlab diff`). Built with
//! `ringlab-model/mutant-chain-rx-fq-released-early` (the fill ring's
//! consumer published before the frame is on the RX ring, which the diff
//! cannot see) this test fails.
//!
//! Seeded: RINGLAB_CHAIN_SEED picks the seeds (printed), RINGLAB_CHAIN_N
//! how many scenarios.

use std::collections::BTreeMap;

use ringlab_kernel::campaign::{in_sandbox, scenario_seed};
use ringlab_kernel::compare::check;
use ringlab_kernel::env::release;
use ringlab_kernel::gen;
use ringlab_kernel::gen_rx::carries_rx;
use ringlab_model::afxdp::{predict, rx_spec_trace, Profile, RxTrace, Scenario};

mod common;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// `t`'s steps are the spec's; panics naming the scenario and the step.
fn steps_ok(seed: u64, s: &Scenario, t: &RxTrace) {
    if let Some((step, why)) = t.first_rejected() {
        let op = step.checked_sub(1).map(|k| t.steps[k].op);
        panic!("scenario seed {seed:#x}, step {step} (operation {op:?}: {:?}): {why}", op.map(|o| &s.ops[o]));
    }
}

#[test]
fn every_receive_step_is_a_step_of_xskrx() {
    let seed = env_u64("RINGLAB_CHAIN_SEED", 0x5ca1_0001);
    let n = env_u64("RINGLAB_CHAIN_N", 800);
    println!("seed {seed} ({n} scenarios; RINGLAB_CHAIN_SEED={seed} replays)");
    let p = Profile::for_release("6.12");
    let mut actions: BTreeMap<&str, u64> = BTreeMap::new();
    let mut refused: BTreeMap<(bool, &str), u64> = BTreeMap::new();
    let (mut rx, mut checked) = (0, 0);
    for i in 0..n {
        let sseed = scenario_seed(seed, i);
        let s = gen::scenario_for(sseed, &p);
        if !s.setup.rx_socket {
            continue;
        }
        let gen_rx = carries_rx(sseed);
        rx += gen_rx as u64;
        let t = match rx_spec_trace(&s, &p) {
            Ok(t) => t,
            Err(e) => {
                assert_ne!(e.kind.id(), "internal", "scenario seed {sseed:#x}: {e}");
                *refused.entry((gen_rx, e.kind.id())).or_default() += 1;
                continue;
            }
        };
        assert_eq!(t.obs, predict(&s, &p), "scenario seed {sseed:#x}: the recorder changed an observation");
        steps_ok(sseed, &s, &t);
        checked += 1;
        for st in &t.steps {
            *actions.entry(st.action.name()).or_default() += 1;
        }
    }
    println!("{checked} traces checked ({rx} receive scenarios); refused (receive scenario, reason): {refused:?}; steps {actions:?}");
    // The receive scenarios hand in only chunks the application holds.
    assert!(refused.keys().all(|(g, _)| !g), "receive scenarios refused: {refused:?}");
    // Not vacuous: every step the generic path takes occurs.
    for a in [
        "UserFill", "UserRecv", "XdpRun", "RxLock", "XpAllocFree", "XpAllocPeek", "XpAllocTake", "XpAllocFail",
        "XskRcvReserve", "XskFlush",
    ] {
        assert!(actions.get(a).copied().unwrap_or(0) > 0, "no {a} step in {actions:?}");
    }
}

/// Generated receive scenarios on the kernel, then the traces of those
/// it agreed on checked step by step.
#[test]
fn live_receive_scenarios_are_traces_of_xskrx() {
    if common::skip() {
        return;
    }
    let p = Profile::for_release(&release());
    let seeds: Vec<u64> = (0..).map(|i| scenario_seed(0x5ca1_11fe, i)).filter(|s| carries_rx(*s)).take(24).collect();
    let scenarios: Vec<(u64, Scenario)> = seeds.iter().map(|&s| (s, gen::scenario_for(s, &p))).collect();
    let (pp, ss) = (p, scenarios.clone());
    let agreed = in_sandbox(move |env| {
        let mut out = Vec::new();
        for (seed, s) in ss {
            out.push((seed, check(env, &s, &pp)?.is_none()));
        }
        Ok(out)
    })
    .unwrap();
    let mut ok = 0;
    for ((seed, s), (_, agree)) in scenarios.iter().zip(agreed) {
        assert!(agree, "scenario seed {seed:#x}: the kernel diverges from the model");
        let t = rx_spec_trace(s, &p).unwrap_or_else(|e| panic!("scenario seed {seed:#x}: refused: {e}"));
        steps_ok(*seed, s, &t);
        ok += 1;
    }
    println!("{ok} live receive scenarios are traces of XskRx");
}
