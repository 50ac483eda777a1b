//! The NAPI skb cache as a protocol of the harness: [`NapiSkbCache`]
//! stepped one action of specs/NapiSkbCache.tla at a time, the concrete
//! checks and every spec invariant after each (see [`super::invariants`]),
//! then drained: tun's batches finished, every frame built, every held
//! skb freed, every poll completed and every defer list flushed, after
//! which every head is back in the slab or one cache.

use std::collections::BTreeMap;

use ringlab_model::napi_cache::{self as model, Action, Ctx, XdpVerdict};
use ringlab_model::rng::Rng;
use ringlab_ring::sync::Ordering::Relaxed;
use serde::Serialize;

use super::config::NapiCacheConfig;
use super::invariants;
use super::net::TunPath;
use super::system::NapiSkbCache;
use crate::harness::{Protocol, Stats, Violation};
use crate::Disabled;

/// The trace header's name of this protocol.
pub const NAME: &str = "napi_cache";

/// Drain steps at most: a few for each frame and each skb.
const DRAIN_BOUND: u64 = 100_000;

/// What a clean run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    pub steps: u64,
    /// Invariant checks made (each covers every invariant).
    pub checks: u64,
    /// Steps of each action.
    pub actions: BTreeMap<&'static str, u64>,
    /// Frames delivered as skbs, dropped.
    pub rcvd: u32,
    pub dropped: u32,
    /// Slab calls: kmem_cache_alloc, _alloc_bulk, _free, _free_bulk.
    pub slab_calls: [u32; 4],
    /// Heads the caches handed out.
    pub cache_hits: u32,
    /// Defer lists flushed with skbs on them; IPIs sent.
    pub flushes: u32,
    pub kicks: u32,
}

impl Protocol for NapiSkbCache {
    const NAME: &'static str = NAME;
    type Config = NapiCacheConfig;
    type Action = Action;
    type Spec = model::State;
    type Report = Report;

    fn new(cfg: NapiCacheConfig) -> Result<Self, String> {
        NapiSkbCache::new(cfg)
    }
    fn config(&self) -> &NapiCacheConfig {
        &self.cfg
    }
    fn seed(&self) -> u64 {
        self.cfg.seed
    }
    fn name(a: &Action) -> &'static str {
        a.name()
    }
    fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        NapiSkbCache::pick(self, rng)
    }
    fn step(&mut self, a: &Action) -> Result<(), Disabled> {
        NapiSkbCache::step(self, a)
    }

    /// What only the concrete state shows, then the spec's invariants.
    fn check(&self) -> Result<(), Violation> {
        invariants::concrete(self)?;
        invariants::check(self).map(|_| ())
    }

    /// The next step towards nothing in flight: a batch's frames passed
    /// and its end, the frames left built on CPU 1 in a poll, held skbs
    /// freed, polls completed, defer lists flushed by a poll; None once
    /// there.
    fn drain(&mut self, _: &mut Rng) -> Result<Option<Action>, String> {
        if self.drained >= DRAIN_BOUND {
            return Err(format!("the drain took {DRAIN_BOUND} steps and is not done"));
        }
        self.drained += 1;
        let st = self.model_state();
        let spec = &self.cfg.spec;
        let ci = |c: u8| usize::from(c) - 1;
        if let Some(c) = spec.cpus().find(|&c| st.ctx[ci(c)] == Ctx::Tun) {
            if st.pending[ci(c)] == 0 {
                return Ok(Some(Action::TunSendmsgEnd { c }));
            }
            let verdict = if self.net.shape.path == TunPath::Slab {
                XdpVerdict::PassSlab { fail: false }
            } else if st.heads[ci(c)].is_empty() {
                XdpVerdict::Drop
            } else {
                XdpVerdict::PassHead
            };
            return Ok(Some(Action::TunXdpOne { c, verdict }));
        }
        if st.left > 0 {
            return Ok(Some(match st.ctx[0] {
                Ctx::Napi => Action::NapiBuildSkb { c: 1, fail: false },
                _ => Action::NetRxAction { c: 1 },
            }));
        }
        if let Some(s) = spec.skbs().find(|&s| st.held[usize::from(s) - 1] > 0) {
            return Ok(Some(Action::KfreeSkb { s }));
        }
        if let Some(c) = spec.cpus().find(|&c| st.ctx[ci(c)] == Ctx::Napi) {
            return Ok(Some(Action::NapiComplete { c }));
        }
        if let Some(c) = spec.cpus().find(|&c| !st.defer[ci(c)].is_empty()) {
            return Ok(Some(Action::NetRxAction { c }));
        }
        Ok(None)
    }

    fn quiescent(&self) -> Result<(), String> {
        invariants::quiescent(self)
    }

    fn project(&self) -> model::State {
        self.model_state()
    }

    fn report(&self, stats: &Stats) -> Report {
        let net = &self.net;
        let calls = &net.slab.calls;
        Report {
            seed: self.cfg.seed,
            steps: stats.steps,
            checks: stats.checks,
            actions: stats.actions.clone(),
            rcvd: net.frames.rcvd(),
            dropped: net.frames.dropped(),
            slab_calls: [
                calls.alloc.load(Relaxed),
                calls.alloc_bulk.load(Relaxed),
                calls.free.load(Relaxed),
                calls.free_bulk.load(Relaxed),
            ],
            cache_hits: net.counters.cache_hits.load(Relaxed),
            flushes: net.counters.flushes.load(Relaxed),
            kicks: net.counters.kicks.load(Relaxed),
        }
    }
}
