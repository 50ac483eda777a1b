//! The chain's step check, without TLC and without a kernel: generated
//! diff scenarios under each profile the campaigns use, each run of the
//! model projected onto specs/XskCopyTx.tla (afxdp::spec_trace) and every
//! step checked against the Rust model of the spec: the first state is
//! Init, each next one a successor of the one before or the same.
//!
//! Seeded: RINGLAB_CHAIN_SEED picks the seeds (printed), RINGLAB_CHAIN_N
//! how many scenarios per profile. Built with
//! `ringlab-model/mutant-chain-unsubmitted-completion` (an oracle that
//! completes an address never submitted) this test fails.

use std::collections::BTreeMap;

use ringlab_kernel::campaign::scenario_seed;
use ringlab_kernel::gen;
use ringlab_model::afxdp::{predict, spec_trace, Profile};

/// The profiles of `ringlab diff` and the VM campaigns.
fn profiles() -> Vec<Profile> {
    vec![
        Profile::for_release("6.12"),
        Profile::for_release("6.18"),
        Profile::batch(0, 32),
        Profile::batch(1, 32),
        Profile::batch(16, 64),
        Profile::batch(64, 256),
    ]
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn every_step_of_every_scenario_is_a_step_of_the_spec() {
    let seed = env_u64("RINGLAB_CHAIN_SEED", 0xc4a1_0001);
    let n = env_u64("RINGLAB_CHAIN_N", 100);
    println!("seed {seed} ({n} scenarios per profile; RINGLAB_CHAIN_SEED={seed} replays)");
    let mut actions: BTreeMap<&str, u64> = BTreeMap::new();
    let mut steps = 0;
    for p in profiles() {
        for i in 0..n {
            let sseed = scenario_seed(seed, i);
            let s = gen::scenario_for(sseed, &p);
            let t = spec_trace(&s, &p)
                .unwrap_or_else(|e| panic!("seed {seed}, scenario {i} (seed {sseed:#x}), profile {p:?}: not projected: {e}"));
            assert_eq!(t.obs, predict(&s, &p), "scenario seed {sseed:#x}: the recorder changed an observation");
            if let Some(r) = t.first_rejected() {
                let st = &t.steps[r.step.max(1) - 1];
                panic!(
                    "seed {seed}, scenario {i} (seed {sseed:#x}), profile {} batch {} budget {}: operation {} ({:?}), \
                     step {} ({}): {r}",
                    p.name, p.tx_batch, p.tx_budget, st.op, s.ops[st.op], r.step, st.action
                );
            }
            steps += t.steps.len();
            for st in &t.steps {
                *actions.entry(st.action).or_default() += 1;
            }
        }
    }
    println!("{steps} steps checked: {actions:?}");
    // Not vacuous: every kind of step the kernel takes on veth occurs.
    for a in [
        "UserSubmit", "UserReap", "Sendto", "XmitReserve", "XmitSend", "DriverFree",
        "XmitBatchReserve", "XmitBatchAlloc", "XmitBatchSend",
    ] {
        assert!(actions.get(a).copied().unwrap_or(0) > 0, "no {a} step in {actions:?}");
    }
}
