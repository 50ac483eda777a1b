//! A network namespace of our own with one veth pair in it, removed on drop,
//! on panic (drop runs while unwinding) and on SIGINT and SIGTERM (see
//! [`interrupt`]).
//! Deleting the namespace deletes the veth and detaches any XDP program, so
//! nothing outside it is ever touched.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::interrupt;

static NEXT: AtomicU32 = AtomicU32::new(0);

/// `ip netns add rl<pid>n<k>` with `rl<pid>n<k>a` <-> `rl<pid>n<k>b` inside.
#[derive(Debug)]
pub struct Sandbox {
    pub netns: String,
    /// The transmitting end (the TX socket binds here; AF_PACKET injects here).
    pub a: String,
    /// The receiving end (the XDP program and the RX socket).
    pub b: String,
}

fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip").args(args).output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

impl Sandbox {
    pub fn new() -> io::Result<Sandbox> {
        let k = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = format!("rl{}n{k}", std::process::id());
        let sb = Sandbox {
            netns: base.clone(),
            a: format!("{base}a"),
            b: format!("{base}b"),
        };
        interrupt::install()?;
        ip(&["netns", "add", &sb.netns])?;
        interrupt::register(&sb.netns);
        // From here on Drop removes the namespace, also when a step fails.
        let ns = sb.netns.as_str();
        // IPv6 off before the veth exists: no router solicitations or MLD
        // reports on the wire (test_xsk.sh does the same).
        let out = Command::new("ip")
            .args(["netns", "exec", ns, "sysctl", "-qw"])
            .args(["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"])
            .output()?;
        if !out.status.success() {
            eprintln!("ringlab: note: could not disable IPv6 in {ns}: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        ip(&["-n", ns, "link", "add", &sb.a, "type", "veth", "peer", "name", &sb.b])?;
        ip(&["-n", ns, "link", "set", &sb.a, "up"])?;
        ip(&["-n", ns, "link", "set", &sb.b, "up"])?;
        Ok(sb)
    }

    /// Moves the calling thread into the namespace (setns(2) acts per
    /// thread), so its sockets, ifindex lookups and netlink calls see the veth.
    pub fn enter(&self) -> io::Result<()> {
        let f = File::open(format!("/run/netns/{}", self.netns))?;
        // Safety: a valid namespace fd; CLONE_NEWNET checks its type.
        let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
        crate::sys::check(r as libc::c_long, "setns").map(|_| ())
    }

    /// The ifindex of `name` in the namespace the calling thread is in.
    pub fn ifindex(name: &str) -> io::Result<u32> {
        let c = std::ffi::CString::new(name).unwrap();
        // Safety: a NUL-terminated string.
        match unsafe { libc::if_nametoindex(c.as_ptr()) } {
            0 => Err(io::Error::other(format!("no interface {name} here"))),
            i => Ok(i),
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Err(e) = ip(&["netns", "del", &self.netns]) {
            eprintln!("ringlab: could not remove netns {}: {e}", self.netns);
        }
        interrupt::unregister(&self.netns);
    }
}
