//! The per-CPU NAPI skb cache, the deferred-free lists and tun's batched
//! allocation (specs/NapiSkbCache.tla) on real atomics: the slab of skb
//! heads, each CPU's cache (a stack with a count, refilled in bulk and
//! half flushed, its nested-BH lock asserted on every access), each CPU's
//! defer list (a locked list with a count read outside the lock) and the
//! IPI that asks for its flush, skbs with atomic reference counts, frag
//! lists and next links, and tun's batch of heads.
//!
//! Each kernel function is a method of its object or of [`Net`], written
//! to run on any thread (loom sees every atomic and lock);
//! [`NapiSkbCache`] puts them together and exposes each spec action as a
//! method of the same name in snake_case; [`NapiSkbCache::model_state`]
//! maps the whole onto the spec's variables.
//!
//! config.rs: what a run is; slab.rs: the slab; skb.rs: the skbs;
//! cache.rs: a CPU's NAPI cache; defer.rs: a CPU's defer list; tun.rs:
//! tun's batch; cpu.rs: a CPU (BH, context, IPI, the three above);
//! net.rs: the kernel functions over all of them; system.rs: each spec
//! action, guarded; project.rs: the projection to the model;
//! invariants.rs: the checks; pick.rs: how the scheduler draws a step;
//! protocol.rs: the harness's view (the drain, the report); threads.rs:
//! the real-thread runner's threads.

pub mod cache;
pub mod config;
pub mod cpu;
pub mod defer;
pub mod net;
mod project;
pub mod skb;
pub mod slab;
mod system;
pub mod tun;

#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
mod pick;
#[cfg(not(loom))]
pub mod protocol;
#[cfg(not(loom))]
pub mod threads;

pub use cache::{Access, NapiAllocCache};
pub use config::NapiCacheConfig;
pub use net::{Net, Shape, TunPath};
pub use system::NapiSkbCache;
#[cfg(not(loom))]
pub use protocol::{Report, NAME};

pub use crate::{Disabled, Step};

pub use ringlab_model::napi_cache::{Action, Config, Mutant, Path, State, XdpVerdict};

/// The mutant this run puts back, as the spec names it: each napi-* id
/// is `mutant-<id>` of ringlab-mutant.
pub fn mutant() -> Mutant {
    Mutant::ALL
        .into_iter()
        .find(|m| m.feature().is_some_and(ringlab_mutant::on))
        .unwrap_or(Mutant::None)
}
