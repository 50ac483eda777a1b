//! The AF_XDP uapi: libc's (`xdp_umem_reg`, `sockaddr_xdp`, `XDP_*`, ...)
//! plus the socket options libc does not carry yet; and helpers turning a
//! failed syscall into an error.

use std::io;

pub use libc::{
    sockaddr_xdp, xdp_mmap_offsets, xdp_ring_offset, xdp_statistics, xdp_umem_reg, AF_XDP, SOL_XDP, XDP_COPY,
    XDP_MMAP_OFFSETS, XDP_PGOFF_RX_RING, XDP_PGOFF_TX_RING, XDP_RX_RING, XDP_SHARED_UMEM, XDP_STATISTICS, XDP_TX_RING,
    XDP_UMEM_COMPLETION_RING, XDP_UMEM_FILL_RING, XDP_UMEM_PGOFF_COMPLETION_RING, XDP_UMEM_PGOFF_FILL_RING,
    XDP_UMEM_REG, XDP_USE_NEED_WAKEUP, XDP_USE_SG,
};

// Socket options of include/uapi/linux/if_xdp.h newer than libc's copy.
/// 6.17 and later (`xs->max_tx_budget`); ENOPROTOOPT before.
pub const XDP_MAX_TX_SKB_BUDGET: libc::c_int = 9;
/// The copy-mode batch series (kernel/patches): 0 (off) ..= 1024;
/// ENOPROTOOPT on kernels without it.
pub const XDP_GENERIC_XMIT_BATCH: libc::c_int = 10;

// The simulator's descriptor is the kernel's.
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    use ringlab_ring::XdpDesc;
    assert!(size_of::<XdpDesc>() == size_of::<libc::xdp_desc>());
    assert!(align_of::<XdpDesc>() == align_of::<libc::xdp_desc>());
    assert!(offset_of!(XdpDesc, addr) == offset_of!(libc::xdp_desc, addr));
    assert!(offset_of!(XdpDesc, len) == offset_of!(libc::xdp_desc, len));
    assert!(offset_of!(XdpDesc, options) == offset_of!(libc::xdp_desc, options));
    // The optlens the harness has always passed: XDP_UMEM_REG with
    // tx_metadata_len (6.8+; older kernels read the 24-byte v1 prefix),
    // XDP_STATISTICS with the ring-full and empty counters.
    assert!(size_of::<xdp_umem_reg>() == 32);
    assert!(size_of::<xdp_statistics>() == 48);
};

/// C structs of integers, which getsockopt may fill: every bit pattern,
/// all zeroes included, is a valid value.
///
/// # Safety
/// Only for types with no padding-sensitive invariants, references or enums.
pub unsafe trait Plain: Copy {}
// Safety: integers only.
unsafe impl Plain for [u32; 9] {}
unsafe impl Plain for xdp_mmap_offsets {}
unsafe impl Plain for xdp_statistics {}

/// `Err(errno)` when a syscall returned -1.
pub fn check(ret: libc::c_long, what: &str) -> io::Result<libc::c_long> {
    if ret < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(ret)
    }
}

pub fn setsockopt<T>(fd: libc::c_int, level: libc::c_int, name: libc::c_int, val: &T, what: &str) -> io::Result<()> {
    // Safety: val points at a T of the size passed.
    let r = unsafe {
        libc::setsockopt(fd, level, name, val as *const T as *const libc::c_void, std::mem::size_of::<T>() as u32)
    };
    check(r as libc::c_long, what).map(|_| ())
}

/// getsockopt with optlen `size_of::<T>()`, into a zeroed T.
pub fn getsockopt<T: Plain>(fd: libc::c_int, level: libc::c_int, name: libc::c_int, what: &str) -> io::Result<T> {
    // Safety: all zeroes is a valid T (Plain).
    let mut val: T = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // Safety: val has room for len bytes.
    let r = unsafe { libc::getsockopt(fd, level, name, &mut val as *mut T as *mut libc::c_void, &mut len) };
    check(r as libc::c_long, what)?;
    Ok(val)
}
