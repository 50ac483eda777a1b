//! What a campaign sets up once: the sandbox, the XDP program on the
//! receiving end, the packet injector. Everything here lives on the thread
//! that entered the namespace.

use std::io;
use std::sync::Arc;

use crate::bpf::{Redirect, XdpProg};
use crate::inject::Injector;
use crate::sandbox::Sandbox;

/// One veth pair of a sandbox as the harness drives it: the XDP program
/// on its receiving end and the packet injector on its transmitting end.
pub struct Lane {
    pub ifindex_a: u32,
    pub ifindex_b: u32,
    pub injector: Injector,
    /// The helper the program redirects with.
    pub redirect: Redirect,
    /// The program, which other lanes of the sandbox may share.
    pub prog: Arc<XdpProg>,
}

impl Lane {
    /// The lane of pair (`a`, `b`) of the namespace the calling thread is
    /// in, with a program of its own.
    pub fn open(a: &str, b: &str, redirect: Redirect) -> io::Result<Lane> {
        let ifindex_b = Sandbox::ifindex(b)?;
        let prog = XdpProg::attach(ifindex_b, redirect)?;
        Lane::with(a, b, redirect, Arc::new(prog))
    }

    /// The lane of pair (`a`, `b`), `prog` being attached to `b` already.
    pub fn with(a: &str, b: &str, redirect: Redirect, prog: Arc<XdpProg>) -> io::Result<Lane> {
        let ifindex_a = Sandbox::ifindex(a)?;
        let ifindex_b = Sandbox::ifindex(b)?;
        let injector = Injector::new(ifindex_a)?;
        Ok(Lane { ifindex_a, ifindex_b, injector, redirect, prog })
    }
}

/// A sandbox of one lane (its fields reached through Deref).
pub struct Env {
    // Dropped before the sandbox: detach, then delete the namespace.
    pub lane: Lane,
    pub sandbox: Sandbox,
}

impl std::ops::Deref for Env {
    type Target = Lane;
    fn deref(&self) -> &Lane {
        &self.lane
    }
}

impl Env {
    /// Builds the sandbox and moves the calling thread into it.
    pub fn new() -> io::Result<Env> {
        Env::with(Redirect::Map)
    }

    /// The same, the program redirecting with `redirect`.
    pub fn with(redirect: Redirect) -> io::Result<Env> {
        let sandbox = Sandbox::new()?;
        sandbox.enter()?;
        let lane = Lane::open(&sandbox.a, &sandbox.b, redirect)?;
        Ok(Env { lane, sandbox })
    }
}

/// Why this process cannot run against the kernel, if it cannot: no
/// root-equivalent capabilities, no AF_XDP, or no network namespaces.
pub fn skip_reason() -> Option<String> {
    // Safety: geteuid never fails.
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root (CAP_NET_ADMIN and CAP_BPF) to create namespaces and load XDP programs".into());
    }
    // Safety: plain socket(2).
    let fd = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Some(format!("no AF_XDP sockets on this kernel: {}", io::Error::last_os_error()));
    }
    // Safety: our fd.
    unsafe { libc::close(fd) };
    if !std::path::Path::new("/proc/self/ns/net").exists() {
        return Some("no network namespaces on this kernel (CONFIG_NET_NS)".into());
    }
    None
}

/// `uname -r`.
pub fn release() -> String {
    // Safety: zeroed utsname is valid for uname to fill.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    unsafe { libc::uname(&mut u) };
    let bytes: Vec<u8> = u.release.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
