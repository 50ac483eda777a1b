//! The AF_XDP uapi (include/uapi/linux/if_xdp.h) that the libc crate does
//! not carry, and a helper turning a failed syscall into an error.

use std::io;

pub const AF_XDP: libc::c_int = 44;
pub const SOL_XDP: libc::c_int = 283;

// setsockopt/getsockopt names.
pub const XDP_MMAP_OFFSETS: libc::c_int = 1;
pub const XDP_RX_RING: libc::c_int = 2;
pub const XDP_TX_RING: libc::c_int = 3;
pub const XDP_UMEM_REG: libc::c_int = 4;
pub const XDP_UMEM_FILL_RING: libc::c_int = 5;
pub const XDP_UMEM_COMPLETION_RING: libc::c_int = 6;
pub const XDP_STATISTICS: libc::c_int = 7;
/// 6.17 and later (`xs->max_tx_budget`); ENOPROTOOPT before.
pub const XDP_MAX_TX_SKB_BUDGET: libc::c_int = 9;
/// The copy-mode batch series (kernel/patches): 0 (off) ..= 1024;
/// ENOPROTOOPT on kernels without it.
pub const XDP_GENERIC_XMIT_BATCH: libc::c_int = 10;

// sockaddr_xdp.sxdp_flags.
pub const XDP_SHARED_UMEM: u16 = 1 << 0;
pub const XDP_COPY: u16 = 1 << 1;
pub const XDP_USE_NEED_WAKEUP: u16 = 1 << 3;
pub const XDP_USE_SG: u16 = 1 << 4;

// mmap page offsets of the four rings.
pub const XDP_PGOFF_RX_RING: i64 = 0;
pub const XDP_PGOFF_TX_RING: i64 = 0x8000_0000;
pub const XDP_UMEM_PGOFF_FILL_RING: i64 = 0x1_0000_0000;
pub const XDP_UMEM_PGOFF_COMPLETION_RING: i64 = 0x1_8000_0000;

// bpf_xdp_attach flags (uapi if_link.h).
pub const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;

#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct XdpRingOffset {
    pub producer: u64,
    pub consumer: u64,
    pub desc: u64,
    pub flags: u64,
}

#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct XdpMmapOffsets {
    pub rx: XdpRingOffset,
    pub tx: XdpRingOffset,
    pub fr: XdpRingOffset,
    pub cr: XdpRingOffset,
}

/// `struct xdp_umem_reg` with `tx_metadata_len` (6.8+; older kernels take
/// the shorter prefix, and 0 there means the same).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct XdpUmemReg {
    pub addr: u64,
    pub len: u64,
    pub chunk_size: u32,
    pub headroom: u32,
    pub flags: u32,
    pub tx_metadata_len: u32,
}

#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct SockaddrXdp {
    pub family: u16,
    pub flags: u16,
    pub ifindex: u32,
    pub queue_id: u32,
    pub shared_umem_fd: u32,
}

/// `struct xdp_statistics` (the size that has the extra fields, so
/// rx_ring_full is not folded into rx_dropped).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct XdpStatistics {
    pub rx_dropped: u64,
    pub rx_invalid_descs: u64,
    pub tx_invalid_descs: u64,
    pub rx_ring_full: u64,
    pub rx_fill_ring_empty_descs: u64,
    pub tx_ring_empty_descs: u64,
}

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

pub fn getsockopt<T: Default>(fd: libc::c_int, level: libc::c_int, name: libc::c_int, what: &str) -> io::Result<T> {
    let mut val = T::default();
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // Safety: val has room for len bytes.
    let r = unsafe { libc::getsockopt(fd, level, name, &mut val as *mut T as *mut libc::c_void, &mut len) };
    check(r as libc::c_long, what)?;
    Ok(val)
}
