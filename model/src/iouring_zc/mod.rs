//! specs/IoUringZcNotif.tla as Rust: io_uring zero-copy send
//! (IORING_OP_SEND_ZC) and its notifications (linux 6.12.117), each spec
//! action a method of State with the same name in snake_case (user.rs:
//! user_submit, io_uring_enter, user_reap, user_reuse,
//! io_uring_unregister_buffers; submit.rs: io_send_zc_prep, io_send_zc,
//! io_poll_retry; complete.rs: io_submit_flush_completions,
//! io_run_task_work, io_cqring_overflow_flush; stack.rs: skb_free, done),
//! the spec's operators beside them (notif.rs: put, release, dropped;
//! post.rs: post_all, chain; submit.rs: linkable, queue, choices).
//!
//! The API the simulator builds on:
//!
//! ```text
//! Config                       the spec's CONSTANTS (pub fields; Config::zc_notif(),
//!                              ::batch1(); Config::from_cfg_file(path))
//! Config::reqs(), skb_ids()    Reqs and SkbIds, 1 .. NReqs and 1 .. MaxSkbs
//! State::init(&Config) -> State
//! State::enabled(&self, &Config) -> Vec<Action>
//!                              every enabled action instance, in a fixed order
//! State::step(&self, &Config, &Action) -> Option<State>
//!                              None when the action is not enabled
//! State::violated(&self, &Config, names) -> Option<&'static str>
//!                              the first of `names` the state violates
//! State::notif_once(&self, &Config) -> bool, ... one per invariant
//! tla::state_record / tla::state_conjunction
//!                              the state as TLC prints it
//! ```
//!
//! Requests and skbs keep the spec's numbers (from 1); per-request and
//! per-skb vectors are indexed by the number less one. An skb's uarg 0 is
//! NoSkb. Reference counts, which mutants drive below zero, are i64.

mod action;
mod cfg_file;
mod complete;
mod config;
mod invariants;
mod next;
mod notif;
mod post;
mod stack;
mod state;
mod submit;
#[cfg(test)]
mod tests;
pub mod tla;
mod user;

pub use action::{Action, PrepOutcome, SendOutcome};
pub use cfg_file::ModelCfg;
pub use config::{Config, Fail, Mutant, Reuse, UnknownMutant};
pub use invariants::{invariant, Invariant, INVARIANTS};
pub use notif::{dropped, put};
pub use post::chain;
pub use state::{members, Cqe, Got, Holder, NdState, Notif, Req, Skb, SkbId, St, State};
pub use submit::{EFAULT, EINVAL, ENOMEM, EPIPE};

crate::explore::plain_spec!("IoUringZcNotif.tla");
