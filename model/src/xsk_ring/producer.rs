//! The producer's actions (ProdStep). Each returns the next state, or None
//! when the action is not enabled with the given choice.

use super::config::{Barrier, Config, Mutant, Side};
use super::state::{Entry, Own, State};

impl State {
    /// Store(i, ok): store the entry for position i. Overwriting an entry
    /// nobody loaded is a clobber.
    fn store(&mut self, cfg: &Config, i: u64, ok: bool) {
        let s = cfg.mask(i);
        let own = match self.own[s] {
            Own::Written | Own::Published | Own::Clobbered => Own::Clobbered,
            _ if self.published(cfg, i) => Own::Published,
            _ => Own::Written,
        };
        self.slot[s] = Entry { idx: i, ok };
        self.own[s] = own;
    }

    /// ProdReserve. Kernel: xskq_prod_nb_free() then cached_prod += k, as in
    /// xskq_prod_reserve(), xskq_prod_reserve_addr() and the batch
    /// xskq_prod_write_addr_batch(), which take min(free, n); ->consumer is
    /// re-read only when the cache is short. User: xsk_ring_prod__reserve(),
    /// all or nothing via xsk_prod_nb_free().
    pub fn prod_reserve(&self, cfg: &Config, n: u64) -> Option<State> {
        // a store ahead (p_ahead) is at p_prod with p_wr == p_prod too
        if self.p_wr != self.p_prod || !(1..=cfg.max_batch).contains(&n) {
            return None;
        }
        let mut next = self.clone();
        match cfg.prod_side {
            Side::Kernel => {
                // free = nentries - (cached_prod - cached_cons), in u32
                let short = cfg.sub(cfg.size, cfg.sub(self.p_prod, self.p_cons)) < n;
                let cc = if !short {
                    self.p_cons
                } else if cfg.mutant == Mutant::CachedConsOffset {
                    cfg.add(self.cons, cfg.size)
                } else {
                    self.cons
                };
                let k = n.min(cfg.sub(cfg.size, cfg.sub(self.p_prod, cc)));
                if self.p_ahead && k == 0 {
                    return None;
                }
                next.p_cons = cc;
                next.p_prod = cfg.add(self.p_prod, k);
            }
            Side::User => {
                let short = cfg.sub(self.p_cons, self.p_prod) < n;
                let cc = if short {
                    cfg.add(self.cons, cfg.size)
                } else {
                    self.p_cons
                };
                let free = cfg.sub(cc, self.p_prod);
                let ok = if cfg.mutant == Mutant::ReservePartial {
                    free > 0
                } else {
                    free >= n
                };
                if self.p_ahead && !ok {
                    return None;
                }
                next.p_cons = cc;
                if ok {
                    next.p_prod = cfg.add(self.p_prod, n);
                }
            }
        }
        if self.p_ahead {
            next.p_wr = cfg.add(self.p_wr, 1);
        }
        next.p_ahead = false;
        Some(next)
    }

    /// ProdWrite: the entry stores of xskq_prod_reserve_addr() /
    /// xskq_prod_reserve_desc() (kernel) or of the application through
    /// xsk_ring_prod__fill_addr() (user).
    pub fn prod_write(&self, cfg: &Config, ok: bool) -> Option<State> {
        if self.p_wr == self.p_prod || self.p_ahead || !(ok || cfg.invalid_descs) {
            return None;
        }
        let mut next = self.clone();
        next.store(cfg, self.p_wr, ok);
        next.p_wr = cfg.add(self.p_wr, 1);
        Some(next)
    }

    /// ProdWriteAhead: without A, the store of the next entry performed
    /// before the load of ->consumer that justifies it.
    pub fn prod_write_ahead(&self, cfg: &Config, ok: bool) -> Option<State> {
        if cfg.has(Barrier::A)
            || self.p_wr != self.p_prod
            || self.p_ahead
            || !(ok || cfg.invalid_descs)
            // only where the load of ->consumer is needed and could justify it
            || cfg.sub(self.p_prod, self.p_cons_real(cfg)) < cfg.size
            || cfg.sub(self.p_prod, self.prod) >= cfg.size
        {
            return None;
        }
        let mut next = self.clone();
        next.store(cfg, self.p_prod, ok);
        next.p_ahead = true;
        Some(next)
    }

    /// ProdSubmit. Kernel: xskq_prod_submit_n() / xskq_prod_submit(); user:
    /// xsk_ring_prod__submit(). The release store of ->producer (B); without
    /// B the publication may overtake stores not yet performed.
    pub fn prod_submit(&self, cfg: &Config, n: u64) -> Option<State> {
        let limit = if cfg.has(Barrier::B) {
            cfg.sub(self.p_wr, self.prod)
        } else {
            cfg.sub(self.p_prod, self.prod)
        };
        if self.p_ahead || !(1..=cfg.max_batch).contains(&n) || n > limit {
            return None;
        }
        let mut next = self.clone();
        next.prod = cfg.add(self.prod, n);
        for (own, entry) in next.own.iter_mut().zip(&self.slot) {
            if *own == Own::Written && cfg.sub(entry.idx, self.prod) < n {
                *own = Own::Published;
            }
        }
        Some(next)
    }

