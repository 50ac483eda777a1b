//! The chain from the live kernel to the spec, checked by TLC on a fixed
//! sample: generated diff scenarios under every campaign profile, each
//! run of the model projected onto specs/XskCopyTx.tla and validated
//! through specs/XskCopyTxTraces.tla, a few TLC runs for all of them.
//! A trace corrupted by hand is rejected at the corrupted step. Built
//! with `ringlab-model/mutant-chain-unsubmitted-completion` (an oracle
//! completing an address never submitted) the sample is rejected.

use ringlab_kernel::campaign::scenario_seed;
use ringlab_kernel::gen;
use ringlab_model::afxdp::{spec_trace, Profile, Scenario, STRAY};
use ringlab_tlc::trace::kernel_chain::{check, validate_scenarios, Verdict};

/// The sample's seed (printed) and size per profile.
const SEED: u64 = 0xc4a1_7c1c;
const PER_PROFILE: u64 = 40;

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

fn sample(p: &Profile, n: u64) -> Vec<(u64, Scenario)> {
    (0..n)
        .map(|i| {
            let seed = scenario_seed(SEED, i);
            (seed, gen::scenario_for(seed, p))
        })
        .collect()
}

#[test]
fn tlc_validates_every_projected_trace_of_the_sample() {
    println!("seed {SEED}, {PER_PROFILE} scenarios per profile");
    for p in profiles() {
        let r = validate_scenarios(&sample(&p, PER_PROFILE), &p).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        println!(
            "profile {} batch {} budget {}: {} validated, {} rejected, {} unprojected, {} steps, {} TLC runs, {:.1}s",
            p.name,
            p.tx_batch,
            p.tx_budget,
            r.validated,
            r.rejected.len(),
            r.unprojected.len(),
            r.steps,
            r.tlc_runs,
            r.seconds
        );
        let lines: Vec<String> = r.rejected.iter().take(5).map(|x| format!("  {x}")).collect();
        assert!(
            r.rejected.is_empty(),
            "seed {SEED}, profile {} batch {} budget {}: TLC rejected {} traces, e.g.\n{}",
            p.name,
            p.tx_batch,
            p.tx_budget,
            r.rejected.len(),
            lines.join("\n")
        );
        // Every scenario projects (XDP_TX_METADATA, which a batch profile
        // cannot project, is never generated).
        assert!(r.unprojected.is_empty(), "{:?}", r.unprojected);
        assert_eq!(r.validated, PER_PROFILE as usize);
        assert!(r.validated * 4 > PER_PROFILE as usize * 3, "{p:?}: {r:?}");
    }
}

#[test]
fn a_corrupted_trace_is_rejected_at_the_corrupted_step_and_the_others_pass() {
    let p = Profile::for_release("6.18");
    let (seed, s) = sample(&p, 1).remove(0);
    println!("scenario seed {seed:#x}");
    let t = spec_trace(&s, &p).unwrap();
    let mut bad = vec![t; 4];
    // Trace 1: its first completion becomes the stray's, from there on.
    let k = bad[1].states.iter().position(|s| !s.cq.is_empty()).expect("a completion");
    for s in &mut bad[1].states[k..] {
        s.cq.iter_mut().for_each(|f| *f = STRAY);
    }
    // Trace 2: the state between two submissions dropped, so two
    // descriptors are submitted in one step.
    let j = bad[2].steps.windows(2).position(|w| w.iter().all(|k| k.action == "UserSubmit")).expect("two submissions");
    bad[2].states.remove(j + 1);
    bad[2].steps.remove(j);
    let c = check(&bad).unwrap();
    assert_eq!(c.tlc_runs, 1, "one group");
    assert_eq!(c.verdicts[0], Verdict::Accepted);
    assert_eq!(c.verdicts[3], Verdict::Accepted, "the trace after the rejected ones is still checked");
    let Verdict::Rejected { step, enabled } = &c.verdicts[1] else { panic!("{:?}", c.verdicts[1]) };
    assert_eq!(*step, k, "{enabled:?}");
    assert!(!enabled.is_empty());
    assert!(matches!(c.verdicts[2], Verdict::Rejected { step, .. } if step == j + 1), "{:?}", c.verdicts[2]);
}
