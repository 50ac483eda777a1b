//! The sockets a scenario sends on: loopback in the harness's namespace,
//! or a veth pair whose far end is moved into a second namespace of the
//! harness's (both are sandboxes, removed on drop), so that the packets
//! cross veth_xmit() rather than the local route.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

use crate::netns;
use crate::sandbox::Sandbox;

use super::scenario::Transport;

const NEAR: &str = "10.77.0.1";
const FAR: &str = "10.77.0.2";

/// The two namespaces; the calling thread is in `near`.
pub struct Net {
    pub near: Sandbox,
    pub far: Sandbox,
}

fn ip(ns: &str, args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip").arg("-n").arg(ns).args(args).output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!("ip -n {ns} {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(())
}

impl Net {
    /// Both namespaces, the veth's far end moved into the second, lo up in
    /// each, and the calling thread moved into the first.
    pub fn new() -> io::Result<Net> {
        let near = Sandbox::new()?;
        let far = Sandbox::new()?;
        ip(&near.netns, &["link", "set", &near.b, "netns", &far.netns])?;
        ip(&near.netns, &["link", "set", "lo", "up"])?;
        ip(&far.netns, &["link", "set", "lo", "up"])?;
        ip(&near.netns, &["addr", "add", &format!("{NEAR}/24"), "dev", &near.a])?;
        ip(&far.netns, &["addr", "add", &format!("{FAR}/24"), "dev", &near.b])?;
        ip(&near.netns, &["link", "set", &near.a, "up"])?;
        ip(&far.netns, &["link", "set", &near.b, "up"])?;
        near.enter()?;
        Ok(Net { near, far })
    }

    /// A connected pair for `t`: the sender here, the receiver in the
    /// namespace `t` puts it in (non-blocking, drained by the driver).
    pub fn pair(&self, t: Transport) -> io::Result<Pair> {
        let (addr, ns) = if t.veth() { (FAR, &self.far.netns) } else { ("127.0.0.1", &self.near.netns) };
        let kind = if t.tcp() { libc::SOCK_STREAM } else { libc::SOCK_DGRAM };
        let ns = ns.clone();
        let addr: std::net::Ipv4Addr = addr.parse().expect("a literal address");
        // The receiving socket is made by a thread inside its namespace.
        let (rx, port) = std::thread::scope(|s| {
            s.spawn(|| -> io::Result<(OwnedFd, u16)> {
                netns::enter(&ns)?;
                let fd = socket(kind)?;
                bind(&fd, addr)?;
                if t.tcp() {
                    check(unsafe { libc::listen(fd.as_raw_fd(), 1) }, "listen")?;
                }
                let port = port_of(&fd)?;
                Ok((fd, port))
            })
            .join()
            .map_err(|_| io::Error::other("the receiver's thread panicked"))?
        })?;
        let tx = socket(kind)?;
        set_int(&tx, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, 8 << 20)?;
        connect(&tx, addr, port)?;
        let rx = if t.tcp() {
            let fd = unsafe { libc::accept4(rx.as_raw_fd(), std::ptr::null_mut(), std::ptr::null_mut(), libc::SOCK_CLOEXEC) };
            check(fd, "accept4")?;
            unsafe { OwnedFd::from_raw_fd(fd) }
        } else {
            rx
        };
        set_int(&rx, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, 8 << 20)?;
        Ok(Pair { tx, rx: Some(rx) })
    }
}

/// A sender and its receiver.
pub struct Pair {
    pub tx: OwnedFd,
    /// None once reset.
    pub rx: Option<OwnedFd>,
}

impl Pair {
    /// Reads whatever the receiver holds, so the stack frees its skbs.
    pub fn drain(&self) {
        let Some(rx) = &self.rx else { return };
        let mut buf = vec![0u8; 1 << 17];
        while unsafe { libc::recv(rx.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) } > 0 {}
    }

    /// The peer closes with SO_LINGER 0 (tcp_disconnect() sends a RST);
    /// returns once the sender has seen it (POLLERR or POLLHUP).
    pub fn reset_peer(&mut self) -> io::Result<()> {
        let Some(rx) = self.rx.take() else { return Ok(()) };
        let l = libc::linger { l_onoff: 1, l_linger: 0 };
        check(
            unsafe { libc::setsockopt(rx.as_raw_fd(), libc::SOL_SOCKET, libc::SO_LINGER, (&l as *const libc::linger).cast(), size_of::<libc::linger>() as u32) },
            "setsockopt(SO_LINGER)",
        )?;
        drop(rx);
        let mut p = libc::pollfd { fd: self.tx.as_raw_fd(), events: 0, revents: 0 };
        let n = unsafe { libc::poll(&mut p, 1, 5000) };
        check(n, "poll")?;
        if p.revents & (libc::POLLERR | libc::POLLHUP) == 0 {
            return Err(io::Error::other("the sender saw no reset within 5 s of the peer's close"));
        }
        Ok(())
    }
}

fn check(r: i32, what: &str) -> io::Result<i32> {
    if r < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(r)
}

fn socket(kind: i32) -> io::Result<OwnedFd> {
    let fd = check(unsafe { libc::socket(libc::AF_INET, kind | libc::SOCK_CLOEXEC, 0) }, "socket")?;
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn sockaddr(addr: std::net::Ipv4Addr, port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as u16,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(addr).to_be() },
        sin_zero: [0; 8],
    }
}

fn bind(fd: &OwnedFd, addr: std::net::Ipv4Addr) -> io::Result<()> {
    let a = sockaddr(addr, 0);
    check(unsafe { libc::bind(fd.as_raw_fd(), (&a as *const libc::sockaddr_in).cast(), size_of::<libc::sockaddr_in>() as u32) }, "bind").map(drop)
}

fn connect(fd: &OwnedFd, addr: std::net::Ipv4Addr, port: u16) -> io::Result<()> {
    let a = sockaddr(addr, port);
    check(unsafe { libc::connect(fd.as_raw_fd(), (&a as *const libc::sockaddr_in).cast(), size_of::<libc::sockaddr_in>() as u32) }, "connect").map(drop)
}

fn port_of(fd: &OwnedFd) -> io::Result<u16> {
    let mut a = sockaddr(std::net::Ipv4Addr::UNSPECIFIED, 0);
    let mut len = size_of::<libc::sockaddr_in>() as u32;
    check(unsafe { libc::getsockname(fd.as_raw_fd(), (&mut a as *mut libc::sockaddr_in).cast(), &mut len) }, "getsockname")?;
    Ok(u16::from_be(a.sin_port))
}

fn set_int(fd: &OwnedFd, level: i32, name: i32, v: i32) -> io::Result<()> {
    check(unsafe { libc::setsockopt(fd.as_raw_fd(), level, name, (&v as *const i32).cast(), 4) }, "setsockopt").map(drop)
}
