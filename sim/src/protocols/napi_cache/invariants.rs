//! The checks after each step: what only the concrete state shows (the
//! caches' lock assertions, the skbs a flush found on a list not their
//! allocator's, heads the slab was given twice, cache counts within
//! their arrays), then every invariant of specs/NapiSkbCache.tla,
//! evaluated by the model (ringlab_model::napi_cache) on
//! [`NapiSkbCache::model_state`], with a description of what broke.

use ringlab_model::napi_cache::{Config, State, INVARIANTS};

use super::system::NapiSkbCache;
pub use crate::harness::Violation;

/// The invariants checked after every step: all of the spec's, in the
/// order its model configs list them.
pub const CHECKED: [&str; INVARIANTS.len()] = {
    let mut n = [""; INVARIANTS.len()];
    let mut i = 0;
    while i < n.len() {
        n[i] = INVARIANTS[i].0;
        i += 1;
    }
    n
};

/// What the projection does not show: a cache touched by another CPU or
/// with BH on at any time (the lock's assertion, which a later access
/// does not undo as the spec's touch is), a flushed skb that another CPU
/// allocated, a head freed twice into the slab.
pub fn concrete(sys: &NapiSkbCache) -> Result<(), Violation> {
    let net = &sys.net;
    if let Some(m) = net.cpus.iter().find_map(|c| c.cache.splat()) {
        return Err(Violation::of("CacheLocal", m));
    }
    if let Some(m) = net.misdeferred() {
        return Err(Violation::of("DeferOwner", m));
    }
    let twice = net.slab.freed_twice();
    if !twice.is_empty() {
        return Err(Violation::concrete(format!("heads {twice:?} freed into the slab while free")));
    }
    Ok(())
}

/// Every checked invariant on the projection; the state if they hold.
pub fn check(sys: &NapiSkbCache) -> Result<State, Violation> {
    let st = sys.model_state();
    let cfg = &sys.cfg.spec;
    match st.violated(cfg, &CHECKED) {
        None => Ok(st),
        Some(invariant) => Err(Violation::of(invariant, explain(&st, cfg, invariant))),
    }
}

/// What breaks `invariant` in `st`, in the spec's terms.
pub fn explain(st: &State, cfg: &Config, invariant: &str) -> String {
    let mut out = Vec::new();
    let per_cpu = |out: &mut Vec<String>| {
        for c in cfg.cpus() {
            let i = usize::from(c) - 1;
            out.push(format!(
                "CPU {c}: {} cache {:?} touched by {:?}, defer {:?} count {}, batch {:?} pending {}",
                st.ctx[i].id(),
                st.cache[i],
                st.touch[i],
                st.defer[i],
                st.dcount[i],
                st.heads[i],
                st.pending[i]
            ));
        }
    };
    match invariant {
        "FramesConserved" => out.push(format!(
            "{} frames: {} left, {} delivered, {} dropped, {:?} pending",
            cfg.nframes, st.left, st.rcvd, st.dropped, st.pending
        )),
        _ => {
            out.push(format!("slab {:?}", st.slab));
            per_cpu(&mut out);
            for s in cfg.skbs() {
                let i = usize::from(s) - 1;
                if st.users[i] != 0 || st.held[i] != 0 || st.frag[i] != 0 || st.next[i] != 0 {
                    out.push(format!(
                        "skb {s}: users {} (refs {}), held {}, owner {}, frag {}, next {}",
                        st.users[i],
                        st.refs(s),
                        st.held[i],
                        st.owner[i],
                        st.frag[i],
                        st.next[i]
                    ));
                }
            }
        }
    }
    out.join("; ")
}

/// At the end: every frame arrived and accounted for, every CPU idle, no
/// skb in use, no batch, every defer list empty and uncounted, and every
/// head back in the slab or one cache.
pub fn quiescent(sys: &NapiSkbCache) -> Result<(), String> {
    let st = sys.model_state();
    let cfg = &sys.cfg.spec;
    if st.left != 0 || st.rcvd + st.dropped != cfg.nframes {
        return Err(format!(
            "frames: {} left, {} delivered, {} dropped of {}",
            st.left, st.rcvd, st.dropped, cfg.nframes
        ));
    }
    if let Some(s) = cfg.skbs().find(|&s| st.users[usize::from(s) - 1] != 0) {
        return Err(format!("skb {s} is still in use (users {})", st.users[usize::from(s) - 1]));
    }
    for c in cfg.cpus() {
        let i = usize::from(c) - 1;
        if st.ctx[i].id() != "idle" || !st.heads[i].is_empty() || st.pending[i] != 0 {
            return Err(format!("CPU {c} is {} with batch {:?}", st.ctx[i].id(), st.heads[i]));
        }
        if !st.defer[i].is_empty() || st.dcount[i] != 0 {
            return Err(format!("CPU {c}'s defer list {:?}, count {}", st.defer[i], st.dcount[i]));
        }
    }
    let placed = st.slab.len() + st.cache.iter().map(Vec::len).sum::<usize>();
    if placed != usize::from(cfg.nskb) {
        return Err(format!(
            "{placed} of {} heads in the slab and the caches: slab {:?}, caches {:?}",
            cfg.nskb, st.slab, st.cache
        ));
    }
    Ok(())
}
