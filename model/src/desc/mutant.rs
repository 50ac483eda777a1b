//! Deliberately wrong versions of the checks, each a switch in the one
//! implementation (validate.rs). ringlab-prove refutes each of them; the
//! switch `mutant-diff-straddle` builds [`Mutant::NoStraddle`] into the
//! model so that `ringlab diff` must catch it on the live kernel, and
//! `mutant-diff-offset-unmasked` [`Mutant::OffsetUnmasked`], which only
//! `ringlab diff --boundary`'s unaligned umems reach.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutant {
    None,
    /// Aligned: the chunk-end test dropped (a packet may run into the next
    /// chunk).
    NoStraddle,
    /// Aligned: `offset + len + tx_metadata_len >= chunk_size` rejects,
    /// so a packet may not end exactly at its chunk's end.
    ChunkEndExclusive,
    /// Aligned: `offset + len + tx_metadata_len` computed in u32.
    SumU32,
    /// Aligned: `addr > pool->addrs_cnt` rejects, so addr may equal the
    /// umem size.
    UmemEndInclusive,
    /// Unaligned: the offset in bits 48..63 added without masking it off
    /// the address.
    OffsetUnmasked,
}

impl Mutant {
    pub const ALL: [Mutant; 6] = [
        Mutant::None,
        Mutant::NoStraddle,
        Mutant::ChunkEndExclusive,
        Mutant::SumU32,
        Mutant::UmemEndInclusive,
        Mutant::OffsetUnmasked,
    ];

    /// The one the model runs with: as the run's mutant switch says.
    pub fn built() -> Mutant {
        if ringlab_mutant::on("mutant-diff-straddle") {
            Mutant::NoStraddle
        } else if ringlab_mutant::on("mutant-diff-offset-unmasked") {
            Mutant::OffsetUnmasked
        } else {
            Mutant::None
        }
    }

    /// The mutation campaign's id (specs/manifest.json) of the feature
    /// that builds it in, if one does.
    pub fn campaign_id(self) -> Option<&'static str> {
        match self {
            Mutant::NoStraddle => Some("diff-straddle"),
            Mutant::OffsetUnmasked => Some("diff-offset-unmasked"),
            _ => None,
        }
    }
}
