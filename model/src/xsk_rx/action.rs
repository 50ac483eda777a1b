//! One step of the spec: an action of Next with the values its \E chose.

use std::fmt;

use super::config::Verdict;
use super::state::{Buf, Cpu, Sock};

/// The actions of XskRx.tla's Next, named as the spec names them, each
/// with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// UserFill with the `\E b \in ufree` it chose:
    /// xsk_ring_prod__reserve/submit on the fill ring.
    UserFill { b: Buf },
    /// UserRecv(s): xsk_ring_cons__peek/release on s's rx ring.
    UserRecv { s: Sock },
    /// XskBind(s): bind(), xsk_bind().
    XskBind { s: Sock },
    /// XskMapUpdate(k, s): bpf_map_update_elem() of socket s into entry
    /// k, xsk_map_update_elem().
    XskMapUpdate { k: Sock, s: Sock },
    /// XskRelease(s): close(), xsk_release().
    XskRelease { s: Sock },
    /// XskReleaseDone(s): synchronize_net() returned; the socket is freed.
    XskReleaseDone { s: Sock },
    /// NapiPoll(c): napi_poll() of the queue on c.
    NapiPoll { c: Cpu },
    /// XdpDoFlush(c): the poll's end, xdp_do_flush().
    XdpDoFlush { c: Cpu },
    /// XdpRun(c) with the `\E v, k, len` it chose: a packet arrives and
    /// its XDP program runs (bpf_prog_run_xdp(), xdp_do_redirect()).
    XdpRun {
        c: Cpu,
        v: Verdict,
        k: Sock,
        len: u8,
    },
    /// XskRcvBatch(c): xsk_rcv_batch() receives the oldest packet of c's
    /// XDP_REDIRECT_XSK batch.
    XskRcvBatch { c: Cpu },
    /// RxLock(c): xsk_generic_rcv()'s spin_lock_bh(&pool->rx_lock).
    RxLock { c: Cpu },
    /// XskRcvCheckRoom(c): __xsk_rcv()'s whole-packet checks.
    XskRcvCheckRoom { c: Cpu },
    /// XpAllocFree(c): xsk_buff_alloc() from pool->free_list.
    XpAllocFree { c: Cpu },
    /// XpAllocPeek(c): the fill ring entry at cached_cons is read.
    XpAllocPeek { c: Cpu },
    /// XpAllocTake(c): cached_cons moves past it.
    XpAllocTake { c: Cpu },
    /// XpAllocFail(c): no buffer for a single chunk.
    XpAllocFail { c: Cpu },
    /// XskRcvReserve(c): xskq_prod_reserve_desc() for every chunk.
    XskRcvReserve { c: Cpu },
    /// XskFlush(c): xsk_generic_rcv()'s xsk_flush() and unlock.
    XskFlush { c: Cpu },
    /// Done: every packet received, every CPU idle (a stutter step).
    Done,
}

impl Action {
    /// The spec's name of the action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::UserFill { .. } => "UserFill",
            Action::UserRecv { .. } => "UserRecv",
            Action::XskBind { .. } => "XskBind",
            Action::XskMapUpdate { .. } => "XskMapUpdate",
            Action::XskRelease { .. } => "XskRelease",
            Action::XskReleaseDone { .. } => "XskReleaseDone",
            Action::NapiPoll { .. } => "NapiPoll",
            Action::XdpDoFlush { .. } => "XdpDoFlush",
            Action::XdpRun { .. } => "XdpRun",
            Action::XskRcvBatch { .. } => "XskRcvBatch",
            Action::RxLock { .. } => "RxLock",
            Action::XskRcvCheckRoom { .. } => "XskRcvCheckRoom",
            Action::XpAllocFree { .. } => "XpAllocFree",
            Action::XpAllocPeek { .. } => "XpAllocPeek",
            Action::XpAllocTake { .. } => "XpAllocTake",
            Action::XpAllocFail { .. } => "XpAllocFail",
            Action::XskRcvReserve { .. } => "XskRcvReserve",
            Action::XskFlush { .. } => "XskFlush",
            Action::Done => "Done",
        }
    }

    /// The CPU the action runs on, if it names one.
    pub fn cpu(&self) -> Option<Cpu> {
        match *self {
            Action::NapiPoll { c }
            | Action::XdpDoFlush { c }
            | Action::XdpRun { c, .. }
            | Action::XskRcvBatch { c }
            | Action::RxLock { c }
            | Action::XskRcvCheckRoom { c }
            | Action::XpAllocFree { c }
            | Action::XpAllocPeek { c }
            | Action::XpAllocTake { c }
            | Action::XpAllocFail { c }
            | Action::XskRcvReserve { c }
            | Action::XskFlush { c } => Some(c),
            _ => None,
        }
    }

    /// Whether FastSpec's Next has the action: all but xsk_generic_rcv()'s
    /// RxLock and XskFlush.
    pub fn in_fast_next(&self) -> bool {
        !matches!(self, Action::RxLock { .. } | Action::XskFlush { .. })
    }
}

/// `Name(args)`, CPUs by number: `XdpRun(0, "redirect", 2, 1)`.
impl fmt::Display for Action {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.name();
        match *self {
            Action::UserFill { b } => write!(out, "{n}({b})"),
            Action::UserRecv { s }
            | Action::XskBind { s }
            | Action::XskRelease { s }
            | Action::XskReleaseDone { s } => write!(out, "{n}({s})"),
            Action::XskMapUpdate { k, s } => write!(out, "{n}({k}, {s})"),
            Action::XdpRun { c, v, k, len } => write!(out, "{n}({c}, \"{}\", {k}, {len})", v.id()),
            Action::Done => write!(out, "{n}"),
            _ => write!(out, "{n}({})", self.cpu().unwrap_or_default()),
        }
    }
}
