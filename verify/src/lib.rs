//! The `ringlab` command's library: the mutation campaign's runner and the
//! subcommands that are more than a call into another crate.

pub mod cmd;
pub mod mutants;
