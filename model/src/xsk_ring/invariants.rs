//! The spec's invariants (TypeOK and the safety properties).

use super::config::Config;
use super::state::{Load, Own, State};

/// An invariant: its spec name and its predicate.
pub type Invariant = (&'static str, fn(&State, &Config) -> bool);

/// The invariants in the order the MCXskRing_*.cfg files list them.
pub const INVARIANTS: [Invariant; 7] = [
    ("TypeOK", State::type_ok),
    ("IndicesAreU32", State::indices_are_u32),
    ("CachedNotAhead", State::cached_not_ahead),
    ("InFlightBounded", State::in_flight_bounded),
    ("NoOverwrite", State::no_overwrite),
    ("ReadsPublished", State::reads_published),
    ("FifoOrder", State::fifo_order),
];

/// The invariant with this spec name.
pub fn invariant(name: &str) -> Option<Invariant> {
    INVARIANTS.into_iter().find(|(n, _)| *n == name)
}

impl State {
    /// TypeOK: the ranges Rust's types do not already enforce.
    pub fn type_ok(&self, cfg: &Config) -> bool {
        let m = cfg.m();
        let load_ok = |l: &Load| l.pos < m && l.val <= m && l.exp < m;
        self.slot.len() == cfg.size as usize
            && self.own.len() == cfg.size as usize
            && self.slot.iter().all(|e| e.idx <= m)
            && load_ok(&self.c_spec)
            && load_ok(&self.last)
            && self.c_valid <= m
    }

    /// IndicesAreU32: every counter is below 2^IdxBits.
    pub fn indices_are_u32(&self, cfg: &Config) -> bool {
        self.counters().iter().all(|&(_, v)| v < cfg.m())
    }

    /// CachedNotAhead: each side's copy of the other side's counter lags
    /// the truth, never leads.
    pub fn cached_not_ahead(&self, cfg: &Config) -> bool {
        cfg.sub(self.cons, self.p_cons_real(cfg)) <= cfg.size
            && cfg.sub(self.prod, self.c_prod) <= cfg.size
    }

    /// InFlightBounded: published and reserved entries never exceed Size.
    pub fn in_flight_bounded(&self, cfg: &Config) -> bool {
        cfg.sub(self.prod, self.cons) <= cfg.size && cfg.sub(self.p_prod, self.cons) <= cfg.size
    }

    /// NoOverwrite: no entry is overwritten before the consumer loads it.
    pub fn no_overwrite(&self, _cfg: &Config) -> bool {
        self.own.iter().all(|o| *o != Own::Clobbered)
    }

    /// ReadsPublished: the consumer loads only published entries and sees
    /// the entry stored for that position.
    pub fn reads_published(&self, _cfg: &Config) -> bool {
        !self.last.some || (self.last.published && self.last.val == self.last.pos)
    }

    /// FifoOrder: positions are loaded in order, each exactly once.
    pub fn fifo_order(&self, _cfg: &Config) -> bool {
        !self.last.some || self.last.pos == self.last.exp
    }

    /// The name of the first invariant violated here, in cfg order.
    pub fn violated(&self, cfg: &Config) -> Option<&'static str> {
        INVARIANTS
            .iter()
            .find(|(_, holds)| !holds(self, cfg))
            .map(|(name, _)| *name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsk_ring::init_states;

    #[test]
    fn initial_states_hold() {
        let c = Config::fill();
        assert!(init_states(&c).iter().all(|s| s.violated(&c).is_none()));
    }

    #[test]
    fn each_invariant_can_fail() {
        let c = Config::fill();
        let s = State::init(&c, 0);
        let with = |f: &dyn Fn(&mut State)| {
            let mut t = s.clone();
            f(&mut t);
            t.violated(&c)
        };
        assert_eq!(with(&|t| t.c_valid = 9), Some("TypeOK"));
        assert_eq!(with(&|t| t.p_wr = 8), Some("IndicesAreU32"));
        assert_eq!(with(&|t| t.c_prod = 5), Some("CachedNotAhead"));
        assert_eq!(with(&|t| t.p_prod = 3), Some("InFlightBounded"));
        assert_eq!(with(&|t| t.own[1] = Own::Clobbered), Some("NoOverwrite"));
        let bad = Load {
            some: true,
            published: false,
            ..Load::NONE
        };
        assert_eq!(with(&|t| t.last = bad), Some("ReadsPublished"));
        let early = Load {
            some: true,
            exp: 1,
            ..Load::NONE
        };
        assert_eq!(with(&|t| t.last = early), Some("FifoOrder"));
        assert!(invariant("NoOverwrite").is_some() && invariant("Liveness").is_none());
    }
}
