//! `ringlab`'s subcommands, one file each.

pub mod args;
pub mod bench;
pub mod check;
pub mod check_distributed;
pub mod chain;
pub mod rx_chain;
pub mod diff;
pub mod diff_kernels;
pub mod faults;
pub mod kernel_test;
pub mod mutants;
pub mod mutate;
pub mod probe;
pub mod prove;
pub mod report;
pub mod repro;
pub mod sim;
pub mod verify;
