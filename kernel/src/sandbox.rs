//! A network namespace of our own with one veth pair in it, removed on drop,
//! on panic (drop runs while unwinding) and on SIGINT/SIGTERM (see
//! [`interrupt`]). Deleting the namespace deletes the veth and detaches any
//! XDP program, so nothing outside it is ever touched. A run killed outright
//! leaves its namespace behind: the next run removes it ([`sweep`]).

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;
use std::time::Duration;

use crate::rtnl::Rtnl;
use crate::{interrupt, netns};

static NEXT: AtomicU32 = AtomicU32::new(0);
static SWEEP: Once = Once::new();
/// How long a new veth pair may take to come up.
const LINK_UP: Duration = Duration::from_secs(5);

/// Namespace `rl<pid>n<k>` with `rl<pid>n<k>a` <-> `rl<pid>n<k>b` inside,
/// and, made with [`Sandbox::with_pairs`], more pairs `a<j>` <-> `b<j>`.
#[derive(Debug)]
pub struct Sandbox {
    pub netns: String,
    /// The transmitting end (the TX socket binds here; AF_PACKET injects here).
    pub a: String,
    /// The receiving end (the XDP program and the RX socket).
    pub b: String,
    /// Every pair, (a, b) first. Interface names are the namespace's own,
    /// so the pairs after the first need no prefix (IFNAMSIZ is 16).
    pub pairs: Vec<(String, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{call} {}: {source}{}", path.display(), hint(call, source))]
    Syscall {
        call: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("netlink {what}: {source}{}", hint(what, source))]
    Netlink {
        what: String,
        #[source]
        source: io::Error,
    },
    #[error("no interface {0} here")]
    NoInterface(String),
    #[error("{0} not up after {1:?}")]
    NotUp(String, Duration),
    #[error("installing the SIGINT/SIGTERM handler: {0}")]
    Signals(String),
}

/// What an errno of `what` usually means here.
fn hint(what: &str, e: &io::Error) -> &'static str {
    match e.raw_os_error() {
        Some(libc::EPERM) => " (needs root: CAP_SYS_ADMIN and CAP_NET_ADMIN)",
        Some(libc::EOPNOTSUPP) if what.contains("veth") => " (no veth in this kernel? CONFIG_VETH)",
        Some(libc::EINVAL) if what.starts_with("unshare") => " (no network namespaces in this kernel? CONFIG_NET_NS)",
        _ => "",
    }
}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        let kind = match &e {
            Error::Syscall { source, .. } | Error::Netlink { source, .. } => source.kind(),
            Error::NoInterface(_) => io::ErrorKind::NotFound,
            Error::NotUp(..) => io::ErrorKind::TimedOut,
            Error::Signals(_) => io::ErrorKind::Other,
        };
        io::Error::new(kind, e)
    }
}

impl Sandbox {
    pub fn new() -> Result<Sandbox, Error> {
        Sandbox::with_pairs(1)
    }

    /// A sandbox with `n` (at least one) veth pairs, all up.
    pub fn with_pairs(n: usize) -> Result<Sandbox, Error> {
        interrupt::install()?;
        SWEEP.call_once(sweep);
        let k = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = format!("rl{}n{k}", std::process::id());
        interrupt::track(&base, || netns::add(&base))?;
        // From here on Drop removes the namespace, also when a step fails.
        let mut pairs = vec![(format!("{base}a"), format!("{base}b"))];
        pairs.extend((1..n).map(|j| (format!("a{j}"), format!("b{j}"))));
        let sb = Sandbox { netns: base.clone(), a: pairs[0].0.clone(), b: pairs[0].1.clone(), pairs };
        netns::run_in(&sb.netns, || {
            // IPv6 off before the veth exists: no router solicitations or
            // MLD reports on the wire (test_xsk.sh does the same).
            for conf in ["all", "default"] {
                let knob = format!("/proc/sys/net/ipv6/conf/{conf}/disable_ipv6");
                if let Err(e) = std::fs::write(&knob, "1") {
                    eprintln!("ringlab: note: could not disable IPv6 in {}: {knob}: {e}", sb.netns);
                }
            }
            let mut rtnl = Rtnl::open()?;
            for (a, b) in &sb.pairs {
                rtnl.add_veth(a, b)?;
                rtnl.set_up(a)?;
                rtnl.set_up(b)?;
            }
            // Frames injected before the carrier is seen would be lost.
            for (a, b) in &sb.pairs {
                rtnl.wait_up(a, LINK_UP)?;
                rtnl.wait_up(b, LINK_UP)?;
            }
            Ok(())
        })?;
        Ok(sb)
    }

    /// Moves the calling thread into the namespace (setns(2) acts per
    /// thread), so its sockets, ifindex lookups and netlink calls see the veth.
    pub fn enter(&self) -> Result<(), Error> {
        netns::enter(&self.netns)
    }

    /// The ifindex of `name` in the namespace the calling thread is in.
    pub fn ifindex(name: &str) -> Result<u32, Error> {
        let c = std::ffi::CString::new(name).map_err(|_| Error::NoInterface(name.into()))?;
        // Safety: a NUL-terminated string.
        match unsafe { libc::if_nametoindex(c.as_ptr()) } {
            0 => Err(Error::NoInterface(name.into())),
            i => Ok(i),
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Err(e) = interrupt::untrack(&self.netns, || netns::remove(&self.netns)) {
            eprintln!("ringlab: could not remove netns {}: {e}", self.netns);
        }
    }
}

/// The process that created sandbox namespace `name` (`rl<pid>n<k>`).
fn creator(name: &str) -> Option<u32> {
    let (pid, k) = name.strip_prefix("rl")?.split_once('n')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(k)).then(|| pid.parse().ok())?
}

/// Sandbox namespaces whose creating process is gone (killed before it
/// could remove them).
pub fn stale() -> Vec<String> {
    let alive = |pid: u32| std::path::Path::new(&format!("/proc/{pid}")).exists();
    netns::list().into_iter().filter(|n| creator(n).is_some_and(|pid| !alive(pid))).collect()
}

/// Removes the [`stale`] namespaces; each run does once, before its first
/// sandbox.
pub fn sweep() {
    for ns in stale() {
        match netns::remove(&ns) {
            Ok(()) => eprintln!("ringlab: removed netns {ns}, left by a process that is gone"),
            Err(e) => eprintln!("ringlab: could not remove stale netns {ns}: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::creator;

    #[test]
    fn only_sandbox_names_have_a_creator() {
        assert_eq!(creator("rl4242n0"), Some(4242));
        assert_eq!(creator("rl7n12"), Some(7));
        for other in ["rl4242n0a", "rln0", "rl42n", "rl4x2n0", "blue", "rl"] {
            assert_eq!(creator(other), None, "{other}");
        }
    }
}
