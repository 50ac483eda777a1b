//! Subcommands of `ringlab`.

pub mod chain;
pub mod diff;
pub mod sim;
