//! ringlab's result documents as typed, versioned serde types.
pub mod mutants;
