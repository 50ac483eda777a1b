//! A scenario's receive as a trace of specs/XskRx.tla (what rx_chain.rs
//! records): the spec's constants, its states, per step the action and
//! the scenario operation it belongs to; and why a scenario is refused.

use crate::xsk_rx::{Action, Config, State};

use super::scenario::Obs;

/// Why a scenario's receive is not written as a trace of XskRx (not: why
/// the spec rejects it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refusal {
    /// The scenario has no RX socket: nothing of XskRx happens.
    NoRxSocket,
    /// Transmitted frames reach the RX socket (xskxceiver's
    /// SEND_RECEIVE): XskRx's packets arrive from nowhere else than the
    /// wire.
    Loopback,
    /// A fill hands in a chunk the application does not hold (on the fill
    /// ring, the free list or an RX ring: fill addresses cycle modulo the
    /// umem's frames); XskRx's UserFill takes a buffer of ufree only.
    FillNotOwned,
    /// More frames than the model of the spec numbers (200).
    TooManyPackets,
    /// More umem chunks than the model of the spec numbers (64).
    TooManyBufs,
    /// The model's steps and the recorder disagree: a bug of the chain.
    Internal,
}

impl Refusal {
    /// A short name, for counts by reason.
    pub fn id(self) -> &'static str {
        match self {
            Refusal::NoRxSocket => "no-rx-socket",
            Refusal::Loopback => "loopback",
            Refusal::FillNotOwned => "fill-not-owned",
            Refusal::TooManyPackets => "too-many-packets",
            Refusal::TooManyBufs => "too-many-bufs",
            Refusal::Internal => "internal",
        }
    }
}

/// A refused scenario: at which operation, why, and what in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("operation {op}: {what}")]
pub struct Refused {
    pub op: usize,
    pub kind: Refusal,
    pub what: String,
}

/// One step of XskRx the kernel took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxStep {
    /// The scenario's operation it belongs to.
    pub op: usize,
    /// The action, with the choices its \E made.
    pub action: Action,
}

/// A scenario's receive as a trace of XskRx: `states[0]` is Init and
/// `steps[k]` leads from `states[k]` to `states[k + 1]`.
#[derive(Clone, Debug)]
pub struct RxTrace {
    pub config: Config,
    pub states: Vec<State>,
    pub steps: Vec<RxStep>,
    /// The observations of the run (those of `predict`).
    pub obs: Vec<Obs>,
}

impl RxTrace {
    /// The first step that is no step of XskRx's Next (nor a stutter),
    /// checked against the Rust model of the spec: (step, why); step 0
    /// if state 0 is not Init.
    pub fn first_rejected(&self) -> Option<(usize, String)> {
        if self.states.first() != Some(&State::init(&self.config)) {
            return Some((0, "state 0 is not Init".into()));
        }
        for (k, st) in self.steps.iter().enumerate() {
            let (a, b) = (&self.states[k], &self.states[k + 1]);
            if a == b || a.step(&self.config, &st.action).as_ref() == Some(b) {
                continue;
            }
            if a.successors(&self.config).iter().any(|(_, t)| t == b) {
                continue;
            }
            let changed = crate::xsk_rx::tla::changed(&self.config, a, b).join(", ");
            let enabled: Vec<String> = a.enabled(&self.config).iter().map(|x| x.to_string()).collect();
            return Some((
                k + 1,
                format!("{} (operation {}) leads nowhere it changes ({changed}); enabled: {}", st.action, st.op, enabled.join(", ")),
            ));
        }
        None
    }

    /// The same trace under wider constants: `bufs` buffers, `pkts`
    /// packets, `sockets` sockets, packets of up to `max_len` chunks and
    /// the verdicts of `with`. What is added is never used by the trace
    /// (buffers the application holds, packets that never arrive, a
    /// socket bound and in the XSKMAP that nothing is sent to, choices
    /// XdpRun never makes), so the spec accepts it iff it accepts the
    /// trace under its own constants.
    pub fn widened(&self, with: &Config) -> RxTrace {
        let mut t = self.clone();
        let c = &mut t.config;
        assert!(with.n_bufs >= c.n_bufs && with.max_pkts >= c.max_pkts && with.n_sockets >= c.n_sockets);
        let bufs = c.n_bufs;
        c.n_bufs = with.n_bufs;
        c.max_pkts = with.max_pkts;
        c.n_sockets = with.n_sockets;
        c.max_len = c.max_len.max(with.max_len);
        let mut vs = c.verdicts.clone();
        vs.extend(with.verdicts.iter().copied());
        vs.sort();
        vs.dedup();
        c.verdicts = vs;
        let ns = usize::from(with.n_sockets);
        for s in &mut t.states {
            s.ufree.extend(bufs + 1..=with.n_bufs);
            s.fate.resize(usize::from(with.max_pkts), crate::xsk_rx::Fate::None);
            s.rx.resize(ns, Vec::new());
            s.rx_pub.resize(ns, 0);
            s.st.resize(ns, crate::xsk_rx::Sst::Bound);
            let keys = s.map.len() as u8;
            s.map.extend(keys + 1..=with.n_sockets);
            s.lock.resize(ns, None);
            s.cnt.resize(ns, Default::default());
        }
        t
    }
}
