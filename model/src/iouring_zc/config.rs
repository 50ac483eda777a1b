//! The CONSTANTS of specs/IoUringZcNotif.tla and the ASSUMEs on them.

use serde::{Deserialize, Serialize};

/// What a send may meet (an element of Fails). The order is the ASSUME's,
/// which is TLC's order of the strings when the .cfg lists them so (every
/// shipped one does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Fail {
    /// "nomem": io_alloc_notif() fails, -ENOMEM before the notification.
    Nomem,
    /// "inval": -EINVAL after the notification is allocated.
    Inval,
    /// "fault": io_send_zc_import() fails, -EFAULT.
    Fault,
    /// "eagain": the socket is full: poll and retry.
    Eagain,
    /// "partial": sendmsg returns less, no retry.
    Partial,
    /// "pipe": the socket is closed, -EPIPE.
    Pipe,
}

impl Fail {
    pub const ALL: [Fail; 6] = [
        Fail::Nomem,
        Fail::Inval,
        Fail::Fault,
        Fail::Eagain,
        Fail::Partial,
        Fail::Pipe,
    ];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Fail::Nomem => "nomem",
            Fail::Inval => "inval",
            Fail::Fault => "fault",
            Fail::Eagain => "eagain",
            Fail::Partial => "partial",
            Fail::Pipe => "pipe",
        }
    }

    pub fn from_id(s: &str) -> Option<Fail> {
        Fail::ALL.into_iter().find(|f| f.id() == s)
    }
}

/// Reuse: the CQE after which the application writes into a buffer again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Reuse {
    /// "notif": after its notification (correct).
    Notif,
    /// "cqe": after its request CQE.
    Cqe,
}

impl Reuse {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Reuse::Notif => "notif",
            Reuse::Cqe => "cqe",
        }
    }

    pub fn from_id(s: &str) -> Option<Reuse> {
        [Reuse::Notif, Reuse::Cqe].into_iter().find(|r| r.id() == s)
    }
}

crate::mutant::spec_mutants! {
    spec "IoUringZcNotif.tla", named "io_uring zc";
    None => "none",
    /// A failed request drops its notification unposted, its CQE
    /// without F_MORE (6ae91ac9a6aa).
    SkipNotif => "iou-skip-notif",
    /// The notification is posted as its last reference drops, before
    /// the submission's request CQEs are flushed.
    NotifOrder => "iou-notif-order",
    /// The registered buffer's rsrc node is held by the request, not the
    /// notification.
    FixedbufLife => "iou-fixedbuf-life",
    /// A CQE that finds the CQ full is dropped.
    CqOverflowDrop => "iou-cq-overflow-drop",
    /// A CQE goes into a CQ with room while older ones wait on the
    /// overflow list.
    OverflowBypass => "iou-overflow-bypass",
    /// A partial send reports the length asked for.
    ResRequested => "iou-res-requested",
    /// io_link_skb() takes no reference on the head.
    LinkNoRef => "iou-link-no-ref",
    /// The submitter's reference is put at issue and again by cleanup.
    DoubleFlush => "iou-double-flush",
    /// The overflow flush writes into a full CQ.
    CqOverrun => "iou-cq-overrun",
    /// The application writes an SQE without room in the SQ.
    SqOverrun => "iou-sq-overrun",
}

/// The spec's CONSTANTS.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// NReqs: SEND_ZC requests, user_data 1 .. NReqs.
    pub n_reqs: u8,
    /// ReqLen: units each request sends.
    pub req_len: u32,
    /// MaxSkbs: skbs the socket may hold at once, ids 1 .. MaxSkbs.
    pub max_skbs: u8,
    /// SqSize: SQ entries.
    pub sq_size: u32,
    /// CqSize: CQ entries.
    pub cq_size: u32,
    /// Batch: SQEs one io_uring_enter() submits at most.
    pub batch: u32,
    /// Fixed: the requests send from a registered buffer.
    pub fixed: bool,
    /// Link: a send may append to an skb holding another request's
    /// notification.
    pub link: bool,
    /// Fails, in Fail's order, each once.
    pub fails: Vec<Fail>,
    pub reuse: Reuse,
    pub mutant: Mutant,
}

impl Config {
    /// MCIoUringZcNotif.cfg: two requests of two units, two skbs that
    /// link, a registered buffer, every failure class, a CQ of one.
    pub fn zc_notif() -> Config {
        Config {
            n_reqs: 2,
            req_len: 2,
            max_skbs: 2,
            sq_size: 2,
            cq_size: 1,
            batch: 2,
            fixed: true,
            link: true,
            fails: Fail::ALL.to_vec(),
            reuse: Reuse::Notif,
            mutant: Mutant::None,
        }
    }

    /// MCIoUringZcNotif_Batch1.cfg: three requests of one unit, an SQ of
    /// two, one SQE per io_uring_enter(), no registered buffer, a CQ of
    /// two.
    pub fn batch1() -> Config {
        Config {
            n_reqs: 3,
            req_len: 1,
            max_skbs: 2,
            sq_size: 2,
            cq_size: 2,
            batch: 1,
            fixed: false,
            link: true,
            fails: vec![Fail::Nomem, Fail::Eagain],
            reuse: Reuse::Notif,
            mutant: Mutant::None,
        }
    }

    /// The same constants with another mutant.
    pub fn with_mutant(self, mutant: Mutant) -> Config {
        Config { mutant, ..self }
    }

    /// f \in Fails
    pub fn fails(&self, f: Fail) -> bool {
        self.fails.contains(&f)
    }

    /// Reqs, 1 .. NReqs.
    pub fn reqs(&self) -> std::ops::RangeInclusive<u8> {
        1..=self.n_reqs
    }

    /// SkbIds, 1 .. MaxSkbs.
    pub fn skb_ids(&self) -> std::ops::RangeInclusive<u8> {
        1..=self.max_skbs
    }

    /// The spec's ASSUMEs, and what the model's types need.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("NReqs", u32::from(self.n_reqs)),
            ("ReqLen", self.req_len),
            ("MaxSkbs", u32::from(self.max_skbs)),
            ("SqSize", self.sq_size),
            ("CqSize", self.cq_size),
            ("Batch", self.batch),
        ] {
            if v == 0 {
                return Err(format!("{name} = 0 is not in Nat \\ {{0}}"));
            }
        }
        if self.fails.windows(2).any(|w| w[0] >= w[1]) {
            return Err("Fails must be listed in the ASSUME's order, once each".into());
        }
        Ok(())
    }
}
