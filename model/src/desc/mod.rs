//! The kernel's check of a TX descriptor (xp_validate_desc, 6.12.117) in
//! both umem modes, written once over a [`Word`] so that the model and the
//! simulator run it on u64 and ringlab-prove proves it on bit-vectors;
//! the pools xdp_umem_reg() accepts; the switchable mutants of the check;
//! and the boundary descriptors the live diff always sends.

mod grid;
mod mutant;
mod pool;
mod reg;
mod validate;
mod word;

#[cfg(test)]
mod tests;

pub use grid::{boundary_grid, boundary_grid_unaligned, Boundary};
pub use mutant::Mutant;
pub use pool::{Desc, Pages, Pool, PAGE_SIZE};
pub use reg::{RegError, UmemReg, XDP_UMEM_MIN_CHUNK_SIZE};
pub use validate::{
    xp_aligned_validate_desc, xp_desc_crosses_non_contig_pg, xp_unaligned_add_offset_to_addr,
    xp_unaligned_validate_desc, xp_unused_options_set, xp_validate_desc, xp_validate_desc_as,
    XDP_PKT_CONTD, XDP_TX_METADATA, XSK_UNALIGNED_BUF_ADDR_MASK, XSK_UNALIGNED_BUF_OFFSET_SHIFT,
};
pub use word::{Logic, Word};
