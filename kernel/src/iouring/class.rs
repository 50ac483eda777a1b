//! What each request meets, in the order io_uring meets it, and what that
//! is in the model: the IoSendZcPrep and IoSendZc outcomes it takes
//! (ringlab_model::iouring_zc) and the errno the kernel gives it, a value
//! the model does not keep (it names EFAULT, EINVAL, ENOMEM and EPIPE,
//! each standing for a place of failure, not a value).

use serde::{Deserialize, Serialize};

use ringlab_model::iouring_zc::{PrepOutcome, SendOutcome};

use super::scenario::{Fault, Request, Scenario, Step};

/// A request's failure class, as its scenario leaves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Class {
    /// Sent whole.
    Sent,
    /// IOSQE_CQE_SKIP_SUCCESS: io_send_zc_prep() refuses it before
    /// io_alloc_notif().
    CqeSkip,
    /// io_alloc_notif() failed.
    Nomem,
    /// A zc_flags bit outside IO_ZC_FLAGS_VALID, after io_alloc_notif().
    BadFlags,
    /// A fixed buffer once the table is unregistered.
    Unregistered,
    /// io_send_zc(): sock_from_file() finds no socket.
    NotSock,
    /// The pages cannot be had: io_import_fixed() (fixed) or the socket's
    /// page pinning (not fixed).
    Unmapped,
    /// udp_sendmsg(): longer than a datagram may be.
    TooLong,
    /// The first send after the peer's reset: sk_err.
    PeerReset,
    /// Later sends on the reset connection.
    Closed,
}

impl Class {
    pub const ALL: [Class; 10] = [
        Class::Sent,
        Class::CqeSkip,
        Class::Nomem,
        Class::BadFlags,
        Class::Unregistered,
        Class::NotSock,
        Class::Unmapped,
        Class::TooLong,
        Class::PeerReset,
        Class::Closed,
    ];

    /// The request CQE's res for a request of `len` bytes.
    pub fn res(self, len: u32) -> i32 {
        -match self {
            Class::Sent => return len as i32,
            Class::CqeSkip | Class::BadFlags => libc::EINVAL,
            Class::Nomem => libc::ENOMEM,
            Class::Unregistered | Class::Unmapped => libc::EFAULT,
            Class::NotSock => libc::ENOTSOCK,
            Class::TooLong => libc::EMSGSIZE,
            Class::PeerReset => libc::ECONNRESET,
            Class::Closed => libc::EPIPE,
        }
    }

    /// IoSendZcPrep's outcome. Unregistered is "ok": the model's prep
    /// finds the table gone itself (its EFAULT arm). CqeSkip fails where
    /// "nomem" does, before the notification is allocated; the model's
    /// -ENOMEM there is the place, the kernel's -EINVAL the value.
    pub fn prep(self) -> PrepOutcome {
        match self {
            Class::CqeSkip | Class::Nomem => PrepOutcome::Nomem,
            Class::BadFlags => PrepOutcome::Inval,
            _ => PrepOutcome::Ok,
        }
    }

    /// IoSendZc's outcome, for a request the prep let through: "fault"
    /// for a failure before sock_sendmsg() (no socket, no pages), "pipe"
    /// for sock_sendmsg() failing with nothing queued (whatever its errno),
    /// "all" for a send of the whole buffer (one unit: the projection
    /// drops sizes).
    pub fn send(self) -> Option<SendOutcome> {
        match self {
            Class::Sent => Some(SendOutcome::All),
            Class::NotSock | Class::Unmapped => Some(SendOutcome::Fault),
            Class::TooLong | Class::PeerReset | Class::Closed => Some(SendOutcome::Pipe),
            Class::CqeSkip | Class::Nomem | Class::BadFlags | Class::Unregistered => None,
        }
    }
}

