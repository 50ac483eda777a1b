//! The spec's invariants, in the order MCIoUringZcNotif.cfg lists them,
//! and the model's own shape check (the spec has no TypeOK).

use super::config::Config;
use super::state::{at, NdState, State};

/// An invariant: its spec name and its predicate.
pub type Invariant = (&'static str, fn(&State, &Config) -> bool);

pub const INVARIANTS: [Invariant; 12] = [
    ("NotifOnce", State::notif_once),
    ("NotifForEveryPrep", State::notif_for_every_prep),
    ("MoreMeansNotif", State::more_means_notif),
    ("ReqBeforeNotif", State::req_before_notif),
    ("ResIsSent", State::res_is_sent),
    ("NotifAfterLastSkb", State::notif_after_last_skb),
    ("FixedBufPinned", State::fixed_buf_pinned),
    ("BufferNotReused", State::buffer_not_reused),
    ("CqeNotLost", State::cqe_not_lost),
    ("CqBounded", State::cq_bounded),
    ("SqBounded", State::sq_bounded),
    ("RefsAccounted", State::refs_accounted),
];

/// The invariant with this spec name.
pub fn invariant(name: &str) -> Option<Invariant> {
    INVARIANTS.into_iter().find(|(n, _)| *n == name)
}

impl State {
    /// Not a spec invariant: the vectors have the config's sizes and
    /// every request and skb named is one of the config's.
    pub fn type_ok(&self, cfg: &Config) -> bool {
        let n = usize::from(cfg.n_reqs);
        let req = |r: &u8| cfg.reqs().contains(r);
        [
            self.st.len(),
            self.sent.len(),
            self.nd.len(),
            self.got.len(),
            self.reused.len(),
        ] == [n; 5]
            && self.skb.len() == usize::from(cfg.max_skbs)
            && self.sq.iter().all(req)
            && self.tw.iter().all(req)
            && self.nd.iter().all(|d| req(&d.head))
            && self
                .skb
                .iter()
                .all(|k| (k.uarg == 0 || req(&k.uarg)) && k.bufs.iter().all(req))
            && [&self.compl, &self.cq, &self.ovf, &self.posted]
                .into_iter()
                .flatten()
                .all(|c| req(&c.r))
            && self.sent.iter().all(|s| *s <= cfg.req_len)
    }

    /// NotifOnce: at most one notification per request.
    pub fn notif_once(&self, cfg: &Config) -> bool {
        cfg.reqs().all(|r| self.notifs_of(r) <= 1)
    }

    /// NotifForEveryPrep: once everything has settled, exactly one
    /// notification for every request that allocated one.
    pub fn notif_for_every_prep(&self, cfg: &Config) -> bool {
        !self.quiescent()
            || cfg.reqs().all(|r| {
                let want = usize::from(self.nd_of(r).state != NdState::None);
                self.notifs_of(r) == want
            })
    }

    /// MoreMeansNotif: a request CQE has F_MORE exactly when its request
    /// allocated a notification.
    pub fn more_means_notif(&self, _cfg: &Config) -> bool {
        self.posted
            .iter()
            .filter(|c| !c.notif)
            .all(|c| c.more == (self.nd_of(c.r).state != NdState::None))
    }

    /// ReqBeforeNotif: a notification CQE comes after its request's CQE.
    pub fn req_before_notif(&self, _cfg: &Config) -> bool {
        self.posted
            .iter()
            .enumerate()
            .all(|(i, c)| !c.notif || self.posted[..i].iter().any(|e| e.r == c.r && !e.notif))
    }

    /// ResIsSent: a request CQE reports the units sendmsg queued (a
    /// failure, none).
    pub fn res_is_sent(&self, _cfg: &Config) -> bool {
        self.posted.iter().filter(|c| !c.notif).all(|c| {
            let sent = i64::from(self.sent[at(c.r)]);
            if c.res >= 0 {
                c.res == sent
            } else {
                sent == 0
            }
        })
    }

    /// NotifAfterLastSkb: the notification of pages an skb carries is
    /// not posted.
    pub fn notif_after_last_skb(&self, _cfg: &Config) -> bool {
        self.skb.iter().all(|k| {
            k.bufs
                .iter()
                .all(|&r| matches!(self.nd_of(r).state, NdState::Live | NdState::Tw))
        })
    }

    /// FixedBufPinned: a registered buffer's node is held while an skb
    /// carries its pages.
    pub fn fixed_buf_pinned(&self, cfg: &Config) -> bool {
        !cfg.fixed
            || self
                .skb
                .iter()
                .all(|k| k.uarg == 0 || !self.node.is_empty())
    }

    /// BufferNotReused: the application has not written into pages an
    /// skb carries.
    pub fn buffer_not_reused(&self, _cfg: &Config) -> bool {
        self.skb
            .iter()
            .all(|k| k.bufs.iter().all(|&r| !self.reused[at(r)]))
    }

    /// CqeNotLost: the CQEs posted and not reaped are the CQ's and then
    /// the overflow list's, in the order posted.
    pub fn cqe_not_lost(&self, _cfg: &Config) -> bool {
        let unreaped = self.posted.get(self.reaped as usize..).unwrap_or(&[]);
        unreaped.len() == self.cq.len() + self.ovf.len()
            && unreaped.iter().eq(self.cq.iter().chain(&self.ovf))
    }

    /// CqBounded: the CQ holds at most CqSize.
    pub fn cq_bounded(&self, cfg: &Config) -> bool {
        self.cq.len() <= cfg.cq_size as usize
    }

    /// SqBounded: the SQ holds at most SqSize.
    pub fn sq_bounded(&self, cfg: &Config) -> bool {
        self.sq.len() <= cfg.sq_size as usize
    }

    /// RefsAccounted: a live notification's count is what holds it
    /// (Holders).
    pub fn refs_accounted(&self, cfg: &Config) -> bool {
        cfg.reqs().all(|n| {
            let d = self.nd_of(n);
            d.state != NdState::Live || d.refs == self.holders(n)
        })
    }

    /// The first of the invariants `names` that this state violates, in
    /// the order given (TLC checks a .cfg's INVARIANTS in its order).
    ///
    /// Panics on a name that is not one of the spec's invariants
    /// (`invariant` tells).
    pub fn violated<S: AsRef<str>>(&self, cfg: &Config, names: &[S]) -> Option<&'static str> {
        names.iter().find_map(|name| {
            let (n, holds) = invariant(name.as_ref())
                .unwrap_or_else(|| panic!("IoUringZcNotif.tla has no invariant {}", name.as_ref()));
            (!holds(self, cfg)).then_some(n)
        })
    }

    /// Every invariant this state violates, in INVARIANTS' order.
    pub fn violations(&self, cfg: &Config) -> Vec<&'static str> {
        INVARIANTS
            .iter()
            .filter(|(_, holds)| !holds(self, cfg))
            .map(|(n, _)| *n)
            .collect()
    }
}
