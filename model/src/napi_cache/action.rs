//! One step of the spec: an action of Next with the values its \E chose.

use std::fmt;

use super::state::{Cpu, Skb};

/// TunXdpOne's disjunct: what became of the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum XdpVerdict {
    /// XDP_DROP: the frame is dropped and takes no head.
    Drop,
    /// XDP_PASS on the batch's next head (Path "bulk" or "flush").
    PassHead,
    /// XDP_PASS with no head left in the batch: napi_build_skb() on one
    /// from this CPU's cache (Path "bulk" or "flush"), `fail` the refill's
    /// choice; a failed get drops the frame.
    PassCache { fail: bool },
    /// XDP_PASS on a head from the slab (Path "slab"), `fail` the slab
    /// call's choice; a failed call (or an empty slab) drops the frame.
    PassSlab { fail: bool },
}

/// The actions of NapiSkbCache.tla's Next, named as the spec names them,
/// each with its parameters and the choice of its \E (`fail`: the slab
/// call fails, from Fails).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// NetRxAction(c): net_rx_action(), the defer list flushed on entry.
    NetRxAction { c: Cpu },
    /// NapiComplete(c): napi_complete_done() and the end of net_rx_action().
    NapiComplete { c: Cpu },
    /// NapiBuildSkb(c): napi_build_skb() on a head from napi_skb_cache_get().
    NapiBuildSkb { c: Cpu, fail: bool },
    /// TunSendmsg(c): tun_sendmsg(TUN_MSG_PTR) taking a batch (`fail`
    /// only matters on the bulk paths).
    TunSendmsg { c: Cpu, fail: bool },
    /// TunXdpOne(c): tun_xdp_one() on one frame of the batch.
    TunXdpOne { c: Cpu, verdict: XdpVerdict },
    /// TunSendmsgEnd(c): the end of tun_sendmsg().
    TunSendmsgEnd { c: Cpu },
    /// NapiConsumeSkb(c, s): napi_consume_skb(s, budget).
    NapiConsumeSkb { c: Cpu, s: Skb },
    /// SkbAttemptDeferFree(c, s): skb_attempt_defer_free().
    SkbAttemptDeferFree { c: Cpu, s: Skb },
    /// PskbCopy(c, p): pskb_copy() sharing p's frag list.
    PskbCopy { c: Cpu, p: Skb },
    /// SkbGroReceiveList(c, p, t): skb_gro_receive_list() appending t to p.
    SkbGroReceiveList { c: Cpu, p: Skb, t: Skb },
    /// KfreeSkb(s): kfree_skb().
    KfreeSkb { s: Skb },
    /// SkbGet(s): skb_get().
    SkbGet { s: Skb },
}

impl Action {
    /// The spec's name of the action.
    pub fn name(&self) -> &'static str {
        match self {
            Action::NetRxAction { .. } => "NetRxAction",
            Action::NapiComplete { .. } => "NapiComplete",
            Action::NapiBuildSkb { .. } => "NapiBuildSkb",
            Action::TunSendmsg { .. } => "TunSendmsg",
            Action::TunXdpOne { .. } => "TunXdpOne",
            Action::TunSendmsgEnd { .. } => "TunSendmsgEnd",
            Action::NapiConsumeSkb { .. } => "NapiConsumeSkb",
            Action::SkbAttemptDeferFree { .. } => "SkbAttemptDeferFree",
            Action::PskbCopy { .. } => "PskbCopy",
            Action::SkbGroReceiveList { .. } => "SkbGroReceiveList",
            Action::KfreeSkb { .. } => "KfreeSkb",
            Action::SkbGet { .. } => "SkbGet",
        }
    }

    /// The CPU the action runs on, if it names one.
    pub fn cpu(&self) -> Option<Cpu> {
        match *self {
            Action::NetRxAction { c }
            | Action::NapiComplete { c }
            | Action::NapiBuildSkb { c, .. }
            | Action::TunSendmsg { c, .. }
            | Action::TunXdpOne { c, .. }
            | Action::TunSendmsgEnd { c }
            | Action::NapiConsumeSkb { c, .. }
            | Action::SkbAttemptDeferFree { c, .. }
            | Action::PskbCopy { c, .. }
            | Action::SkbGroReceiveList { c, .. } => Some(c),
            Action::KfreeSkb { .. } | Action::SkbGet { .. } => None,
        }
    }
}

/// `Name(args)` as the spec's operator applied to its parameters; the
/// choices of \E (fail, the XDP verdict) are not parameters.
impl fmt::Display for Action {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.name();
        match *self {
            Action::NetRxAction { c }
            | Action::NapiComplete { c }
            | Action::NapiBuildSkb { c, .. }
            | Action::TunSendmsg { c, .. }
            | Action::TunXdpOne { c, .. }
            | Action::TunSendmsgEnd { c } => write!(out, "{n}({c})"),
            Action::NapiConsumeSkb { c, s } | Action::SkbAttemptDeferFree { c, s } => {
                write!(out, "{n}({c}, {s})")
            }
            Action::PskbCopy { c, p } => write!(out, "{n}({c}, {p})"),
            Action::SkbGroReceiveList { c, p, t } => write!(out, "{n}({c}, {p}, {t})"),
            Action::KfreeSkb { s } | Action::SkbGet { s } => write!(out, "{n}({s})"),
        }
    }
}
