//! The io_uring chain: live SEND_ZC runs on the running kernel, each
//! projected onto the model's states (kernel::iouring::project) and the
//! sequence validated by TLC through specs/IoUringZcNotifTrace.tla
//! (ringlab-tlc's trace::iouring_zc). A fixed scenario that overflows
//! the CQ and unregisters the table, then seeded ones; the fixed one with
//! a notification's posting cut out is rejected at that step. Prints SKIP and
//! passes when this process cannot use io_uring.
//!
//! Seeded: RINGLAB_CHAIN_SEED picks the seeds (printed), RINGLAB_CHAIN_N
//! how many scenarios.

use ringlab_kernel::iouring::campaign::{check, in_net, scenario_seed};
use ringlab_kernel::iouring::gen;
use ringlab_kernel::iouring::project::Projection;
use ringlab_kernel::iouring::scenario::{Fault, Request, Scenario, Step, Transport};
use ringlab_kernel::iouring::sys::skip_reason;
use ringlab_tlc::trace::iouring_zc::validate;
use ringlab_tlc::trace::Verdict;

/// The zero-copy sends of a seeded scenario the chain takes at most.
const MAX_ZC: usize = 4;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn zc(len: u32, fault: Fault) -> Request {
    Request { zc: true, len, fault }
}

fn fixed() -> Scenario {
    Scenario {
        transport: Transport::UdpVeth,
        fixed: true,
        report_usage: true,
        sq: 4,
        cq: 4,
        steps: vec![
            Step::Batch(vec![zc(64, Fault::None), zc(9000, Fault::BadFlags), zc(1500, Fault::None), zc(60000, Fault::None)]),
            Step::Unregister,
            Step::Batch(vec![zc(64, Fault::None), zc(64, Fault::CqeSkip)]),
        ],
    }
}

/// TLC accepts `p`'s states as a behaviour of IoUringZcNotif.
fn accepted(name: &str, p: &Projection) {
    let v = validate(&p.config, &p.states).unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}: {} states, {} actions: {v:?}", p.states.len(), p.actions.len());
    match v {
        Verdict::Accepted { steps, .. } => assert_eq!(steps, p.states.len() - 1, "{name}"),
        Verdict::Rejected { step, reason, enabled } => {
            panic!("{name}: TLC rejects step {step} ({}): {reason}; enabled there: {enabled:?}", p.actions[step.saturating_sub(1)])
        }
    }
}

#[test]
fn live_runs_are_behaviours_of_the_spec() {
    if let Some(why) = skip_reason() {
        eprintln!("SKIP: {why}");
        return;
    }
    let seed = env_u64("RINGLAB_CHAIN_SEED", 0x10_0129);
    let n = env_u64("RINGLAB_CHAIN_N", 3);
    println!("seed {seed} ({n} scenarios; RINGLAB_CHAIN_SEED={seed} replays)");
    let mut runs: Vec<(String, Scenario)> = vec![("fixed, overflowing, unregistered".into(), fixed())];
    // TLC's time grows fast with NReqs (the spec's functions over Reqs):
    // the chain takes the first n seeded scenarios of at most MAX_ZC sends.
    runs.extend(
        (0..)
            .map(|i| scenario_seed(seed, i))
            .map(|s| (format!("scenario seed {s:#x}"), gen::scenario(s)))
            .filter(|(_, s)| s.zc_count() <= MAX_ZC)
            .take(n as usize),
    );
    let projected = in_net(move |net| {
        runs.into_iter().map(|(name, s)| Ok((name, check(net, &s)?.1))).collect::<std::io::Result<Vec<_>>>()
    })
    .expect("the scenarios run");
    for (name, p) in &projected {
        let p = p.as_ref().unwrap_or_else(|d| panic!("{name}: kernel and model diverge: {d:?}"));
        accepted(name, p);
    }
    // The same live run with its first notification's posting left out:
    // TLC must reject it at that step.
    let p = projected[0].1.as_ref().expect("agreed above");
    let k = p.actions.iter().position(|a| a.name() == "IoRunTaskWork").expect("the fixed run posts notifications");
    let mut states = p.states.clone();
    states.remove(k + 1);
    match validate(&p.config, &states).expect("TLC runs") {
        Verdict::Rejected { step, .. } => assert_eq!(step, k + 1, "rejected elsewhere"),
        v => panic!("a trace missing a notification's posting was accepted: {v:?}"),
    }
}
