//! specs/XskRing.tla as Rust: one ring between a producer and a consumer,
//! each spec action a method of State with the same name in snake_case.

mod action;
mod cfg_file;
mod config;
mod consumer;
mod invariants;
mod next;
mod producer;
mod state;
mod tla_state;
mod view;

pub use crate::cfg::CfgError;
pub use action::Action;
pub use cfg_file::ModelCfg;
pub use config::{Barrier, Barriers, Config, Mutant, Side};
pub use invariants::{invariant, Invariant, INVARIANTS};
pub use state::{init_states, Entry, Load, Own, State};
pub use tla_state::{FromTlaError, VARIABLES};
pub use view::VIEWS;
