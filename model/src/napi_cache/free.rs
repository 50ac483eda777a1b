//! Frees from a socket: SkbAttemptDeferFree and KfreeSkb.

use super::config::{Config, Mutant};
use super::state::{ci, si, Access, Cpu, Ctx, Skb, State, Touch};

impl State {
    /// SkbAttemptDeferFree(c, s): skb_attempt_defer_free() in task
    /// context by the last holder: queued on the allocating CPU's defer
    /// list, kicking it (kick_defer_list_purge) when the list reaches half
    /// of DeferMax; on the allocating CPU, or when its list is full, freed
    /// into this CPU's cache with BH off (kfree_skb_napi_cache).
    pub fn skb_attempt_defer_free(&self, cfg: &Config, c: Cpu, s: Skb) -> Option<State> {
        if !cfg.has_cpu(c) || !cfg.has_skb(s) || self.ctx[ci(c)] != Ctx::Idle {
            return None;
        }
        if self.held[si(s)] == 0 || self.users[si(s)] != 1 {
            return None;
        }
        let o = self.owner[si(s)];
        // dcount[0] is outside the function's domain: TLC stops with an
        // error there; no reachable state of the spec has it.
        if !cfg.has_cpu(o) {
            return None;
        }
        let mut t = self.clone();
        t.held[si(s)] = 0;
        if o == c || self.dcount[ci(o)] >= cfg.defer_max {
            let to = if cfg.bug(Mutant::RemotePut) { o } else { c };
            t.users[si(s)] = 0;
            t.napi_kfree(cfg, to, s);
            t.touch[ci(to)] = Touch { cpu: c, ctx: Access::Bh };
        } else {
            let d = if cfg.bug(Mutant::DeferWrongCpu) { c } else { o };
            t.defer[ci(d)].insert(0, s);
            t.dcount[ci(d)] += 1;
            if self.dcount[ci(d)] == cfg.defer_max / 2 && !cfg.bug(Mutant::DeferNoKick) {
                t.kick[ci(d)] = true;
                super::cost::count(|n| n.kicks += 1);
            }
        }
        Some(t)
    }

    /// KfreeSkb(s): kfree_skb() from any context: the last reference
    /// frees to the slab (__kfree_skb).
    pub fn kfree_skb(&self, cfg: &Config, s: Skb) -> Option<State> {
        if !cfg.has_skb(s) || self.held[si(s)] == 0 {
            return None;
        }
        let mut t = self.clone();
        t.held[si(s)] -= 1;
        t.users[si(s)] -= 1;
        if self.users[si(s)] == 1 {
            t.slab_free(cfg, s);
        }
        Some(t)
    }
}
