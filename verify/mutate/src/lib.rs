//! `ringlab mutate`: the automatic mutation campaign.
//!
//! A TLA+ mutator changes the specs one edit at a time (drop a guard's
//! conjunct, flip a comparison, shift a constant by one, skip an
//! UNCHANGED, swap two steps) and runs the spec's CI-tier models on each
//! mutant; cargo-mutants does the same for the Rust crates and their
//! tests. A spec with a Rust reference model also has the tests that hold
//! the two together run on each mutant its models let through
//! (`reference`). A mutant is killed when a check's outcome changes, unviable
//! when it does not even parse or build; every survivor is either killed
//! by a new check or listed, with a reason, in `reviewed.json`. Edits
//! inside the code of ringlab's own named mutants (`named`) are left out.

pub mod named;
pub mod reference;
pub mod reviewed;
pub mod rust_run;
pub mod sample;
pub mod tla;
pub mod tla_run;
