//! The projection of the simulator onto the spec's variables (slab,
//! cache, touch, defer, dcount, kick, ctx, users, held, frag, next,
//! owner, heads, pending, left, rcvd, dropped). Every model value is
//! built here, so a change of the model's types changes this file alone.

use ringlab_model::napi_cache::{self as model, Ctx, Touch};

use super::cpu::{IDLE, NAPI};
use super::system::NapiSkbCache;

impl NapiSkbCache {
    /// The spec's state this system is in: the slab's free heads, each
    /// CPU's cache, last access, defer list and count, IPI flag, context
    /// and tun batch, each skb's fields, and the frames' counters.
    ///
    /// Call it when no thread is inside a kernel function.
    pub fn model_state(&self) -> model::State {
        let net = &self.net;
        let cpus = &net.cpus;
        let skb = |s: u8| net.skbs.get(s);
        model::State {
            slab: net.slab.free_ids().into_iter().collect(),
            cache: cpus.iter().map(|c| c.cache.heads()).collect(),
            touch: cpus
                .iter()
                .map(|c| {
                    let t = c.cache.touch();
                    Touch {
                        cpu: t.cpu,
                        ctx: if t.bh { model::Access::Bh } else { model::Access::Task },
                    }
                })
                .collect(),
            defer: cpus.iter().map(|c| c.defer.skbs()).collect(),
            dcount: cpus.iter().map(|c| c.defer.count()).collect(),
            kick: cpus.iter().map(|c| c.kicked()).collect(),
            ctx: cpus
                .iter()
                .map(|c| match c.ctx() {
                    IDLE => Ctx::Idle,
                    NAPI => Ctx::Napi,
                    _ => Ctx::Tun,
                })
                .collect(),
            users: net.skbs.ids().map(|s| i64::from(skb(s).users())).collect(),
            held: net.skbs.ids().map(|s| skb(s).held().max(0) as u32).collect(),
            frag: net.skbs.ids().map(|s| skb(s).frag()).collect(),
            next: net.skbs.ids().map(|s| skb(s).next()).collect(),
            owner: net.skbs.ids().map(|s| skb(s).owner()).collect(),
            heads: cpus.iter().map(|c| c.tun.heads()).collect(),
            pending: cpus.iter().map(|c| c.tun.pending()).collect(),
            left: net.frames.left(),
            rcvd: net.frames.rcvd(),
            dropped: net.frames.dropped(),
        }
    }
}
