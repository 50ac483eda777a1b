//! One step of the spec: an action of Next with the values its \E chose.

use std::fmt;

use super::config::TxResult;
use super::state::{Frame, Sock};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    UserSubmit {
        s: Sock,
        f: Frame,
        ok: bool,
        contd: bool,
    },
    Sendto {
        s: Sock,
    },
    UserReap,
    XmitReserve {
        s: Sock,
    },
    XmitReserveStore {
        s: Sock,
    },
    XmitAllocFail {
        s: Sock,
    },
    XmitSend {
        s: Sock,
        o: TxResult,
    },
    XmitBatchReserve {
        s: Sock,
    },
    XmitBatchAlloc {
        s: Sock,
        j: i64,
    },
    XmitBatchAllocFail {
        s: Sock,
    },
    XmitBatchSend {
        s: Sock,
        o: TxResult,
    },
    /// DriverFree(f) with the \E k \in flight it chose: the skb of socket
    /// `sock` holding f (every skb of the spec holds one address).
    DriverFree {
        f: Frame,
        sock: Sock,
    },
}

impl Action {
    /// The socket the action is for (every action but UserReap and
    /// DriverFree names one).
    pub fn socket(&self) -> Option<Sock> {
        match *self {
            Action::UserSubmit { s, .. }
            | Action::Sendto { s }
            | Action::XmitReserve { s }
            | Action::XmitReserveStore { s }
            | Action::XmitAllocFail { s }
            | Action::XmitSend { s, .. }
            | Action::XmitBatchReserve { s }
            | Action::XmitBatchAlloc { s, .. }
            | Action::XmitBatchAllocFail { s }
            | Action::XmitBatchSend { s, .. } => Some(s),
            Action::UserReap | Action::DriverFree { .. } => None,
        }
    }

    /// The spec's name of the action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::UserSubmit { .. } => "UserSubmit",
            Action::Sendto { .. } => "Sendto",
            Action::UserReap => "UserReap",
            Action::XmitReserve { .. } => "XmitReserve",
            Action::XmitReserveStore { .. } => "XmitReserveStore",
            Action::XmitAllocFail { .. } => "XmitAllocFail",
            Action::XmitSend { .. } => "XmitSend",
            Action::XmitBatchReserve { .. } => "XmitBatchReserve",
            Action::XmitBatchAlloc { .. } => "XmitBatchAlloc",
            Action::XmitBatchAllocFail { .. } => "XmitBatchAllocFail",
            Action::XmitBatchSend { .. } => "XmitBatchSend",
            Action::DriverFree { .. } => "DriverFree",
        }
    }
}

impl Action {
    /// `Name(args)` with sockets and frames named as `cfg` names them (as
    /// TLC prints the spec's actions).
    pub fn spec_text(&self, cfg: &super::config::Config) -> String {
        let (sock, frame) = (|s: Sock| cfg.sockets[s as usize].clone(), |f: Frame| cfg.frames[f as usize].clone());
        let n = self.name();
        match *self {
            Action::UserSubmit { s, f, ok, contd } => format!("{n}({}, {}, ok={ok}, contd={contd})", sock(s), frame(f)),
            Action::UserReap => n.to_string(),
            Action::XmitSend { s, o } | Action::XmitBatchSend { s, o } => format!("{n}({}, {})", sock(s), o.id()),
            Action::XmitBatchAlloc { s, j } => format!("{n}({}, j={j})", sock(s)),
            Action::DriverFree { f, sock: s } => format!("{n}({}, skb of {})", frame(f), sock(s)),
            _ => format!("{n}({})", sock(self.socket().unwrap_or(0))),
        }
    }
}

/// `Name(args)` with sockets and frames by number (s0, f0, ...).
impl fmt::Display for Action {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.name();
        match *self {
            Action::UserSubmit { s, f, ok, contd } => {
                write!(out, "{n}(s{s}, f{f}, ok={ok}")?;
                if contd {
                    write!(out, ", contd")?;
                }
                write!(out, ")")
            }
            Action::UserReap => write!(out, "{n}"),
            Action::XmitSend { s, o } | Action::XmitBatchSend { s, o } => {
                write!(out, "{n}(s{s}, {})", o.id())
            }
            Action::XmitBatchAlloc { s, j } => write!(out, "{n}(s{s}, j={j})"),
            Action::DriverFree { f, sock } => write!(out, "{n}(f{f}, skb of s{sock})"),
            Action::Sendto { s }
            | Action::XmitReserve { s }
            | Action::XmitReserveStore { s }
            | Action::XmitAllocFail { s }
            | Action::XmitBatchReserve { s }
            | Action::XmitBatchAllocFail { s } => write!(out, "{n}(s{s})"),
        }
    }
}
