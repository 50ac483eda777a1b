//! The spec's invariants, TypeOK first, then in the order the
//! MCNapiSkbCache*.cfg files list them. DeferDrains (liveness) is TLC's
//! alone: the model checks the safety part of the spec.

use super::config::Config;
use super::state::{si, State};

/// An invariant: its spec name and its predicate.
pub type Invariant = (&'static str, fn(&State, &Config) -> bool);

pub const INVARIANTS: [Invariant; 10] = [
    ("TypeOK", State::type_ok),
    ("CacheLocal", State::cache_local),
    ("CacheBounded", State::cache_bounded),
    ("CachedReleased", State::cached_released),
    ("OnePlace", State::one_place),
    ("DeferOwner", State::defer_owner),
    ("DeferCountMatches", State::defer_count_matches),
    ("RefsAccounted", State::refs_accounted),
    ("FramesConserved", State::frames_conserved),
    ("NoLeak", State::no_leak),
];

/// The invariant with this spec name.
pub fn invariant(name: &str) -> Option<Invariant> {
    INVARIANTS.into_iter().find(|(n, _)| *n == name)
}

impl State {
    /// TypeOK, beyond what the Rust types give: the vectors have the
    /// config's sizes, every id names a CPU or skb of the config, users is
    /// in Nat, left in 0..NFrames.
    pub fn type_ok(&self, cfg: &Config) -> bool {
        let nc = usize::from(cfg.ncpu);
        let ns = usize::from(cfg.nskb);
        let skb = |s: &u8| cfg.has_skb(*s);
        let skb0 = |s: &u8| *s <= cfg.nskb;
        [
            self.cache.len(),
            self.touch.len(),
            self.defer.len(),
            self.dcount.len(),
            self.kick.len(),
            self.ctx.len(),
            self.heads.len(),
            self.pending.len(),
        ] == [nc; 8]
            && [
                self.users.len(),
                self.held.len(),
                self.frag.len(),
                self.next.len(),
                self.owner.len(),
            ] == [ns; 5]
            && self.slab.iter().all(skb)
            && self.cache.iter().flatten().all(skb)
            && self.defer.iter().flatten().all(skb)
            && self.heads.iter().flatten().all(skb)
            && self.touch.iter().all(|t| cfg.has_cpu(t.cpu))
            && self.users.iter().all(|u| *u >= 0)
            && self.owner.iter().all(|o| *o <= cfg.ncpu)
            && self.frag.iter().all(skb0)
            && self.next.iter().all(skb0)
            && self.left <= cfg.nframes
    }

    /// CacheLocal: a cache is touched only by its own CPU, with BH off.
    pub fn cache_local(&self, _cfg: &Config) -> bool {
        self.touch
            .iter()
            .enumerate()
            .all(|(k, t)| usize::from(t.cpu) == k + 1 && t.ctx == super::state::Access::Bh)
    }

    /// CacheBounded: no cache holds more than CacheSize heads.
    pub fn cache_bounded(&self, cfg: &Config) -> bool {
        self.cache.iter().all(|q| q.len() <= cfg.cache_size as usize)
    }

    /// CachedReleased: a head in the slab, a cache or a batch carries no
    /// frag list and is on none.
    pub fn cached_released(&self, _cfg: &Config) -> bool {
        let released = |s: &u8| self.frag[si(*s)] == 0 && self.next[si(*s)] == 0;
        self.slab.iter().all(released)
            && self.cache.iter().flatten().all(released)
            && self.heads.iter().flatten().all(released)
    }

    /// OnePlace: every head is in exactly one place.
    pub fn one_place(&self, cfg: &Config) -> bool {
        cfg.skbs().all(|s| self.place(s) == 1)
    }

    /// DeferOwner: a defer list holds only skbs its CPU allocated.
    pub fn defer_owner(&self, _cfg: &Config) -> bool {
        self.defer
            .iter()
            .enumerate()
            .all(|(k, q)| q.iter().all(|s| usize::from(self.owner[si(*s)]) == k + 1))
    }

    /// DeferCountMatches: defer_count is the list's length.
    pub fn defer_count_matches(&self, _cfg: &Config) -> bool {
        self.dcount
            .iter()
            .zip(&self.defer)
            .all(|(n, q)| *n as usize == q.len())
    }

    /// RefsAccounted: skb->users is the holders, the frag lists of skbs in
    /// use that reach it, and the defer lists it is on.
    pub fn refs_accounted(&self, cfg: &Config) -> bool {
        cfg.skbs().all(|s| self.users[si(s)] == self.refs(s))
    }

    /// FramesConserved: every frame that arrived is delivered, dropped, or
    /// still in tun's batch.
    pub fn frames_conserved(&self, cfg: &Config) -> bool {
        let pending: i64 = self.pending.iter().map(|&p| i64::from(p)).sum();
        i64::from(cfg.nframes) - i64::from(self.left)
            == i64::from(self.rcvd) + i64::from(self.dropped) + pending
    }

    /// NoLeak: every skb in use is reached from a holder or a defer list,
    /// directly or on a frag list of one (Reach(Rooted, 1): lists are
    /// flat).
    pub fn no_leak(&self, cfg: &Config) -> bool {
        let mut reach: Vec<bool> = cfg
            .skbs()
            .map(|s| self.held[si(s)] > 0 || self.defer.iter().any(|q| q.contains(&s)))
            .collect();
        let rooted: Vec<u8> = cfg.skbs().filter(|&s| reach[si(s)]).collect();
        for p in rooted {
            for x in self.chain(p) {
                reach[si(x)] = true;
            }
        }
        self.live().all(|s| reach[si(s)])
    }

    /// The first of the invariants `names` that this state violates, in
    /// the order given. Panics on a name the spec has no invariant for.
    pub fn violated<S: AsRef<str>>(&self, cfg: &Config, names: &[S]) -> Option<&'static str> {
        names.iter().find_map(|name| {
            let (n, holds) = invariant(name.as_ref())
                .unwrap_or_else(|| panic!("NapiSkbCache.tla has no invariant {}", name.as_ref()));
            (!holds(self, cfg)).then_some(n)
        })
    }

    /// Every invariant this state violates, in INVARIANTS' order.
    pub fn violations(&self, cfg: &Config) -> Vec<&'static str> {
        INVARIANTS
            .iter()
            .filter(|(_, holds)| !holds(self, cfg))
            .map(|(n, _)| *n)
            .collect()
    }
}
