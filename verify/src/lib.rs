//! The `ringlab` command's library: its subcommands, the mutation
//! campaign's runner and the tables it prints.

pub mod cmd;
pub mod mutants;
pub mod table;
pub mod test_bins;
