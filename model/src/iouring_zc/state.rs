//! The spec's VARIABLES and Init, and the operators the actions and the
//! invariants share (Members, Issuing, Quiescent, NotifsOf, Holders).

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

use super::config::Config;

/// A request: its user_data, 1 .. NReqs (the spec's Reqs).
pub type Req = u8;

/// An skb slot, 1 .. MaxSkbs (the spec's SkbIds).
pub type SkbId = u8;

/// Where r sits in State's per-request vectors.
pub(super) fn at(r: Req) -> usize {
    usize::from(r) - 1
}

/// `st[r]`: where a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum St {
    /// Not submitted.
    User,
    /// In the SQ.
    Sq,
    /// Prepared, being issued.
    Issue,
    /// Waiting on poll after -EAGAIN.
    Retry,
    Done,
}

impl St {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            St::User => "user",
            St::Sq => "sq",
            St::Issue => "issue",
            St::Retry => "retry",
            St::Done => "done",
        }
    }
}

/// `nd[r].state`: where a notification is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NdState {
    /// Not allocated.
    None,
    Live,
    /// Queued as task work.
    Tw,
    Posted,
    /// iou-skip-notif: dropped unposted.
    Dropped,
}

impl NdState {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            NdState::None => "none",
            NdState::Live => "live",
            NdState::Tw => "tw",
            NdState::Posted => "posted",
            NdState::Dropped => "dropped",
        }
    }
}

/// `nd[r]`: a notification (spec: `[state |-> s, ref |-> c, head |-> h,
/// next |-> m]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Notif {
    pub state: NdState,
    /// `ref`: the ubuf_info's refcount (mutants drive it below zero).
    pub refs: i64,
    /// The notification it is linked behind; itself if none.
    pub head: Req,
    /// The notification linked right after it (nd->next); 0: none.
    pub next: Req,
}

impl Notif {
    /// `[state |-> "live", ref |-> 1, head |-> r, next |-> 0]`: r's
    /// notification as io_alloc_notif() gives it, the submitter's
    /// reference taken.
    pub fn live(r: Req) -> Notif {
        Notif {
            state: NdState::Live,
            refs: 1,
            head: r,
            next: 0,
        }
    }
}

/// `skb[k]` (spec: `[uarg |-> n, bufs |-> B]`): the notification the skb
/// holds a reference on, 0 for no skb (NoSkb), and the requests whose
/// pages it carries.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Skb {
    pub uarg: Req,
    pub bufs: BTreeSet<Req>,
}

impl Skb {
    /// NoSkb.
    pub fn none() -> Skb {
        Skb {
            uarg: 0,
            bufs: BTreeSet::new(),
        }
    }
}

/// A CQE (spec: an element of Cqe).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cqe {
    pub r: Req,
    /// IORING_CQE_F_NOTIF.
    pub notif: bool,
    pub res: i64,
    /// IORING_CQE_F_MORE.
    pub more: bool,
}

impl Cqe {
    /// NotifCqe(r).
    pub fn notif_of(r: Req) -> Cqe {
        Cqe {
            r,
            notif: true,
            res: 0,
            more: false,
        }
    }

    /// A request CQE.
    pub fn req(r: Req, res: i64, more: bool) -> Cqe {
        Cqe {
            r,
            notif: false,
            res,
            more,
        }
    }
}

/// `got[r]`, a subset of {"cqe", "notif"}: the CQEs of r reaped.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Got {
    pub cqe: bool,
    pub notif: bool,
}

/// A holder of the registered buffers' rsrc node (an element of `node`).
/// The variants are in TLC's order of the tuples: it compares their
/// strings in the order it first read them, "notif" (a field of Cqe: the
/// spec's identifiers are read before its string literals) before
/// "table" (Table) before "req" (IoSendZcPrep).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Holder {
    /// `<<"notif", r>>`
    Notif(Req),
    /// Table, `<<"table", 0>>`: the buffer table.
    Table,
    /// `<<"req", r>>` (iou-fixedbuf-life)
    Req(Req),
}