    /// ProdCancel, kernel only: xskq_prod_cancel_n() gives back reserved,
    /// unpublished entries (the completion ring when a transmit fails).
    pub fn prod_cancel(&self, cfg: &Config, n: u64) -> Option<State> {
        if cfg.prod_side != Side::Kernel || self.p_wr != self.p_prod || self.p_ahead {
            return None;
        }
        if !(1..=cfg.max_batch.min(cfg.sub(self.p_prod, self.prod))).contains(&n) {
            return None;
        }
        let back = cfg.sub(self.p_prod, n);
        let mut next = self.clone();
        next.p_prod = back;
        next.p_wr = back;
        for (own, entry) in next.own.iter_mut().zip(&self.slot) {
            if *own == Own::Written && cfg.sub(entry.idx, back) < n {
                *own = Own::Free;
            }
        }
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsk_ring::config::Barriers;

    fn cfg(prod_side: Side) -> Config {
        Config {
            prod_side,
            ..Config::fill()
        }
    }

    #[test]
    fn user_reserve_is_all_or_nothing() {
        let c = cfg(Side::User);
        let s = State::init(&c, 0).prod_reserve(&c, 2).unwrap();
        assert_eq!(s.p_prod, 2);
        assert!(
            s.prod_reserve(&c, 1).is_none(),
            "reserved entries not yet stored"
        );
        let s = s
            .prod_write(&c, true)
            .unwrap()
            .prod_write(&c, true)
            .unwrap();
        let t = s.prod_reserve(&c, 1).unwrap();
        assert_eq!((t.p_prod, t.p_cons), (2, 2), "ring full: nothing reserved");
        let partial = Config {
            mutant: Mutant::ReservePartial,
            ..c.clone()
        };
        let u = State::init(&c, 0)
            .prod_reserve(&c, 1)
            .unwrap()
            .prod_write(&c, true)
            .unwrap();
        assert!(
            u.prod_reserve(&c, 2).unwrap() == u,
            "one free: all or nothing"
        );
        assert_eq!(u.prod_reserve(&partial, 2).unwrap().p_prod, 3);
    }

    #[test]
    fn kernel_reserve_takes_what_is_free() {
        let c = cfg(Side::Kernel);
        let s = State::init(&c, 7).prod_reserve(&c, 1).unwrap();
        assert_eq!(s.p_prod, 0);
        let s = s.prod_write(&c, true).unwrap();
        assert_eq!(s.prod_reserve(&c, 2).unwrap().p_prod, 1);
    }

    #[test]
    fn write_submit_cancel() {
        let c = cfg(Side::Kernel);
        let s = State::init(&c, 0).prod_reserve(&c, 2).unwrap();
        assert!(s.prod_write(&c, false).is_none(), "no invalid descs");
        let w = s.prod_write(&c, true).unwrap();
        assert_eq!(
            (w.slot[0], w.own[0], w.p_wr),
            (Entry { idx: 0, ok: true }, Own::Written, 1)
        );
        assert!(w.prod_submit(&c, 2).is_none(), "B: only stored entries");
        assert_eq!(w.prod_submit(&c, 1).unwrap().own[0], Own::Published);
        assert!(w.prod_cancel(&c, 1).is_none(), "a store is in flight");
        let w2 = w.prod_write(&c, true).unwrap();
        let back = w2.prod_cancel(&c, 2).unwrap();
        assert_eq!(
            (back.p_prod, back.own.clone()),
            (0, vec![Own::Free, Own::Free])
        );
    }

    #[test]
    fn write_ahead_needs_a_missing() {
        let c = cfg(Side::Kernel);
        let no_a = Config {
            barriers: Barriers::ALL.without(Barrier::A),
            ..c
        };
        // The producer fills the ring and publishes: its cache says full.
        let mut s = State::init(&c, 0);
        for _ in 0..c.size {
            s = s.prod_reserve(&c, 1).unwrap().prod_write(&c, true).unwrap();
        }
        s = s.prod_submit(&c, c.size).unwrap();
        assert!(s.prod_write_ahead(&c, true).is_none());
        let a = s.prod_write_ahead(&no_a, true).unwrap();
        assert!(a.p_ahead && a.prod_write(&no_a, true).is_none());
        // The store hit a published, unread entry.
        assert!(!a.no_overwrite(&no_a));
        // The reservation it needs is only possible once the consumer hands back.
        assert!(a.prod_reserve(&no_a, 1).is_none());
    }

    #[test]
    fn write_ahead_only_where_the_load_is_needed() {
        let c = Config {
            barriers: Barriers::ALL.without(Barrier::A),
            ..cfg(Side::Kernel)
        };
        // Room in the cache: no load of ->consumer to hoist the store above.
        assert!(State::init(&c, 0).prod_write_ahead(&c, true).is_none());
        // Full, but of the producer's own unpublished entries: no load can free them.
        let mut s = State::init(&c, 0);
        for _ in 0..c.size {
            s = s.prod_reserve(&c, 1).unwrap().prod_write(&c, true).unwrap();
        }
        assert!(s.prod_write_ahead(&c, true).is_none());
    }
}
