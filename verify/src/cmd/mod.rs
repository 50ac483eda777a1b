//! `ringlab`'s subcommands, one file each.

pub mod args;
pub mod check;
pub mod diff;
pub mod faults;
pub mod mutants;
pub mod probe;
pub mod prove;
pub mod report;
pub mod sim;
pub mod verify;
