//! poll(2) on an AF_XDP socket and XDP_STATISTICS read with a chosen
//! optlen: the calls behind Op::Poll, Op::PollRx and Op::StatsLen.

use std::io;

use crate::sys::{check, SOL_XDP, XDP_STATISTICS};

/// The events asked for: POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM.
const EVENTS: libc::c_short = libc::POLLIN | libc::POLLRDNORM | libc::POLLOUT | libc::POLLWRNORM;

/// One poll(2) of `fd` with timeout 0: the revents.
pub fn poll_once(fd: libc::c_int) -> io::Result<u32> {
    let mut p = libc::pollfd { fd, events: EVENTS, revents: 0 };
    // Safety: one pollfd.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    check(r as libc::c_long, "poll")?;
    Ok(p.revents as u16 as u32)
}

/// getsockopt(XDP_STATISTICS) with optlen `len` (into a buffer with room
/// to spare): the u64 words of the optlen it returns, or the errno.
pub fn stats_len(fd: libc::c_int, len: u32) -> Result<Vec<u64>, i32> {
    let mut buf = vec![0u64; len as usize / 8 + 8];
    let mut optlen = len as libc::socklen_t;
    // Safety: buf has more than len bytes.
    let r =
        unsafe { libc::getsockopt(fd, SOL_XDP, XDP_STATISTICS, buf.as_mut_ptr() as *mut libc::c_void, &mut optlen) };
    if r < 0 {
        return Err(io::Error::last_os_error().raw_os_error().unwrap_or(0));
    }
    buf.truncate(optlen as usize / 8);
    Ok(buf)
}
