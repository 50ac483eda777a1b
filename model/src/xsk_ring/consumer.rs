//! The consumer's actions (ConsStep). Each returns the next state, or None
//! when the action is not enabled with the given choice.

use super::config::{Barrier, Config, Mutant, Side};
use super::state::{Load, Own, State};

impl State {
    /// LoadAt(i): what the consumer sees at position i, and whether it was
    /// published when loaded.
    fn load_at(&self, cfg: &Config, i: u64) -> Load {
        let entry = self.slot[cfg.mask(i)];
        Load {
            pos: i,
            val: entry.idx,
            ok: entry.ok,
            published: self.published(cfg, i),
            exp: self.c_exp,
            some: true,
        }
    }

    /// KeepSpec(end): a speculative load survives a refresh of ->producer
    /// only if the refreshed range covers it.
    fn keep_spec(&self, cfg: &Config, end: u64) -> Load {
        let spec = self.c_spec;
        if spec.some && cfg.sub(spec.pos, self.c_rd) < cfg.sub(end, self.c_rd) {
            spec
        } else {
            Load::NONE
        }
    }

    /// ConsPeek: kernel_cons_peek on the kernel side (nb must be None),
    /// user_cons_peek on the user side.
    pub fn cons_peek(&self, cfg: &Config, nb: Option<u64>) -> Option<State> {
        match (cfg.cons_side, nb) {
            (Side::Kernel, None) => self.kernel_cons_peek(cfg),
            (Side::User, Some(nb)) => self.user_cons_peek(cfg, nb),
            _ => None,
        }
    }

    /// KernelConsPeek: xskq_cons_peek_desc() /
    /// xskq_cons_peek_addr_unchecked(). With an empty cache they call
    /// xskq_cons_get_entries(): __xskq_cons_release() (release store of
    /// ->consumer, D) then __xskq_cons_peek() (acquire load of ->producer, C).
    pub fn kernel_cons_peek(&self, cfg: &Config) -> Option<State> {
        if self.c_rd != self.c_end || self.c_cons != self.c_rd {
            return None;
        }
        let empty = self.c_prod == self.c_cons;
        let cp = if empty { self.prod } else { self.c_prod };
        let end = if cp != self.c_cons {
            cfg.add(self.c_cons, 1)
        } else {
            self.c_cons
        };
        let mut next = self.clone();
        if empty && cfg.mutant != Mutant::ConsNoPublish {
            next.cons = self.c_cons;
        }
        next.c_prod = cp;
        next.c_end = end;
        next.c_spec = self.keep_spec(cfg, end);
        Some(next)
    }

    /// UserConsPeek: xsk_ring_cons__peek(nb) via xsk_cons_nb_avail(), which
    /// re-reads ->producer (C) only when no entry is cached; cached_cons
    /// moves at peek.
    pub fn user_cons_peek(&self, cfg: &Config, nb: u64) -> Option<State> {
        if cfg.cons_side != Side::User
            || self.c_rd != self.c_end
            || !(1..=cfg.max_batch).contains(&nb)
        {
            return None;
        }
        let cp = if self.c_prod == self.c_end {
            self.prod
        } else {
            self.c_prod
        };
        let end = cfg.add(self.c_end, nb.min(cfg.sub(cp, self.c_end)));
        let mut next = self.clone();
        next.c_prod = cp;
        next.c_end = end;
        next.c_cons = end;
        next.c_spec = self.keep_spec(cfg, end);
        Some(next)
    }

    /// ConsPeekBatch, kernel only, not in copy mode:
    /// xskq_cons_nb_entries(max) then xskq_cons_read_desc_batch();
    /// ->producer is re-read (C) only when fewer than max entries are
    /// cached.
    pub fn cons_peek_batch(&self, cfg: &Config, max: u64) -> Option<State> {
        if cfg.cons_side != Side::Kernel
            || cfg.copy_tx
            || self.c_rd != self.c_end
            || self.c_cons != self.c_rd
            || !(1..=cfg.max_batch).contains(&max)
        {
            return None;
        }
        let cp = if cfg.sub(self.c_prod, self.c_cons) >= max {
            self.c_prod
        } else {
            self.prod
        };
        let end = cfg.add(self.c_cons, max.min(cfg.sub(cp, self.c_cons)));
        let mut next = self.clone();
        next.c_prod = cp;
        next.c_end = end;
        next.c_spec = self.keep_spec(cfg, end);
        Some(next)
    }