impl Class {
    /// Whether the notification is flushed by io_send_zc_cleanup() as the
    /// request is freed (io_clean_op() from io_free_batch_list(), after
    /// io_submit_flush_completions() posted the submission's CQEs)
    /// rather than by io_send_zc()'s own io_notif_flush(): so for a send
    /// failing in io_send_zc_prep() after io_alloc_notif(), or in
    /// io_send_zc() before sock_sendmsg() (no socket; a fixed buffer's
    /// io_import_fixed()). The model puts that reference at the failure
    /// (IoSendZcPrep, IoSendZc), so its notification can come earlier in
    /// the model than in the kernel: the profile rule project.rs applies.
    pub fn cleanup_flush(self, fixed: bool) -> bool {
        match self {
            Class::BadFlags | Class::Unregistered | Class::NotSock => true,
            Class::Unmapped => fixed,
            _ => false,
        }
    }

    /// Whether a TCP send that failed with nothing queued may have
    /// linked its notification behind another request's all the same:
    /// skb_zerocopy_iter_stream() calls io_link_skb() on the write
    /// queue's tail skb before the page pinning faults, and the link
    /// stays; the notification is then posted in that chain. The model
    /// links only a send that queued a unit ("fault" queues none), so
    /// here too the kernel's notification may come later.
    pub fn linked_on_fault(self, tcp: bool) -> bool {
        tcp && self == Class::Unmapped
    }

    /// The two rules together: the kernel may post this request's
    /// notification later than the model does.
    pub fn posted_late(self, fixed: bool, tcp: bool) -> bool {
        self.cleanup_flush(fixed) || self.linked_on_fault(tcp)
    }
}

/// The class of every request of `s`, in submission order: a request's
/// own fault if it fails in io_send_zc_prep() (in the order that function
/// tests: CQE skip, allocation, flags), then the unregistered table, then
/// a non-socket, then the pages or the datagram's length, then the
/// connection's reset (which only the first send to reach sendmsg sees as
/// sk_err).
///
/// Profile rule: since the registered buffer is looked up at issue
/// (io_send_zc_import() -> io_import_reg_buf(), linux 6.15 and later;
/// 6.12 looks it up in io_send_zc_prep(), net.c:1353-1360), a request on
/// a non-socket meets -ENOTSOCK before the missing buffer: `import_at_issue`.
pub fn classes(s: &Scenario) -> Vec<Class> {
    classes_for(s, import_at_issue(&crate::env::release()))
}

/// Whether kernel `release` imports the registered buffer at issue.
pub fn import_at_issue(release: &str) -> bool {
    let mut v = release.split(|c: char| !c.is_ascii_digit()).filter_map(|x| x.parse::<u32>().ok());
    let (major, minor) = (v.next().unwrap_or(0), v.next().unwrap_or(0));
    (major, minor) >= (6, 15)
}

/// classes() for a kernel that does or does not import at issue.
pub fn classes_for(s: &Scenario, at_issue: bool) -> Vec<Class> {
    let mut out = Vec::new();
    let (mut reset, mut reported, mut unregistered) = (false, false, false);
    for step in &s.steps {
        match step {
            Step::PeerReset => reset = true,
            Step::Unregister => unregistered = true,
            Step::Batch(b) => {
                for r in b {
                    let c = class_of(r, s.fixed && r.zc && unregistered, reset, at_issue);
                    if matches!(c, Class::PeerReset) {
                        if reported {
                            out.push(Class::Closed);
                            continue;
                        }
                        reported = true;
                    }
                    out.push(c);
                }
            }
        }
    }
    out
}

fn class_of(r: &Request, unregistered: bool, reset: bool, at_issue: bool) -> Class {
    match r.fault {
        Fault::CqeSkip => return Class::CqeSkip,
        Fault::Nomem => return Class::Nomem,
        Fault::BadFlags => return Class::BadFlags,
        _ => {}
    }
    if unregistered && !(at_issue && r.fault == Fault::NotSock) {
        return Class::Unregistered;
    }
    match r.fault {
        Fault::NotSock => Class::NotSock,
        _ if reset => Class::PeerReset,
        Fault::Unmapped => Class::Unmapped,
        Fault::TooLong => Class::TooLong,
        _ => Class::Sent,
    }
}
