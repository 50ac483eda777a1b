//! A diverging scenario made small: drop steps, then single requests,
//! keeping each change after which the kernel and the model still part
//! (each try a fresh run on the kernel).

use super::net::Net;
use super::project::Divergence;
use super::scenario::{Scenario, Step};

/// At most this many kernel runs per shrink.
const BUDGET: usize = 200;

/// `check` runs a scenario and says where it diverges, if it does.
pub fn shrink(net: &Net, s: &Scenario, d: Divergence, check: impl Fn(&Net, &Scenario) -> Option<Divergence>) -> (Scenario, Divergence) {
    let mut best = (s.clone(), d);
    let mut tries = 0;
    let mut i = 0;
    while i < best.0.steps.len() && tries < BUDGET {
        let mut c = best.0.clone();
        c.steps.remove(i);
        tries += 1;
        match (c.zc_count() > 0).then(|| check(net, &c)).flatten() {
            Some(d) => best = (c, d),
            None => i += 1,
        }
    }
    for i in 0..best.0.steps.len() {
        let mut j = 0;
        while let Step::Batch(b) = &best.0.steps[i] {
            if j >= b.len() || b.len() == 1 || tries >= BUDGET {
                break;
            }
            let mut c = best.0.clone();
            if let Step::Batch(b) = &mut c.steps[i] {
                b.remove(j);
            }
            tries += 1;
            match (c.zc_count() > 0).then(|| check(net, &c)).flatten() {
                Some(d) => best = (c, d),
                None => j += 1,
            }
        }
    }
    best
}
