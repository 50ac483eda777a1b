//! One step of the spec: an action of Next with the values its \E chose.

use std::fmt;

use super::config::Mode;
use super::state::{Binding, Niov, Sock, Tok};

/// The actions of DevmemTokens.tla's Next, named as the spec names them,
/// each with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// BindRx(b, m): NETDEV_CMD_BIND_RX, net_devmem_bind_dmabuf.
    BindRx { b: Binding, m: Mode },
    /// RxFrag(s, n): the page pool hands n to the NIC, tcp_data_queue
    /// queues the frag on s.
    RxFrag { s: Sock, n: Niov },
    /// RecvMsg(s) with the `\E told` it chose: tcp_recvmsg_dmabuf reads
    /// one piece of s's head frag. `told`: the application learns the
    /// token (always, but for the dm-cmsg-trunc mutant).
    RecvMsg { s: Sock, told: bool },
    /// Dontneed(s, t, c): SO_DEVMEM_DONTNEED (sock_devmem_dontneed) with
    /// one dmabuf_token {token_start = t, token_count = c}.
    Dontneed { s: Sock, t: Tok, c: u32 },
    /// DontneedRead(s, t): zcrx-uref-race: the release's read of uref.
    DontneedRead { s: Sock, t: Tok },
    /// DontneedPut(s): zcrx-uref-race: the release's late decrement.
    DontneedPut { s: Sock },
    /// Close(s): tcp_v4_destroy_sock, tcp_release_user_frags.
    Close { s: Sock },
    /// Unbind(b): net_devmem_unbind_dmabuf.
    Unbind { b: Binding },
    /// NlSockClose(b): netdev_nl_sock_priv_destroy (Lifetime).
    NlSockClose { b: Binding },
    /// NetdevUnregister(b): b's device goes (Lifetime).
    NetdevUnregister { b: Binding },
    /// MpDmabufDevmemDestroy(b): the drained page pool puts its binding
    /// reference (Lifetime).
    MpDmabufDevmemDestroy { b: Binding },
    /// Done: every socket closed and no binding bound (a stutter step).
    Done,
}

impl Action {
    /// The spec's name of the action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::BindRx { .. } => "BindRx",
            Action::RxFrag { .. } => "RxFrag",
            Action::RecvMsg { .. } => "RecvMsg",
            Action::Dontneed { .. } => "Dontneed",
            Action::DontneedRead { .. } => "DontneedRead",
            Action::DontneedPut { .. } => "DontneedPut",
            Action::Close { .. } => "Close",
            Action::Unbind { .. } => "Unbind",
            Action::NlSockClose { .. } => "NlSockClose",
            Action::NetdevUnregister { .. } => "NetdevUnregister",
            Action::MpDmabufDevmemDestroy { .. } => "MpDmabufDevmemDestroy",
            Action::Done => "Done",
        }
    }

    /// The socket the action is for, if it names one.
    pub fn socket(&self) -> Option<Sock> {
        match *self {
            Action::RxFrag { s, .. }
            | Action::RecvMsg { s, .. }
            | Action::Dontneed { s, .. }
            | Action::DontneedRead { s, .. }
            | Action::DontneedPut { s }
            | Action::Close { s } => Some(s),
            Action::BindRx { .. }
            | Action::Unbind { .. }
            | Action::NlSockClose { .. }
            | Action::NetdevUnregister { .. }
            | Action::MpDmabufDevmemDestroy { .. }
            | Action::Done => None,
        }
    }

    /// The binding the action concerns.
    pub fn binding(&self) -> Option<Binding> {
        match *self {
            Action::BindRx { b, .. }
            | Action::Unbind { b }
            | Action::NlSockClose { b }
            | Action::NetdevUnregister { b }
            | Action::MpDmabufDevmemDestroy { b } => Some(b),
            Action::Done => None,
            _ => self.socket().map(|s| s.b),
        }
    }
}

/// `Name(args)`, bindings and sockets by number: `RecvMsg(<<0, 1>>)`,
/// `Dontneed(<<0, 0>>, 2, 3)`.
impl fmt::Display for Action {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.name();
        let sock = |s: Sock| format!("<<{}, {}>>", s.b, s.i);
        match *self {
            Action::BindRx { b, m } => write!(out, "{n}({b}, \"{}\")", m.id()),
            Action::RxFrag { s, n: v } => write!(out, "{n}({}, <<{}, {}>>)", sock(s), v.b, v.i),
            Action::RecvMsg { s, told: true } => write!(out, "{n}({})", sock(s)),
            Action::RecvMsg { s, told: false } => write!(out, "{n}({}, untold)", sock(s)),
            Action::Dontneed { s, t, c } => write!(out, "{n}({}, {t}, {c})", sock(s)),
            Action::DontneedRead { s, t } => write!(out, "{n}({}, {t})", sock(s)),
            Action::DontneedPut { s } | Action::Close { s } => write!(out, "{n}({})", sock(s)),
            Action::Unbind { b }
            | Action::NlSockClose { b }
            | Action::NetdevUnregister { b }
            | Action::MpDmabufDevmemDestroy { b } => write!(out, "{n}({b})"),
            Action::Done => write!(out, "{n}"),
        }
    }
}
