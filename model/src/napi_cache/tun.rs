//! tun's batch: TunSendmsg, TunXdpOne, TunSendmsgEnd.

use super::action::XdpVerdict;
use super::config::{Config, Mutant, Path};
use super::state::{ci, Access, Cpu, Ctx, State, Touch};

impl State {
    /// TunSendmsg(c) with the slab call's `fail`: tun_sendmsg(TUN_MSG_PTR)
    /// from vhost-net takes a batch of frames and disables BH; on the
    /// bulk paths the batch's heads come from napi_skb_cache_get_bulk()
    /// (after skb_defer_free_flush() with Path "flush"); a frame it found
    /// no head for falls back to napi_build_skb() in tun_xdp_one. Path
    /// "slab" has no choice: `fail` is FALSE.
    pub fn tun_sendmsg(&self, cfg: &Config, c: Cpu, fail: bool) -> Option<State> {
        if !cfg.has_cpu(c) || self.ctx[ci(c)] != Ctx::Idle || self.left == 0 {
            return None;
        }
        if fail && (!cfg.slab_fail || cfg.path == Path::Slab) {
            return None;
        }
        let k = cfg.batch.min(self.left);
        let mut t = self.clone();
        if cfg.path == Path::Flush {
            t.flush_heap(cfg, c);
            t.flush_lists(cfg, c);
        }
        t.left -= k;
        t.ctx[ci(c)] = Ctx::Tun;
        t.pending[ci(c)] = k;
        if cfg.path != Path::Slab {
            t.heads[ci(c)] = t.cache_get_bulk(cfg, c, k, fail);
            let access = if cfg.bug(Mutant::TunNoBh) { Access::Task } else { Access::Bh };
            t.touch[ci(c)] = Touch { cpu: c, ctx: access };
        }
        Some(t)
    }

    /// TunXdpOne(c) with its verdict: tun_xdp_one() on one frame.
    /// XDP_DROP takes no head; XDP_PASS builds the skb around the batch's
    /// next head, or with none left on one from this CPU's cache
    /// (napi_build_skb), or with Path "slab" (build_skb) on the lowest
    /// head of the slab, dropping the frame when the allocation fails.
    pub fn tun_xdp_one(&self, cfg: &Config, c: Cpu, verdict: XdpVerdict) -> Option<State> {
        if !cfg.has_cpu(c) || self.ctx[ci(c)] != Ctx::Tun || self.pending[ci(c)] == 0 {
            return None;
        }
        let mut t = self.clone();
        t.pending[ci(c)] -= 1;
        match verdict {
            XdpVerdict::Drop => {
                if !cfg.bug(Mutant::XdpDropUncounted) {
                    t.dropped += 1;
                }
            }
            XdpVerdict::PassHead => {
                if t.heads[ci(c)].is_empty() {
                    return None;
                }
                let s = t.heads[ci(c)].remove(0);
                t.deliver(s, c);
            }
            XdpVerdict::PassCache { fail } => {
                if cfg.path == Path::Slab || !t.heads[ci(c)].is_empty() || (fail && !cfg.slab_fail) {
                    return None;
                }
                let s = t.cache_get(cfg, c, fail);
                if s == 0 {
                    t.dropped += 1;
                } else {
                    t.deliver(s, c);
                }
                t.touch[ci(c)] = Touch { cpu: c, ctx: Access::Bh };
            }
            XdpVerdict::PassSlab { fail } => {
                if cfg.path != Path::Slab || (fail && !cfg.slab_fail) {
                    return None;
                }
                match t.slab.first().copied() {
                    Some(s) if !fail => {
                        super::cost::count(|n| n.slab_alloc += 1);
                        t.slab.remove(&s);
                        t.deliver(s, c);
                    }
                    _ => t.dropped += 1,
                }
            }
        }
        Some(t)
    }

    /// TunSendmsgEnd(c): the end of tun_sendmsg(): heads the batch did not
    /// use go back to the slab in one kmem_cache_free_bulk()
    /// (tun_put_heads), BH goes on.
    pub fn tun_sendmsg_end(&self, cfg: &Config, c: Cpu) -> Option<State> {
        if !cfg.has_cpu(c) || self.ctx[ci(c)] != Ctx::Tun || self.pending[ci(c)] != 0 {
            return None;
        }
        let mut t = self.clone();
        t.ctx[ci(c)] = Ctx::Idle;
        let unused = std::mem::take(&mut t.heads[ci(c)]);
        if cfg.bug(Mutant::BulkLostHead) {
            // The unused heads are forgotten.
        } else if cfg.bug(Mutant::ReturnOverflow) {
            // Pushed back onto the cache in one copy, no half flush.
            t.cache[ci(c)].extend(&unused);
            if !unused.is_empty() {
                t.touch[ci(c)] = Touch { cpu: c, ctx: Access::Bh };
            }
        } else if !unused.is_empty() {
            super::cost::count(|n| n.slab_free_bulk += 1);
            t.slab.extend(unused);
        }
        Some(t)
    }
}