/// A state of the spec: its fifteen variables. Per-request vectors are
/// indexed by r - 1, per-skb ones by k - 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct State {
    /// SQEs written and not yet consumed, oldest first.
    pub sq: Vec<Req>,
    /// SQEs the io_uring_enter() in progress still submits (0: none).
    pub todo: u32,
    pub st: Vec<St>,
    /// `sent[r]`: units sendmsg queued for r.
    pub sent: Vec<u32>,
    pub nd: Vec<Notif>,
    pub skb: Vec<Skb>,
    /// Request CQEs of the submission in progress, not yet flushed.
    pub compl: Vec<Cqe>,
    /// Notifications queued as task work, oldest first.
    pub tw: Vec<Req>,
    pub cq: Vec<Cqe>,
    pub ovf: Vec<Cqe>,
    /// (history) every CQE posted, in order.
    pub posted: Vec<Cqe>,
    /// (history) how many of them the application has reaped.
    pub reaped: u32,
    pub got: Vec<Got>,
    pub reused: Vec<bool>,
    /// Who holds the registered buffers' rsrc node; empty: freed.
    pub node: BTreeSet<Holder>,
}

impl State {
    /// The spec's Init (its only initial state).
    pub fn init(cfg: &Config) -> State {
        let n = usize::from(cfg.n_reqs);
        State {
            sq: Vec::new(),
            todo: 0,
            st: vec![St::User; n],
            sent: vec![0; n],
            nd: cfg
                .reqs()
                .map(|r| Notif {
                    state: NdState::None,
                    refs: 0,
                    head: r,
                    next: 0,
                })
                .collect(),
            skb: vec![Skb::none(); usize::from(cfg.max_skbs)],
            compl: Vec::new(),
            tw: Vec::new(),
            cq: Vec::new(),
            ovf: Vec::new(),
            posted: Vec::new(),
            reaped: 0,
            got: vec![Got::default(); n],
            reused: vec![false; n],
            node: if cfg.fixed {
                BTreeSet::from([Holder::Table])
            } else {
                BTreeSet::new()
            },
        }
    }

    /// `st[r]`
    pub fn st_of(&self, r: Req) -> St {
        self.st[at(r)]
    }

    /// `nd[r]`
    pub fn nd_of(&self, r: Req) -> Notif {
        self.nd[at(r)]
    }

    /// `skb[k]`
    pub fn skb_of(&self, k: SkbId) -> &Skb {
        &self.skb[usize::from(k) - 1]
    }

    /// Issuing: a request is being issued.
    pub fn issuing(&self) -> bool {
        self.st.contains(&St::Issue)
    }

    /// Quiescent: nothing in flight, every CQE reaped.
    pub fn quiescent(&self) -> bool {
        self.st.iter().all(|s| matches!(s, St::User | St::Done))
            && self.sq.is_empty()
            && self.todo == 0
            && self.compl.is_empty()
            && self.tw.is_empty()
            && self.ovf.is_empty()
            && self.cq.is_empty()
            && self.skb.iter().all(|k| k.uarg == 0)
    }

    /// NotifsOf(r): notification CQEs of r posted.
    pub fn notifs_of(&self, r: Req) -> usize {
        self.posted.iter().filter(|c| c.r == r && c.notif).count()
    }

    /// Holders(n): what holds a reference on n: its skbs, the submitter
    /// while it issues, each member that has not completed.
    pub fn holders(&self, n: Req) -> i64 {
        let skbs = self.skb.iter().filter(|k| k.uarg == n).count();
        let submitter = matches!(self.st_of(n), St::Issue | St::Retry);
        let members = members(&self.nd, n)
            .into_iter()
            .filter(|&m| self.nd[at(m)].refs > 0)
            .count();
        (skbs + usize::from(submitter) + members) as i64
    }
}

/// Members(d, h): the allocated notifications linked behind h, ascending.
pub fn members(d: &[Notif], h: Req) -> Vec<Req> {
    (1..=d.len() as Req)
        .filter(|&n| n != h && d[at(n)].head == h && d[at(n)].state != NdState::None)
        .collect()
}
