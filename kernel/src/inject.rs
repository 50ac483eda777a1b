//! Frames sent from the peer end with AF_PACKET (as xskxceiver's generator
//! would be a second xsk; a packet socket keeps the RX side independent of
//! the TX path under test).

use std::io;

use crate::sys::check;

pub struct Injector {
    fd: libc::c_int,
    ifindex: u32,
}

impl Injector {
    pub fn new(ifindex: u32) -> io::Result<Injector> {
        // Safety: plain socket(2); protocol 0 sends only.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        check(fd as libc::c_long, "socket(AF_PACKET)")?;
        Ok(Injector { fd, ifindex })
    }

    /// One frame, as given (Ethernet header included).
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // Safety: zeroed sockaddr_ll is valid; then filled.
        let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sa.sll_family = libc::AF_PACKET as u16;
        sa.sll_ifindex = self.ifindex as i32;
        sa.sll_halen = 6;
        // Safety: frame and sa are valid for their lengths.
        let r = unsafe {
            libc::sendto(
                self.fd,
                frame.as_ptr() as *const libc::c_void,
                frame.len(),
                0,
                &sa as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        check(r as libc::c_long, "sendto(AF_PACKET)").map(|_| ())
    }
}

impl Drop for Injector {
    fn drop(&mut self) {
        // Safety: our socket.
        unsafe { libc::close(self.fd) };
    }
}
