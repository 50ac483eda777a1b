//! The NAPI side: NetRxAction, NapiComplete, NapiBuildSkb, NapiConsumeSkb.

use super::config::{Config, Mutant};
use super::state::{ci, si, Access, Cpu, Ctx, Skb, State, Touch};

impl State {
    /// NetRxAction(c): net_rx_action() on c (its driver has work, or an
    /// IPI kicked it): the defer list flushed on entry
    /// (skb_defer_free_flush).
    pub fn net_rx_action(&self, cfg: &Config, c: Cpu) -> Option<State> {
        if !cfg.has_cpu(c) || self.ctx[ci(c)] != Ctx::Idle {
            return None;
        }
        let mut t = self.clone();
        t.ctx[ci(c)] = Ctx::Napi;
        t.kick[ci(c)] = false;
        t.flush_heap(cfg, c);
        t.flush_lists(cfg, c);
        t.touch[ci(c)] = Touch { cpu: c, ctx: Access::Bh };
        Some(t)
    }

    /// NapiComplete(c): napi_complete_done() and the end of
    /// net_rx_action(), which flushes the defer list again.
    pub fn napi_complete(&self, cfg: &Config, c: Cpu) -> Option<State> {
        if !cfg.has_cpu(c) || self.ctx[ci(c)] != Ctx::Napi {
            return None;
        }
        let mut t = self.clone();
        t.ctx[ci(c)] = Ctx::Idle;
        t.flush_heap(cfg, c);
        t.flush_lists(cfg, c);
        t.touch[ci(c)] = Touch { cpu: c, ctx: Access::Bh };
        Some(t)
    }

    /// NapiBuildSkb(c) with the slab call's `fail`: napi_build_skb() in a
    /// driver's poll on a head from napi_skb_cache_get(); the frame is
    /// dropped when there is none.
    pub fn napi_build_skb(&self, cfg: &Config, c: Cpu, fail: bool) -> Option<State> {
        if !cfg.has_cpu(c) || self.ctx[ci(c)] != Ctx::Napi || self.left == 0 {
            return None;
        }
        if fail && !cfg.slab_fail {
            return None;
        }
        let mut t = self.clone();
        t.left -= 1;
        let s = t.cache_get(cfg, c, fail);
        if s == 0 {
            t.dropped += 1;
        } else {
            t.deliver(s, c);
        }
        t.touch[ci(c)] = Touch { cpu: c, ctx: Access::Bh };
        Some(t)
    }

    /// NapiConsumeSkb(c, s): napi_consume_skb(s, budget) in c's poll.
    /// napi-virtio-cache: also from task context (netpoll), BH on.
    pub fn napi_consume_skb(&self, cfg: &Config, c: Cpu, s: Skb) -> Option<State> {
        if !cfg.has_cpu(c) || !cfg.has_skb(s) {
            return None;
        }
        let ctx = self.ctx[ci(c)];
        let from_task = cfg.bug(Mutant::VirtioCache) && ctx == Ctx::Idle;
        if (ctx != Ctx::Napi && !from_task) || self.held[si(s)] == 0 {
            return None;
        }
        let mut t = self.clone();
        t.held[si(s)] -= 1;
        t.napi_consume(cfg, c, s);
        let access = if ctx == Ctx::Idle { Access::Task } else { Access::Bh };
        t.touch[ci(c)] = Touch { cpu: c, ctx: access };
        Some(t)
    }
}
