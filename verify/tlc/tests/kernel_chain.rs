//! The chain from the live kernel to the spec, checked by TLC on a fixed
//! sample: generated diff scenarios under every campaign profile, each
//! run of the model projected onto specs/XskCopyTx.tla and validated
//! through specs/XskCopyTxTraces.tla, a few TLC runs for all of them.
//! A trace corrupted by hand is rejected at the corrupted step. Built
//! with `ringlab-model/mutant-chain-unsubmitted-completion` (an oracle
//! completing an address never submitted) the sample is rejected.

use ringlab_kernel::campaign::scenario_seed;
use ringlab_kernel::gen;
use ringlab_model::afxdp::{spec_trace, Hint, Profile, Scenario, SpecTrace, STRAY};
use ringlab_model::copy_tx::{Desc, Frame, Sock};
use ringlab_tlc::trace::kernel_chain::{check, validate_scenarios, Verdict};

/// The sample's seed (printed) and size per profile.
const SEED: u64 = 0xc4a1_7c1c;
const PER_PROFILE: u64 = 12;

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

/// `t` cut after a step `j` rewritten as the submission of descriptor `d`
/// on socket `s`: the state after it is the state before with `d` on tx[s]
/// and `d.addr` no longer the application's (if it was).
fn submitted(t: &SpecTrace, j: usize, s: usize, d: Desc) -> SpecTrace {
    let mut c = t.clone();
    c.states.truncate(j + 2);
    c.steps.truncate(j + 1);
    let mut after = c.states[j].clone();
    after.tx[s].push(d);
    after.free.remove(&d.addr);
    c.states[j + 1] = after;
    c.steps[j].action = "UserSubmit";
    c.steps[j].hint = Hint { sock: Some(s as Sock), frame: Some(d.addr), desc: Some(d) };
    c
}

/// UserSubmit's guard as a trace sees it (SubmitDesc in
/// XskCopyTxTraces.tla): a descriptor whose frame the application does
/// not own (the kernel holds it), and XDP_PKT_CONTD under a spec without
/// multi-buffer, are rejected at that step, by TLC and by the model's own
/// check of the trace; the same submission of an owned frame is accepted.
#[test]
fn a_submission_the_spec_forbids_is_rejected_by_tlc_and_the_model() {
    let p = Profile::for_release("6.18");
    let (seed, t) = sample(&p, 16)
        .into_iter()
        .map(|(seed, s)| (seed, spec_trace(&s, &p).unwrap()))
        .find(|(_, t)| !t.config.multi_buf)
        .expect("a scenario without multi-buffer");
    println!("scenario seed {seed:#x}");
    // The first submission made while the kernel holds a frame.
    let j = (0..t.steps.len())
        .find(|&j| t.steps[j].action == "UserSubmit" && t.states[j].free.len() + 1 < t.config.frames.len())
        .expect("a submission with a frame held by the kernel");
    let before = &t.states[j];
    let s = t.steps[j].hint.sock.expect("a socket") as usize;
    let owned = *before.free.iter().next().expect("a free frame");
    let held = (0..t.config.frames.len() as Frame).find(|f| !before.free.contains(f)).expect("a held frame");
    let cases = vec![
        ("owned", submitted(&t, j, s, Desc { addr: owned, ok: true, contd: false }), None),
        ("not-owned", submitted(&t, j, s, Desc { addr: held, ok: true, contd: false }), Some(j + 1)),
        ("contd-without-multi-buffer", submitted(&t, j, s, Desc { addr: owned, ok: true, contd: true }), Some(j + 1)),
    ];
    let traces: Vec<SpecTrace> = cases.iter().map(|(_, c, _)| c.clone()).collect();
    let c = check(&traces).unwrap();
    for ((name, trace, want), got) in cases.iter().zip(&c.verdicts) {
        let model = trace.first_rejected().map(|r| r.step);
        assert_eq!(model, *want, "{name}: the model's check of the trace");
        match want {
            None => assert_eq!(*got, Verdict::Accepted, "{name}"),
            Some(k) => assert!(matches!(got, Verdict::Rejected { step, .. } if step == k), "{name}: {got:?}"),
        }
    }
}
