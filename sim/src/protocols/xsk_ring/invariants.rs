//! The spec's safety invariants over the simulator's observed state.

use crate::harness::Violation;
use crate::xsk_ring::config::Side;
use crate::xsk_ring::project::State;
use ringlab_ring::idx::sub;

/// The spec's invariants on the counters of `s` (InFlightBounded,
/// CachedNotAhead), and each side's own positions in order (what the
/// spec's actions keep, checked on the concrete counters). The entry
/// properties (ReadsPublished, FifoOrder) are checked at each load.
pub fn check(s: &State, size: u32, prod_side: Side, cons_side: Side) -> Result<(), Violation> {
    if sub(s.prod, s.cons) > size {
        return Err(Violation::of("InFlightBounded", format!(
            "in flight: ->producer {} is {} past ->consumer {} on a ring of {size}",
            s.prod,
            sub(s.prod, s.cons),
            s.cons
        )));
    }
    if sub(s.p_prod, s.cons) > size {
        return Err(Violation::of("InFlightBounded", format!(
            "in flight: reserved up to {} with ->consumer {} on a ring of {size}",
            s.p_prod, s.cons
        )));
    }
    let p_cons = match prod_side {
        Side::User => sub(s.p_cons, size),
        Side::Kernel => s.p_cons,
    };
    if sub(s.cons, p_cons) > size {
        return Err(Violation::of("CachedNotAhead", format!(
            "cached ahead: the producer's ->consumer {p_cons} is ahead of ->consumer {}",
            s.cons
        )));
    }
    if sub(s.prod, s.c_prod) > size {
        return Err(Violation::of("CachedNotAhead", format!(
            "cached ahead: the consumer's ->producer {} is ahead of ->producer {}",
            s.c_prod, s.prod
        )));
    }
    ordered(
        "producer",
        &[
            ("->producer", s.prod),
            ("pWr", s.p_wr),
            ("cached_prod", s.p_prod),
        ],
        size,
    )?;
    match cons_side {
        Side::Kernel => ordered(
            "consumer",
            &[
                ("->consumer", s.cons),
                ("cached_cons", s.c_cons),
                ("cRd", s.c_rd),
                ("cEnd", s.c_end),
                ("cached_prod", s.c_prod),
            ],
            size,
        ),
        Side::User => ordered(
            "consumer",
            &[
                ("->consumer", s.cons),
                ("cRd", s.c_rd),
                ("cached_cons", s.c_end),
                ("cached_prod", s.c_prod),
            ],
            size,
        ),
    }
}

/// Positions that must not pass each other: each within `size` of the first,
/// in order.
fn ordered(who: &str, chain: &[(&str, u32)], size: u32) -> Result<(), Violation> {
    let base = chain[0].1;
    for w in chain.windows(2) {
        let (a, b) = (sub(w[0].1, base), sub(w[1].1, base));
        if a > b || b > size {
            return Err(Violation::concrete(format!(
                "{who} order: {} {} then {} {}",
                w[0].0, w[0].1, w[1].0, w[1].1
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(prod: u32, cons: u32) -> State {
        State {
            prod,
            cons,
            p_prod: prod,
            p_cons: cons,
            p_wr: prod,
            c_prod: prod,
            c_cons: cons,
            c_rd: cons,
            c_end: cons,
            slot: vec![None; 2],
            slot_ok: vec![true; 2],
        }
    }

    #[test]
    fn a_consistent_state_passes_across_the_wrap() {
        assert_eq!(
            check(&state(1, u32::MAX), 2, Side::Kernel, Side::User),
            Ok(())
        );
    }

    #[test]
    fn broken_invariants_are_named() {
        let e = check(&state(3, 0), 2, Side::Kernel, Side::User).unwrap_err();
        assert_eq!(e.invariant, Some("InFlightBounded"));
        assert!(e.detail.contains("in flight"), "{e}");
        let mut s = state(2, 0);
        s.c_prod = 3;
        let e = check(&s, 2, Side::User, Side::Kernel).unwrap_err();
        assert_eq!(e.invariant, Some("CachedNotAhead"));
        let mut s = state(2, 0);
        s.c_rd = 1;
        let e = check(&s, 2, Side::User, Side::Kernel).unwrap_err();
        assert_eq!(e.to_string(), "consumer order: cRd 1 then cEnd 0");
    }
}
