//! ringlab: runs the TLC models, the Z3 proofs and the mutation campaign of
//! the xsk ring protocols, and reports.

pub mod check;
pub mod manifest;
pub mod mutants;
pub mod prove;
pub mod trace_table;