    /// ConsRead: load one peeked entry, the copy in xskq_cons_read_desc() /
    /// xskq_cons_read_addr_unchecked() (kernel) or xsk_ring_cons__rx_desc() /
    /// xsk_ring_cons__comp_addr() (user).
    pub fn cons_read(&self, cfg: &Config) -> Option<State> {
        if self.c_rd == self.c_end {
            return None;
        }
        let l = if self.c_spec.some && self.c_spec.pos == self.c_rd {
            Load {
                exp: self.c_exp,
                ..self.c_spec
            }
        } else {
            self.load_at(cfg, self.c_rd)
        };
        let mut next = self.clone();
        next.last = l;
        if l.ok {
            next.c_valid = self.c_valid + 1;
        }
        let s = cfg.mask(self.c_rd);
        if self.own[s] == Own::Published {
            next.own[s] = Own::Read;
        }
        next.c_rd = cfg.add(self.c_rd, 1);
        next.c_exp = cfg.add(self.c_exp, 1);
        next.c_spec = Load::NONE;
        Some(next)
    }

    /// ConsReadAhead: without C, the load of the next position hoisted
    /// above the acquire load of ->producer that makes it visible.
    pub fn cons_read_ahead(&self, cfg: &Config) -> Option<State> {
        // only ahead of a peek that must re-read ->producer
        if cfg.has(Barrier::C)
            || self.c_rd != self.c_end
            || self.c_spec.some
            || self.c_prod != self.c_end
        {
            return None;
        }
        let mut next = self.clone();
        next.c_spec = self.load_at(cfg, self.c_end);
        Some(next)
    }

    /// Releasable: with D only loaded entries; without D the release may be
    /// performed before the loads.
    pub(crate) fn releasable(&self, cfg: &Config) -> u64 {
        if cfg.has(Barrier::D) {
            self.c_rd
        } else {
            self.c_end
        }
    }

    /// ConsRelease. Kernel (nb None): xskq_cons_release() /
    /// xskq_cons_release_n() move cached_cons only, published later by
    /// ConsPublish; xskq_cons_read_desc_batch() releases every entry it
    /// examined, valid or not (the batch-release-count mutant only the valid
    /// ones). User (nb Some): xsk_ring_cons__release(nb), the release store
    /// of ->consumer (D).
    pub fn cons_release(&self, cfg: &Config, nb: Option<u64>) -> Option<State> {
        let mut next = self.clone();
        match (cfg.cons_side, nb) {
            (Side::Kernel, None) => {
                if (cfg.has(Barrier::D) && self.c_rd != self.c_end) || self.c_end == self.c_cons {
                    return None;
                }
                let new = if cfg.mutant == Mutant::BatchReleaseCount {
                    cfg.add(self.c_cons, self.c_valid)
                } else {
                    self.c_end
                };
                next.c_cons = new;
                if self.c_rd == self.c_end {
                    next.c_rd = new;
                    next.c_end = new;
                }
            }
            (Side::User, Some(nb)) => {
                if !(1..=cfg.sub(self.releasable(cfg), self.cons)).contains(&nb) {
                    return None;
                }
                next.cons = cfg.add(self.cons, nb);
            }
            _ => return None,
        }
        next.c_valid = 0;
        Some(next)
    }

