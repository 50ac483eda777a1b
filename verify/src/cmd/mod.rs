//! Subcommands of `ringlab`.

pub mod diff;
pub mod sim;
