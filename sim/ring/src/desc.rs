//! The entry of the rx and tx rings (`struct xdp_desc`, uapi if_xdp.h).

/// `struct xdp_desc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct XdpDesc {
    pub addr: u64,
    pub len: u32,
    pub options: u32,
}

impl XdpDesc {
    /// The first test of `xp_aligned_validate_desc()` and
    /// `xp_unaligned_validate_desc()`: a zero-length descriptor is invalid.
    /// The rest needs a umem, which the simulated rings do not have.
    pub fn is_valid(&self) -> bool {
        self.len != 0
    }
}
