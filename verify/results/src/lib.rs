//! ringlab's result documents as typed serde types, one versioned schema
//! (`ringlab_model::schema::SCHEMA`): `ringlab verify` writes a
//! [`VerifyDoc`] (target/ringlab/verify.json), and the report reads the
//! same type. The sections other crates own are their types:
//! `ringlab_tlc::check::ModelResult`, `ringlab_kernel::diff_doc::DiffDoc`,
//! `ringlab_kernel::kernel_test::KernelDoc`; bench.json is
//! `ringlab_bench::BenchDoc`. docs/src/results.md describes every field.

pub mod mutants;
pub mod mutation;
pub mod proofs;
pub mod verify;

pub use mutants::{CheckRun, Kill, MutantDoc, MutantResult};
pub use mutation::{MutationDoc, MutationRun, Score, Verdict};
pub use proofs::ProofDoc;
pub use verify::{DiffSection, IouringDiff, KernelSection, VerifyDoc};
