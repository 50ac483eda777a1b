//! ringlab: runs the TLC models, the Z3 proofs and the mutation campaign of
//! the xsk ring protocols, and reports: tables, and a static HTML site.

pub mod bench;
pub mod check;
pub mod diff;
pub mod kernel_test;
pub mod manifest;
pub mod mutants;
pub mod prove;
pub mod report;
pub mod sim;
pub mod trace;
pub mod trace_table;
