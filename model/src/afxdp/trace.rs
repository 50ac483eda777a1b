//! A scenario's run as a trace of specs/XskCopyTx.tla (what chain.rs
//! records): the spec's constants, its states, and per step the action,
//! what it names and the scenario operation it belongs to; and why a run
//! may not be projected.


use crate::copy_tx::{first_rejected_with, Action, Call, Config, Desc, Frame, Rejected, Sock, State, TxResult};

use super::scenario::Obs;

/// The most frames a projected trace uses, the stray first: more than any
/// scenario holds at once (a frame is reused once its submission is
/// reaped), and few enough for TLC to hold a state's free set cheaply.
pub const MAX_FRAMES: usize = 4096;

/// Why a run cannot be projected (not: why the spec rejects it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("operation {op}: {what}")]
pub struct ProjectionError {
    pub op: usize,
    pub kind: Unprojected,
    pub what: String,
}

/// The kinds of run the projection cannot write as a trace of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unprojected {
    /// More submissions held at once than MAX_FRAMES - 1.
    TooManyFrames,
    /// Something the spec does not model (XDP_TX_METADATA in a batch).
    NotModelled,
    /// The model's steps and the recorder disagree: a bug of the chain.
    Internal,
}


/// What a step names besides its action: the socket, the frame
/// (UserSubmit's, or DriverFree's skb's first) and UserSubmit's descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hint {
    pub sock: Option<Sock>,
    pub frame: Option<Frame>,
    pub desc: Option<Desc>,
}

/// One step of the spec the kernel took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// The scenario's operation it belongs to.
    pub op: usize,
    /// The spec's action.
    pub action: &'static str,
    pub hint: Hint,
}

impl TraceStep {
    /// The spec's steps this one names, from state `from` (the outcomes
    /// and batch sizes it leaves open, each).
    pub fn likely(&self, from: &State) -> Vec<Action> {
        let h = &self.hint;
        let (s, f) = (h.sock.unwrap_or(0), h.frame.unwrap_or(0));
        let outcomes = [TxResult::Sent, TxResult::Drop];
        match self.action {
            "UserSubmit" => h.desc.map(|d| Action::UserSubmit { s, f, ok: d.ok, contd: d.contd }).into_iter().collect(),
            "UserReap" => vec![Action::UserReap],
            "DriverFree" => from.flight.iter().map(|k| Action::DriverFree { f, sock: k.sock }).collect(),
            "Sendto" => vec![Action::Sendto { s }],
            "XmitReserve" => vec![Action::XmitReserve { s }],
            "XmitAllocFail" => vec![Action::XmitAllocFail { s }],
            "XmitSend" => outcomes.map(|o| Action::XmitSend { s, o }).to_vec(),
            "XmitBatchReserve" => vec![Action::XmitBatchReserve { s }],
            "XmitBatchAlloc" => (1..=from.call[s as usize].pend).map(|j| Action::XmitBatchAlloc { s, j }).collect(),
            "XmitBatchSend" => outcomes.map(|o| Action::XmitBatchSend { s, o }).to_vec(),
            _ => Vec::new(),
        }
    }
}

/// A scenario's run as a trace of the spec: `states[0]` is Init and
/// `steps[k]` leads from `states[k]` to `states[k + 1]`.
#[derive(Clone, Debug)]
pub struct SpecTrace {
    pub config: Config,
    pub states: Vec<State>,
    pub steps: Vec<TraceStep>,
    /// The observations of the run (those of `predict`).
    pub obs: Vec<Obs>,
}

impl SpecTrace {
    /// The first step the spec does not take, checked against the Rust
    /// model (`copy_tx::first_rejected_with`, each step's named actions
    /// tried first).
    pub fn first_rejected(&self) -> Option<Rejected> {
        first_rejected_with(&self.config, &self.states, |k, from| self.steps[k].likely(from))
    }

    /// The trace as an Apalache ITF document (copy_tx::itf), each state
    /// with the action and operation of the step that led to it.
    pub fn itf(&self, meta: serde_json::Value) -> serde_json::Value {
        crate::copy_tx::itf::document(&self.config, &self.states, meta, |k| {
            let st = self.steps.get(k.checked_sub(1)?)?;
            Some(serde_json::json!({ "action": st.action, "op": st.op }))
        })
    }

    /// The same trace under `n` frames (n >= its own): the frames added
    /// are never submitted, so they are free in every state.
    pub fn with_frames(&self, n: usize) -> SpecTrace {
        let have = self.config.frames.len();
        assert!((have..=MAX_FRAMES).contains(&n), "{n} frames for a trace of {have}");
        let mut t = self.clone();
        t.config.frames.extend((have..n).map(|f| format!("f{f}")));
        for s in &mut t.states {
            s.free.extend((have..n).map(|f| f as Frame));
        }
        t
    }
}

impl SpecTrace {
    /// The same trace with `n` sockets (n >= its own): the sockets added
    /// stay idle with empty rings in every state.
    pub fn with_sockets(&self, n: usize) -> SpecTrace {
        let have = self.config.sockets.len();
        assert!((have..=8).contains(&n), "{n} sockets for a trace of {have}");
        let mut t = self.clone();
        t.config.sockets.extend((have..n).map(|s| format!("s{}", s + 1)));
        for s in &mut t.states {
            s.tx.resize(n, Vec::new());
            s.call.resize(n, Call::IDLE);
            s.part.resize(n, Vec::new());
            s.drain.resize(n, false);
            s.pubd.resize(n, false);
            s.rewound.resize(n, false);
        }
        t
    }
}
