//! The two send(2) modes the seed compared against: a plain copying send
//! loop (its "msg_zerocopy (non-zc)") and MSG_ZEROCOPY on a socket with
//! SO_ZEROCOPY, its completions reaped from the error queue (its
//! "msg_zerocopy (zc)", the selftest's `-z`).

use std::collections::HashMap;
use std::io;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::iouring_net::set_zerocopy;
use super::iouring_pool::{Pool, Run, SLOTS};

/// How many sends between two looks at the clock.
const CLOCK_EVERY: u32 = 32;
/// How long a completion may take before the run is called broken.
const DRAIN: Duration = Duration::from_secs(2);
/// include/uapi/linux/errqueue.h.
const SO_EE_ORIGIN_ZEROCOPY: u8 = 5;
const SO_EE_CODE_ZEROCOPY_COPIED: u8 = 1;

/// One send(2) of `len` bytes at `buf`: Ok(true) sent in full, Ok(false)
/// ENOBUFS (no room for the zero-copy state until completions are reaped).
fn send(fd: i32, buf: *const u8, len: usize, flags: i32) -> Result<bool, String> {
    loop {
        // Safety: buf points at len bytes of the pool.
        let n = unsafe { libc::send(fd, buf as *const _, len, flags) };
        if n == len as isize {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            _ if n >= 0 => return Err(format!("send(2) sent {n} of {len} bytes")),
            Some(libc::EINTR) => continue,
            Some(libc::ENOBUFS) => return Ok(false),
            _ => return Err(format!("send(2) of {len} bytes: {e}")),
        }
    }
}

/// The copying send loop: one buffer, reused at once (the kernel copied it).
pub fn plain(s: &UdpSocket, payload: usize, run: Duration) -> Result<Run, String> {
    let mut pool = Pool::new(payload);
    let (_, buf) = pool.take().expect("a new pool has free slots");
    let fd = s.as_raw_fd();
    let mut r = Run::default();
    let start = Instant::now();
    while start.elapsed() < run {
        for _ in 0..CLOCK_EVERY {
            r.calls += 1;
            if send(fd, buf, payload, 0)? {
                r.requests += 1;
            }
        }
    }
    r.elapsed = start.elapsed();
    Ok(r)
}

/// The zero-copy sender's bookkeeping: which slot each send id lent.
struct Zc {
    fd: i32,
    pool: Pool,
    /// Send id (the socket's sk_zckey, counted from 0) to its buffer slot.
    lent: HashMap<u32, usize>,
    next_id: u32,
}

impl Zc {
    /// Reads every completion queued on the error queue; with `wait`, first
    /// waits (up to DRAIN) for one to arrive.
    fn reap(&mut self, r: &mut Run, wait: bool) -> Result<(), String> {
        if wait {
            let mut p = libc::pollfd { fd: self.fd, events: 0, revents: 0 };
            r.calls += 1;
            // Safety: one pollfd. POLLERR is reported whatever `events` asks.
            let n = unsafe { libc::poll(&mut p, 1, DRAIN.as_millis() as i32) };
            if n == 0 {
                return Err(format!("no MSG_ZEROCOPY completion within {DRAIN:?} ({} sends in flight)", self.pool.in_flight()));
            }
        }
        loop {
            let mut control = [0u64; 16];
            // Safety: msghdr is plain data; all zero is valid.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_control = control.as_mut_ptr() as *mut _;
            msg.msg_controllen = std::mem::size_of_val(&control);
            r.calls += 1;
            // Safety: msg points at our control buffer and no data buffers.
            let n = unsafe { libc::recvmsg(self.fd, &mut msg, libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT) };
            if n < 0 {
                let e = io::Error::last_os_error();
                return match e.raw_os_error() {
                    Some(libc::EAGAIN) => Ok(()),
                    Some(libc::EINTR) => continue,
                    _ => Err(format!("recvmsg(MSG_ERRQUEUE): {e}")),
                };
            }
            // Safety: recvmsg filled msg_control with msg_controllen bytes.
            let cm = unsafe { libc::CMSG_FIRSTHDR(&msg) };
            if cm.is_null() {
                return Err("recvmsg(MSG_ERRQUEUE) returned no control message".into());
            }
            // Safety: cm is a control message inside our buffer.
            let (level, ty) = unsafe { ((*cm).cmsg_level, (*cm).cmsg_type) };
            if level != libc::SOL_IP || ty != libc::IP_RECVERR {
                return Err(format!("an error-queue message of level {level} type {ty}, not IP_RECVERR"));
            }
            // Safety: an IP_RECVERR message carries a sock_extended_err.
            let ee: libc::sock_extended_err = unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(cm) as *const _) };
            if ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY {
                return Err(format!("an error-queue message of origin {} (errno {}), not a zero-copy completion", ee.ee_origin, ee.ee_errno));
            }
            // [ee_info, ee_data]: a range of send ids, merged by the kernel.
            let mut id = ee.ee_info;
            loop {
                let slot = self.lent.remove(&id).ok_or_else(|| format!("a completion for send id {id}, never sent"))?;
                self.pool.give_back(slot)?;
                r.zc_done += 1;
                if ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED != 0 {
                    r.zc_copied += 1;
                }
                if id == ee.ee_data {
                    break;
                }
                id = id.wrapping_add(1);
            }
        }
    }
}

/// MSG_ZEROCOPY sends from a pool of SLOTS buffers, each reused only after
/// its completion; completions are read once half the pool is lent, and
/// waited for when all of it is.
pub fn msg_zerocopy(s: &UdpSocket, payload: usize, run: Duration) -> Result<Run, String> {
    set_zerocopy(s)?;
    let mut z = Zc { fd: s.as_raw_fd(), pool: Pool::new(payload), lent: HashMap::new(), next_id: 0 };
    let mut r = Run::default();
    let start = Instant::now();
    while start.elapsed() < run {
        for _ in 0..CLOCK_EVERY {
            if z.pool.free() == 0 {
                z.reap(&mut r, true)?;
            }
            let (slot, buf) = z.pool.take().expect("a free slot");
            r.calls += 1;
            if send(z.fd, buf, payload, libc::MSG_ZEROCOPY)? {
                r.requests += 1;
                z.lent.insert(z.next_id, slot);
                z.next_id = z.next_id.wrapping_add(1);
            } else {
                z.pool.give_back(slot)?;
                z.reap(&mut r, z.pool.in_flight() > 0)?;
            }
            if z.pool.in_flight() >= SLOTS / 2 {
                z.reap(&mut r, false)?;
            }
        }
    }
    while z.pool.in_flight() > 0 {
        z.reap(&mut r, true)?;
    }
    r.elapsed = start.elapsed();
    Ok(r)
}
