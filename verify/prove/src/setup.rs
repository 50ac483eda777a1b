//! Initial state and slot mapping.

use super::ring::{c, pow2, Builder, Pair, Ring, Side};
use super::{proved, refuted, Entry};
use z3::ast::{Bool, BV};

/// Every word equal to `x`; libxdp's producer keeps `cached_cons = consumer + size`.
fn start(size: &BV, x: &BV, pair: Pair) -> Ring {
    let prod_cc = match pair {
        Pair::KernelToUser => x.clone(),
        Pair::UserToKernel => x + size,
    };
    Ring {
        pair,
        size: size.clone(),
        producer: x.clone(),
        consumer: x.clone(),
        prod: Side {
            cached_prod: x.clone(),
            cached_cons: prod_cc,
        },
        cons: Side {
            cached_prod: x.clone(),
            cached_cons: x.clone(),
        },
    }
}

fn init(b: &mut Builder) -> Vec<Bool> {
    let size = b.var("size");
    let x = b.var("start");
    b.assume(pow2(&size));
    [
        start(&size, &x, Pair::KernelToUser).inv_parts(),
        start(&size, &x, Pair::UserToKernel).inv_parts(),
    ]
    .concat()
}

pub fn slot(idx: &BV, size: &BV) -> BV {
    idx.bvand(size.bvsub(c(1)))
}

/// Vars `size, base, i, j` with `i < j < size`; returns the goal that the
/// window `base .. base + size` maps to distinct slots at `i` and `j`.
fn window(b: &mut Builder) -> (BV, BV, Bool) {
    let size = b.var("size");
    let base = b.var("base");
    let i = b.var("i");
    let j = b.var("j");
    b.assume(i.bvult(&j));
    b.assume(j.bvult(&size));
    let si = slot(&(&base + &i), &size);
    let sj = slot(&(&base + &j), &size);
    b.show("slot_i", &si);
    b.show("slot_j", &sj);
    let distinct = si.eq(&sj).not();
    (size, base, distinct)
}

fn slot_pow2(b: &mut Builder) -> Vec<Bool> {
    let (size, base, distinct) = window(b);
    b.assume(pow2(&size));
    let s = slot(&base, &size);
    vec![distinct, s.bvult(&size), s.eq(base.bvurem(&size))]
}

fn slot_not_pow2(b: &mut Builder) -> Vec<Bool> {
    let (size, _, distinct) = window(b);
    b.assume(size.eq(c(0)).not());
    b.assume(size.bvule(c(1 << 31)));
    b.assume(pow2(&size).not());
    vec![distinct]
}

pub fn entries() -> Vec<Entry> {
    vec![
        proved(
            "ring-init",
            "the initial state (all words equal, libxdp producer cached_cons = consumer + size) \
             satisfies both invariants",
            init,
        ),
        proved(
            "slot-mask-pow2",
            "for a power-of-two size, idx & (size - 1) = idx mod size and is a bijection on any \
             window of size consecutive indices",
            slot_pow2,
        ),
        refuted(
            "size-not-pow2",
            "for a size in 1..=2^31 that is not a power of two, idx & (size - 1) maps two \
             indices of one window to the same slot",
            None,
            slot_not_pow2,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::{by_name, run, Outcome};
    use std::collections::HashMap;

    #[test]
    fn size_not_pow2_counterexample_collides() {
        let r = run(&by_name("size-not-pow2").unwrap());
        let Outcome::Refuted { counterexample } = r.outcome else {
            panic!("expected a counterexample, got {:?}", r.outcome);
        };
        let m: HashMap<_, _> = counterexample.into_iter().collect();
        let g = |n: &str| u32::try_from(m[n]).unwrap();
        let (size, base, i, j) = (g("size"), g("base"), g("i"), g("j"));
        assert!(size != 0 && size <= 1 << 31 && !size.is_power_of_two());
        assert!(i < j && j < size);
        let si = base.wrapping_add(i) & (size - 1);
        let sj = base.wrapping_add(j) & (size - 1);
        assert_eq!(u64::from(si), m["slot_i'"]);
        assert_eq!(u64::from(sj), m["slot_j'"]);
        assert_eq!(si, sj);
    }
}