    /// ConsPublish, kernel only: __xskq_cons_release(), the release store of
    /// ->consumer (D) at the end of a transmit or receive batch
    /// (xsk_tx_release(), xsk_flush()); not in copy mode's transmit loop.
    pub fn cons_publish(&self, cfg: &Config) -> Option<State> {
        if cfg.cons_side != Side::Kernel
            || cfg.copy_tx
            || cfg.mutant == Mutant::ConsNoPublish
            || self.cons == self.c_cons
        {
            return None;
        }
        let mut next = self.clone();
        next.cons = self.c_cons;
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsk_ring::config::Barriers;

    fn cfg(cons_side: Side) -> Config {
        Config {
            prod_side: Side::Kernel,
            cons_side,
            invalid_descs: true,
            ..Config::fill()
        }
    }

    /// Two entries stored and published at positions 6 and 7, the first
    /// one invalid.
    fn two_published(c: &Config) -> State {
        let s = State::init(c, 6).prod_reserve(c, 2).unwrap();
        let s = s.prod_write(c, false).unwrap().prod_write(c, true).unwrap();
        s.prod_submit(c, 2).unwrap()
    }

    #[test]
    fn kernel_peek_read_release_publish() {
        let c = cfg(Side::Kernel);
        let s = two_published(&c);
        assert!(
            s.cons_peek(&c, Some(1)).is_none(),
            "kernel peek takes no nb"
        );
        let p = s.cons_peek(&c, None).unwrap();
        assert_eq!((p.c_prod, p.c_end), (0, 7));
        let r = p.cons_read(&c).unwrap();
        assert_eq!(
            (r.last.pos, r.last.val, r.last.ok, r.c_valid),
            (6, 6, false, 0)
        );
        assert_eq!(r.own[0], Own::Read);
        let rel = r.cons_release(&c, None).unwrap();
        assert_eq!((rel.c_cons, rel.c_rd, rel.c_end, rel.cons), (7, 7, 7, 6));
        assert_eq!(rel.cons_publish(&c).unwrap().cons, 7);
    }

    /// Copy mode's tx ring: no batch peek and no lone publish; ->consumer
    /// moves only when a peek finds the cache empty.
    #[test]
    fn copy_tx_publishes_only_in_the_peek() {
        let c = Config {
            copy_tx: true,
            ..cfg(Side::Kernel)
        };
        let s = two_published(&c);
        assert!(s.cons_peek_batch(&c, 1).is_none());
        let s = s.cons_peek(&c, None).unwrap().cons_read(&c).unwrap();
        let s = s.cons_release(&c, None).unwrap();
        assert!(s.cons_publish(&c).is_none());
        let s = s.cons_peek(&c, None).unwrap().cons_read(&c).unwrap();
        let s = s.cons_release(&c, None).unwrap();
        assert_eq!((s.c_cons, s.cons), (0, 6), "the cache held both");
        assert_eq!(
            s.cons_peek(&c, None).unwrap().cons,
            0,
            "the empty peek publishes"
        );
    }

    #[test]
    fn batch_release_count_releases_only_valid() {
        let c = cfg(Side::Kernel);
        let mutant = Config {
            mutant: Mutant::BatchReleaseCount,
            ..c.clone()
        };
        let s = two_published(&c).cons_peek_batch(&c, 2).unwrap();
        let s = s.cons_read(&c).unwrap().cons_read(&c).unwrap();
        assert_eq!(s.c_valid, 1);
        assert_eq!(s.cons_release(&c, None).unwrap().c_cons, 0);
        assert_eq!(s.cons_release(&mutant, None).unwrap().c_cons, 7);
    }

    #[test]
    fn user_peek_moves_cached_cons_and_release_is_bounded_by_reads() {
        let c = cfg(Side::User);
        let s = two_published(&c).cons_peek(&c, Some(2)).unwrap();
        assert_eq!((s.c_cons, s.c_end), (0, 0));
        assert!(
            s.cons_release(&c, Some(1)).is_none(),
            "D: nothing loaded yet"
        );
        let r = s.cons_read(&c).unwrap();
        assert!(r.cons_release(&c, Some(2)).is_none());
        assert_eq!(r.cons_release(&c, Some(1)).unwrap().cons, 7);
    }

    #[test]
    fn read_ahead_loads_before_publication() {
        let c = Config {
            barriers: Barriers::ALL.without(Barrier::C),
            ..cfg(Side::Kernel)
        };
        let s = State::init(&c, 0);
        let a = s.cons_read_ahead(&c).unwrap();
        assert!(a.c_spec.some && !a.c_spec.published);
        assert!(a.cons_read_ahead(&c).is_none());
        assert_eq!(
            a.cons_peek(&c, None).unwrap().c_spec,
            Load::NONE,
            "empty refresh drops it"
        );
    }
}
