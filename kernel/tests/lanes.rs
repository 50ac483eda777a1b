//! The campaign on lanes (kernel/src/lanes.rs): what each scenario
//! observes does not depend on how many workers ran the campaign, nor on
//! which lane ran the scenario, nor on the lanes at all: the path every
//! scenario took before lanes (one veth pair, each bind waiting for its
//! queue, sockets closed in line) sees the same. Prints SKIP and passes
//! when this process cannot use AF_XDP (not root, no AF_XDP).

use std::collections::HashSet;

use ringlab_kernel::campaign::{self, in_sandbox, scenario_seed, Opts, Summary};
use ringlab_kernel::compare::compare;
use ringlab_kernel::env::release;
use ringlab_kernel::gen;
use ringlab_model::afxdp::Profile;

mod common;

use common::skip;

const SEED: u64 = 0x1a9e_5001;

fn campaign(scenarios: u64, jobs: usize) -> Summary {
    campaign::run(Opts { scenarios, seed: SEED, progress: false, out: None, stop_after: None, jobs, observe: false }).unwrap()
}

fn seeds(s: &Summary) -> Vec<u64> {
    s.chain.iter().map(|c| c.seed).collect()
}

/// One worker and three give the same campaign: per scenario, the same
/// kernel observations (their digests, in scenario order), the same
/// agreed seeds and no divergence.
#[test]
fn jobs_give_the_same_results_as_one_job() {
    if skip() {
        return;
    }
    let n = 400;
    let one = campaign(n, 1);
    let three = campaign(n, 3);
    println!("seed {SEED}: {} scenarios; 1 job {:.2} s, 3 jobs {:.2} s", one.scenarios, one.seconds, three.seconds);
    assert_eq!((one.jobs, three.jobs), (1, 3));
    assert_eq!(one.scenarios, n);
    assert_eq!(one.kernel_digests.len() as u64, n);
    // A digest that said nothing would make the comparison below pass
    // whatever the kernel did: distinct scenarios must give distinct ones.
    let distinct: HashSet<_> = one.kernel_digests.iter().collect();
    assert!(distinct.len() as u64 > n / 2, "only {} distinct digests over {n} scenarios", distinct.len());
    for (i, (a, b)) in one.kernel_digests.iter().zip(&three.kernel_digests).enumerate() {
        assert_eq!(a, b, "scenario {i} (seed {:#x}) observed differently on 3 jobs", scenario_seed(SEED, i as u64));
    }
    assert_eq!(one.kernel_digests, three.kernel_digests);
    assert_eq!(seeds(&one), seeds(&three));
    assert_eq!((one.operations, one.divergences.len()), (three.operations, three.divergences.len()));
    assert!(one.divergences.is_empty(), "{:#?}", one.divergences);
    assert_eq!(one.example.as_ref().map(|e| e.seed), three.example.as_ref().map(|e| e.seed));
}

/// The scenarios observed on lanes are those observed one at a time on a
/// sandbox of one veth pair, each bind waiting for its queue.
#[test]
fn lanes_observe_what_one_pair_does() {
    if skip() {
        return;
    }
    let n = 60;
    let lanes = campaign(n, 2);
    let p = Profile::for_release(&release());
    let alone = in_sandbox(move |env| {
        (0..n)
            .map(|i| {
                let s = gen::scenario_for(scenario_seed(SEED, i), &p);
                compare(env, &s, &p).map(|c| c.kernel)
            })
            .collect::<std::io::Result<Vec<_>>>()
    })
    .unwrap();
    let digests: Vec<u64> = alone.iter().map(|k| campaign::digest(k)).collect();
    assert_eq!(lanes.kernel_digests, digests);
}
