//! References beyond the first (Clone): SkbGet, SkbGroReceiveList,
//! PskbCopy.

use super::config::{Config, Mutant};
use super::state::{ci, si, Cpu, Ctx, Skb, State};

impl State {
    /// SkbGet(s): skb_get(): a second holder.
    pub fn skb_get(&self, cfg: &Config, s: Skb) -> Option<State> {
        if !cfg.clone || !cfg.has_skb(s) || self.held[si(s)] != 1 || self.users[si(s)] != 1 {
            return None;
        }
        let mut t = self.clone();
        t.users[si(s)] = 2;
        t.held[si(s)] = 2;
        Some(t)
    }

    /// SkbGroReceiveList(c, p, t): skb_gro_receive_list() in c's poll: t,
    /// held once, joins the end of p's frag list, its reference moving
    /// there. napi-gro-self: t may be p itself.
    pub fn skb_gro_receive_list(&self, cfg: &Config, c: Cpu, p: Skb, t: Skb) -> Option<State> {
        if !cfg.clone || !cfg.has_cpu(c) || !cfg.has_skb(p) || !cfg.has_skb(t) {
            return None;
        }
        if p == t && !cfg.bug(Mutant::GroSelf) {
            return None;
        }
        if self.ctx[ci(c)] != Ctx::Napi
            || self.held[si(p)] == 0
            || self.held[si(t)] != 1
            || self.users[si(t)] != 1
            || self.frag[si(t)] != 0
        {
            return None;
        }
        if self.is_member(t) || self.is_member(p) {
            return None;
        }
        let fp = self.frag[si(p)];
        if fp != 0 && self.live().any(|q| q != p && self.frag[si(q)] == fp) {
            return None;
        }
        let ch = self.chain(p);
        let mut n = self.clone();
        n.held[si(t)] = 0;
        if ch.is_empty() {
            n.frag[si(p)] = t;
        } else {
            // CHOOSE x \in ch : next[x] = 0 (none: TLC's CHOOSE fails).
            let tail = *ch.iter().find(|&&x| self.next[si(x)] == 0)?;
            n.next[si(tail)] = t;
        }
        Some(n)
    }

    /// PskbCopy(c, p): pskb_copy() on c: a new skb from the slab sharing
    /// p's frag list, whose members each gain a reference
    /// (skb_clone_fraglist).
    pub fn pskb_copy(&self, cfg: &Config, c: Cpu, p: Skb) -> Option<State> {
        if !cfg.clone || !cfg.has_cpu(c) || !cfg.has_skb(p) {
            return None;
        }
        if self.frag[si(p)] == 0 || self.held[si(p)] == 0 {
            return None;
        }
        let n = *self.slab.first()?;
        let mut t = self.clone();
        super::cost::count(|k| k.slab_alloc += 1);
        t.slab.remove(&n);
        for x in self.chain(p) {
            t.users[si(x)] += 1;
        }
        t.users[si(n)] = 1;
        t.held[si(n)] = 1;
        t.owner[si(n)] = c;
        t.frag[si(n)] = self.frag[si(p)];
        Some(t)
    }
}
