//! The AF_PACKET side of the live benchmark: a SOCK_RAW packet socket bound
//! to the same veth end, with PACKET_QDISC_BYPASS (so its frames go to the
//! driver directly, as copy-mode AF_XDP's do), sending the same 64-byte
//! frame with sendmmsg in batches.

use std::io;
use std::time::{Duration, Instant};

use ringlab_kernel::sys::check;

/// `PACKET_QDISC_BYPASS` (uapi linux/if_packet.h).
const PACKET_QDISC_BYPASS: libc::c_int = 20;

pub struct PacketSender {
    fd: libc::c_int,
    sa: libc::sockaddr_ll,
    batch: usize,
}

impl PacketSender {
    pub fn new(ifindex: u32, batch: usize) -> io::Result<PacketSender> {
        // Safety: plain socket(2); protocol 0: this socket receives nothing.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        check(fd as libc::c_long, "socket(AF_PACKET)")?;
        // Safety: a zeroed sockaddr_ll is valid; then filled.
        let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sa.sll_family = libc::AF_PACKET as u16;
        sa.sll_ifindex = ifindex as i32;
        sa.sll_halen = 6;
        let s = PacketSender { fd, sa, batch };
        let one: libc::c_int = 1;
        ringlab_kernel::sys::setsockopt(fd, libc::SOL_PACKET, PACKET_QDISC_BYPASS, &one, "PACKET_QDISC_BYPASS")?;
        // Safety: sa is a sockaddr_ll of the size passed.
        let r = unsafe {
            libc::bind(
                fd,
                &s.sa as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        check(r as libc::c_long, "bind(AF_PACKET)")?;
        Ok(s)
    }

    /// A batch of messages, each naming the peer and the one `iov`, which
    /// must outlive them.
    fn msgs(&mut self, iov: &mut libc::iovec) -> Vec<libc::mmsghdr> {
        // Safety: zeroed mmsghdrs are valid; each then names the address and the one iovec.
        let mut msgs: Vec<libc::mmsghdr> = (0..self.batch).map(|_| unsafe { std::mem::zeroed() }).collect();
        for m in &mut msgs {
            m.msg_hdr.msg_name = &mut self.sa as *mut libc::sockaddr_ll as *mut libc::c_void;
            m.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as u32;
            m.msg_hdr.msg_iov = iov;
            m.msg_hdr.msg_iovlen = 1;
        }
        msgs
    }

    /// One sendmmsg of `msgs`: the frames the kernel took, 0 when it had
    /// no room (EAGAIN, ENOBUFS) or the call was interrupted.
    fn sendmmsg(&self, msgs: &mut [libc::mmsghdr]) -> io::Result<u64> {
        // Safety: msgs, their iovec and the address outlive the call.
        let r = unsafe { libc::sendmmsg(self.fd, msgs.as_mut_ptr(), msgs.len() as u32, 0) };
        if r >= 0 {
            return Ok(r as u64);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::ENOBUFS) | Some(libc::EINTR) => Ok(0),
            _ => Err(io::Error::new(e.kind(), format!("sendmmsg(AF_PACKET): {e}"))),
        }
    }

    /// Sends for `dur`: frames the kernel took per second, and per call.
    pub fn run(&mut self, frame: &[u8], dur: Duration) -> io::Result<(f64, f64)> {
        let mut iov = libc::iovec { iov_base: frame.as_ptr() as *mut libc::c_void, iov_len: frame.len() };
        let mut msgs = self.msgs(&mut iov);
        let t0 = Instant::now();
        let (mut sent, mut calls) = (0u64, 0u64);
        while t0.elapsed() < dur {
            calls += 1;
            sent += self.sendmmsg(&mut msgs)?;
        }
        Ok((sent as f64 / t0.elapsed().as_secs_f64(), sent as f64 / calls.max(1) as f64))
    }
}

impl PacketSender {
    /// Sends exactly `n` copies of `frame`, a batch a sendmmsg: the time
    /// taken and the calls made.
    pub fn send_exact(&mut self, frame: &[u8], n: u64) -> io::Result<(Duration, u64)> {
        let mut iov = libc::iovec { iov_base: frame.as_ptr() as *mut libc::c_void, iov_len: frame.len() };
        let mut msgs = self.msgs(&mut iov);
        let t0 = Instant::now();
        let (mut sent, mut calls) = (0u64, 0u64);
        while sent < n {
            calls += 1;
            let k = (n - sent).min(msgs.len() as u64) as u32;
            sent += self.sendmmsg(&mut msgs[..k as usize])?;
        }
        Ok((t0.elapsed(), calls))
    }
}

impl Drop for PacketSender {
    fn drop(&mut self) {
        // Safety: our socket.
        unsafe { libc::close(self.fd) };
    }
}
