//! Delta debugging over a diverging scenario: drop runs of operations
//! (halves, then quarters, ... then single ones), then single descriptors
//! of each TX batch, keeping every change that still diverges. Each try is
//! a fresh run on the kernel.

use ringlab_model::afxdp::{Op, Scenario};

use crate::compare::Mismatch;

/// At most this many kernel runs per shrink.
const BUDGET: usize = 400;

/// The smallest scenario found that still diverges, and how; `check`
/// runs one on the kernel and the model (None: they agree, or it failed).
pub fn shrink(mut check: impl FnMut(&Scenario) -> Option<Mismatch>, s: &Scenario, m: Mismatch) -> (Scenario, Mismatch) {
    let mut best = (s.clone(), m);
    let mut tries = 0;
    let mut still = |c: &Scenario, tries: &mut usize| -> Option<Mismatch> {
        *tries += 1;
        check(c)
    };
    let mut chunk = best.0.ops.len().div_ceil(2).max(1);
    loop {
        let mut i = 0;
        while i < best.0.ops.len() && tries < BUDGET {
            let mut c = best.0.clone();
            let end = (i + chunk).min(c.ops.len());
            c.ops.drain(i..end);
            match still(&c, &mut tries) {
                Some(mm) => best = (c, mm),
                None => i += chunk,
            }
        }
        if chunk == 1 || tries >= BUDGET {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    for i in 0..best.0.ops.len() {
        let mut j = 0;
        loop {
            let Op::Tx(descs) = &best.0.ops[i] else { break };
            if j >= descs.len() || descs.len() == 1 || tries >= BUDGET {
                break;
            }
            let mut c = best.0.clone();
            if let Op::Tx(d) = &mut c.ops[i] {
                d.remove(j);
            }
            match still(&c, &mut tries) {
                Some(mm) => best = (c, mm),
                None => j += 1,
            }
        }
    }
    best
}
