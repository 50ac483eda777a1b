//! specs/NapiSkbCache.tla as Rust: the per-CPU NAPI skb cache, the defer
//! lists and tun's batched allocation, each spec action a method of
//! State with the same name in snake_case (napi.rs: net_rx_action,
//! napi_complete, napi_build_skb, napi_consume_skb; free.rs:
//! skb_attempt_defer_free, kfree_skb; tun.rs: tun_sendmsg, tun_xdp_one,
//! tun_sendmsg_end; clone.rs: skb_get, skb_gro_receive_list, pskb_copy),
//! the spec's operators in heap.rs (free_list, release_all, cache_put,
//! cache_get, cache_get_bulk, refill, napi_kfree, napi_consume,
//! slab_free).
//!
//! The API the simulator builds on:
//!
//! ```text
//! Config                       the spec's CONSTANTS (pub fields; Config::small(),
//!                              ::kernel(); Config::from_cfg_file(path))
//! State::init(&Config) -> State
//! State::enabled(&self, &Config) -> Vec<Action>
//! State::step(&self, &Config, &Action) -> Option<State>
//!                              None when the action is not enabled
//! State::violated(&self, &Config, names) -> Option<&'static str>
//! tla::state_record / tla::state_conjunction
//!                              the state as TLC prints it
//! ```
//!
//! CPUs are 1..NCpu and skbs 1..NSkb as in the spec (0: none); per-CPU
//! vectors are indexed by `c - 1`, per-skb ones by `s - 1` (state::ci,
//! state::si). The liveness property DeferDrains is TLC's: the model
//! checks the spec's safety part.

mod action;
mod cfg_file;
mod clone;
mod config;
pub mod cost;
mod free;
mod heap;
mod invariants;
mod napi;
mod next;
mod state;
#[cfg(test)]
mod tests;
pub mod tla;
mod tun;

pub use action::{Action, XdpVerdict};
pub use cfg_file::ModelCfg;
pub use config::{Config, Mutant, Path, UnknownMutant};
pub use cost::{counted, Costs};
pub use invariants::{invariant, Invariant, INVARIANTS};
pub use state::{ci, si, Access, Cpu, Ctx, Skb, State, Touch};

crate::explore::plain_spec!("NapiSkbCache.tla");
