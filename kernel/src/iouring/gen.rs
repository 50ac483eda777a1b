//! Scenarios drawn from a seed (ringlab_model::rng, as the AF_XDP
//! generator draws): a transport, fixed or plain buffers, the usage
//! report, a small SQ and a CQ of one or two SQs (so a batch's CQEs and
//! notifications overflow it), then up to four batches of zero-copy and
//! plain sends of assorted sizes, each request with a failure class now
//! and then, and for TCP the peer's reset, for fixed buffers the table's
//! unregistration, between batches. The same seed gives the same scenario.

use ringlab_model::rng::Rng;

use super::scenario::{Fault, Request, Scenario, Step, Transport};

/// The zero-copy sends of a scenario at most (the model's NReqs).
pub const MAX_ZC: usize = 12;

fn pick<T: Copy>(r: &mut Rng, xs: &[T]) -> T {
    xs[r.below(xs.len() as u32) as usize]
}

/// The scenario of `seed`.
pub fn scenario(seed: u64) -> Scenario {
    let mut r = Rng::new(seed);
    let transport = pick(&mut r, &Transport::ALL);
    let fixed = r.chance(1, 3);
    let sq = pick(&mut r, &[1, 2, 4, 4, 8]);
    let cq = sq * pick(&mut r, &[1, 1, 2]);
    let mut s = Scenario { transport, fixed, report_usage: r.chance(1, 2), sq, cq, steps: Vec::new() };
    let batches = r.one_to(4);
    let reset_at = (transport.tcp() && r.chance(1, 4)).then(|| r.below(batches));
    let unregister_at = (fixed && r.chance(1, 4)).then(|| r.below(batches));
    let mut reset = false;
    let mut zc = 0;
    for b in 0..batches {
        if reset_at == Some(b) {
            s.steps.push(Step::PeerReset);
            reset = true;
        }
        if unregister_at == Some(b) {
            s.steps.push(Step::Unregister);
        }
        let n = r.one_to(sq) as usize;
        let batch: Vec<Request> = (0..n).map(|_| request(&mut r, &s, reset, &mut zc)).collect();
        s.steps.push(Step::Batch(batch));
    }
    if zc == 0 {
        if let Some(Step::Batch(b)) = s.steps.iter_mut().rev().find(|s| matches!(s, Step::Batch(_))) {
            b[0].zc = true;
        }
    }
    s
}

fn request(r: &mut Rng, s: &Scenario, reset: bool, zc: &mut usize) -> Request {
    let is_zc = *zc < MAX_ZC && r.chance(3, 4);
    *zc += usize::from(is_zc);
    let len = pick(r, &[1, 64, 1400, 1500, 4096, 9000, 32768, 60000]);
    let mut faults = vec![Fault::NotSock];
    if !reset {
        faults.push(Fault::Unmapped);
        if !s.transport.tcp() {
            faults.push(Fault::TooLong);
        }
    }
    if is_zc {
        faults.extend([Fault::BadFlags, Fault::CqeSkip]);
    }
    let fault = if r.chance(1, 4) { pick(r, &faults) } else { Fault::None };
    let len = if fault == Fault::TooLong { pick(r, &[65508, 70000]) } else { len };
    Request { zc: is_zc, len, fault }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iouring::class::{classes, Class};

    #[test]
    fn a_seed_gives_one_scenario_and_the_seeds_give_every_class() {
        assert_eq!(scenario(7), scenario(7));
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..2000 {
            let s = scenario(seed);
            assert!(s.zc_count() >= 1 && s.zc_count() <= MAX_ZC, "seed {seed}");
            assert!(s.max_batch() as u32 <= s.sq && s.sq <= s.cq, "seed {seed}");
            seen.extend(classes(&s));
        }
        let missing: Vec<_> = Class::ALL.iter().filter(|c| !seen.contains(c) && **c != Class::Nomem).collect();
        assert!(missing.is_empty(), "no seed of 0..2000 gives {missing:?}");
    }
}
