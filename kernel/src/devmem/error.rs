//! What can go wrong below the devmem receiver, each error naming the call,
//! the file or the netlink request, and what its errno usually means here.

use std::io;
use std::time::Duration;

use super::netlink::Refusal;
use crate::sandbox;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{what}: {source}{}", hint(what, source.raw_os_error()))]
    Sys {
        what: String,
        #[source]
        source: io::Error,
    },
    /// A netlink request the kernel answered with an errno.
    #[error("{what} refused: {refusal}{}", hint(what, Some(refusal.errno)))]
    Refused { what: String, refusal: Refusal },
    /// A netlink reply we cannot read: the kernel and we disagree on a format.
    #[error("{what}: malformed reply: {detail}")]
    Malformed { what: String, detail: String },
    #[error("{what}: not there after {after:?}")]
    Timeout { what: String, after: Duration },
    #[error("{what}: offset {offset} + len {len} is past the end of the {size}-byte buffer")]
    OutOfRange { what: &'static str, offset: usize, len: usize, size: usize },
    #[error(transparent)]
    Netns(#[from] sandbox::Error),
}

impl Error {
    pub fn sys(what: impl Into<String>, source: io::Error) -> Error {
        Error::Sys { what: what.into(), source }
    }

    /// The error of the syscall that just returned -1.
    pub fn last(what: impl Into<String>) -> Error {
        Error::sys(what, io::Error::last_os_error())
    }
}

/// The missing piece an errno of `what` usually points at.
fn hint(what: &str, errno: Option<i32>) -> &'static str {
    let Some(errno) = errno else { return "" };
    match errno {
        libc::EPERM | libc::EACCES => " (needs root: CAP_NET_ADMIN, and write access to /dev and /sys)",
        libc::ENOENT if what.starts_with("open /dev/udmabuf") => " (kernel without CONFIG_UDMABUF?)",
        libc::ENOENT if what.starts_with("open /sys/bus/netdevsim") => " (kernel without CONFIG_NETDEVSIM, or the module not loaded?)",
        libc::EINVAL if what.contains("UDMABUF_CREATE") => {
            " (size over udmabuf's size_limit_mb, 64 MiB by default, or the memfd not sealed against shrinking?)"
        }
        libc::EOPNOTSUPP if what.contains("PAGE_POOL_GET") => " (kernel without CONFIG_PAGE_POOL?)",
        libc::ENOENT if what.contains("CTRL_CMD_GETFAMILY") => " (no such generic netlink family in this kernel)",
        libc::ENOSYS if what.contains("memfd_create") => " (kernel without memfd_create(2)?)",
        _ => "",
    }
}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        let kind = match &e {
            Error::Sys { source, .. } => source.kind(),
            Error::Refused { refusal, .. } => io::Error::from_raw_os_error(refusal.errno).kind(),
            Error::Malformed { .. } => io::ErrorKind::InvalidData,
            Error::Timeout { .. } => io::ErrorKind::TimedOut,
            Error::OutOfRange { .. } => io::ErrorKind::InvalidInput,
            Error::Netns(_) => io::ErrorKind::Other,
        };
        io::Error::new(kind, e)
    }
}
