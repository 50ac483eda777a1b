//! specs/DevmemTokens.tla as Rust: devmem TCP receive token accounting in
//! xarray mode (linux 6.12.117) and array/uref mode (seed 004), each spec
//! action a method of State with the same name in snake_case (bind.rs:
//! bind_rx, unbind; rx.rs: rx_frag, recv_msg; dontneed.rs: dontneed,
//! dontneed_read, dontneed_put; close.rs: close, done).
//!
//! The API the simulator builds on:
//!
//! ```text
//! Config                       the spec's CONSTANTS (pub fields; Config::xarray(),
//!                              ::array(), ::modes(); Config::from_cfg_file(path))
//! Config::socks(), niovs()     Socks and Niovs in TLC's order
//! Config::sock_index(s),       where a socket / net_iov sits in State's vectors
//!        niov_index(n)
//! State::init(&Config) -> State
//! State::enabled(&self, &Config) -> Vec<Action>
//!                              every enabled action instance, in a fixed order
//! State::step(&self, &Config, &Action) -> Option<State>
//!                              None when the action is not enabled
//! State::violated(&self, &Config, names) -> Option<&'static str>
//!                              the first of `names` the state violates
//! State::refs_accounted(&self, &Config) -> bool, ... one per invariant
//! tla::state_record / tla::state_conjunction
//!                              the state as TLC prints it
//! ```
//!
//! Sockets and net_iovs are the spec's tuples `<<b, i>>` (Sock, Niov), a
//! binding its position in Config::bindings. Counters that mutants drive
//! below zero (ppref, uref) are i64. NoNiov is `None` in `xa`, NoTok
//! `None` in `pend`.

mod action;
mod bind;
mod cfg_file;
mod close;
mod config;
mod dontneed;
mod invariants;
mod life;
mod next;
mod rx;
mod state;
#[cfg(test)]
mod tests;
pub mod tla;

pub use action::Action;
pub use cfg_file::ModelCfg;
pub use config::{Config, Mode, Mutant, UnknownMutant};
pub use invariants::{invariant, Invariant, INVARIANTS};
pub use state::{Binding, Bst, Dev, Life, Mp, Niov, Skb, Sock, State, Stolen, Tok};

crate::explore::plain_spec!("DevmemTokens.tla", checked: &INVARIANTS[1..]);
