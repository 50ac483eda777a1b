//! The chain from the kernel to the spec: the model runs a scenario with a
//! recorder on, and after every step of specs/XskCopyTx.tla that the
//! kernel takes (the `note*` calls in tx.rs, batch.rs, packet.rs) the
//! recorder keeps the projection of the model's state (project.rs), the
//! action's name and the operation it belongs to. `spec_trace` is the
//! whole run as a trace of the spec, with the spec's constants.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use crate::copy_tx::{first_rejected_with, Action, Call, Config, Rejected, Desc, Frame, Sock, Stage, State, TxResult};

use super::ghost::{Compl, Id, TxSlot};
use super::profile::Profile;
use super::project::{config, CallView, STRAY};
use super::scenario::{Obs, Scenario};
use super::state::Model;
use super::tx::contd;
use super::validate::aligned_valid;

/// XDP_TX_METADATA (uapi if_xdp.h).
const XDP_TX_METADATA: u32 = 1 << 1;
/// Frames are u8 in the spec's Rust model: 255 of them, the stray first.
const MAX_FRAMES: usize = 255;

/// Why a run cannot be projected (not: why the spec rejects it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectionError {
    pub op: usize,
    pub kind: Unprojected,
    pub what: String,
}

/// The kinds of run the projection cannot write as a trace of the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unprojected {
    /// More submissions held at once than the spec's Rust model has
    /// frames (u8: 254 and the stray).
    TooManyFrames,
    /// Something the spec does not model (XDP_TX_METADATA in a batch).
    NotModelled,
    /// The model's steps and the recorder disagree: a bug of the chain.
    Internal,
}

impl fmt::Display for ProjectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operation {}: {}", self.op, self.what)
    }
}

impl std::error::Error for ProjectionError {}

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

/// The recorder a model runs with when its trace is wanted.
#[derive(Debug, Clone)]
pub struct Recorder {
    pub(super) op: usize,
    /// The frame of each live submission (a reaped one has none).
    pub(super) frame_of: HashMap<Id, Frame>,
    /// The address each submission gave.
    pub(super) submitted: HashMap<Id, u64>,
    /// Frames assigned so far that the application owns (the stray too).
    pub(super) owned: BTreeSet<Frame>,
    /// Frames assigned so far: 0 (the stray) up to this.
    fresh: usize,
    /// The skb the driver holds, between XmitSend and DriverFree.
    pub(super) flight: Option<(usize, Vec<TxSlot>)>,
    pub(super) pubd: Vec<bool>,
    /// A descriptor with XDP_PKT_CONTD was submitted.
    contd: bool,
    states: Vec<(State, usize)>,
    steps: Vec<TraceStep>,
    error: Option<ProjectionError>,
}

impl Recorder {
    fn new(sockets: usize) -> Recorder {
        Recorder {
            op: 0,
            frame_of: HashMap::new(),
            submitted: HashMap::new(),
            owned: BTreeSet::from([STRAY]),
            fresh: 1,
            flight: None,
            pubd: vec![false; sockets],
            contd: false,
            states: Vec::new(),
            steps: Vec::new(),
            error: None,
        }
    }

    pub(super) fn err(&self, what: String) -> ProjectionError {
        ProjectionError { op: self.op, kind: Unprojected::Internal, what }
    }

    /// A frame for a new submission: a fresh one while there are, then
    /// the lowest the application owns (its submission was reaped).
    fn assign(&mut self, id: Id) -> Result<Frame, ProjectionError> {
        let f = if self.fresh < MAX_FRAMES {
            self.fresh += 1;
            (self.fresh - 1) as Frame
        } else {
            *self.owned.iter().find(|&&f| f != STRAY).ok_or_else(|| ProjectionError {
                kind: Unprojected::TooManyFrames,
                ..self.err(format!("more than {} submissions held at once", MAX_FRAMES - 1))
            })?
        };
        self.frame_of.insert(id, f);
        Ok(f)
    }

    /// The states with every frame not yet assigned at each step free.
    fn finish(self, m: &Model, obs: Vec<Obs>) -> Result<SpecTrace, ProjectionError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let n = self.fresh;
        let config = config(m, n, self.contd || m.setup.sg);
        let mut states = vec![State::init(&config)];
        for (mut s, fresh) in self.states {
            s.free.extend((fresh..n).map(|f| f as Frame));
            states.push(s);
        }
        Ok(SpecTrace { config, states, steps: self.steps, obs })
    }
}

impl Model {
    /// The end of a step of the spec taken by socket `s`'s sendto, its
    /// call now at `stage`.
    pub(super) fn note(&mut self, s: usize, action: &'static str, stage: Stage, pend: i64, batch: &[TxSlot]) {
        if self.rec.is_some() {
            let hint = Hint { sock: Some(s as Sock), ..Hint::default() };
            self.record(Some((s, CallView { stage, pend, batch })), action, hint);
        }
    }

    /// A step that ends socket `s`'s sendto.
    pub(super) fn note_end(&mut self, s: usize, action: &'static str) {
        self.note(s, action, Stage::Idle, 0, &[]);
    }

    /// The loop's head found the ring empty: the refresh published the
    /// consumer past the packet being built (pubd, PublishFrags "all").
    pub(super) fn note_empty(&mut self, s: usize, action: &'static str) {
        if let Some(r) = &mut self.rec {
            r.pubd[s] = self.socks[s].skb.is_some();
        }
        self.note_end(s, action);
    }

    /// The driver owns the skb of `pkt` (XmitSend or XmitBatchSend "sent").
    pub(super) fn note_sent(&mut self, s: usize, pkt: &[TxSlot], action: &'static str, stage: Stage, batch: &[TxSlot]) {
        if let Some(r) = &mut self.rec {
            r.flight = Some((s, pkt.to_vec()));
            self.note(s, action, stage, 0, batch);
        }
    }

    /// The driver freed the skb of `pkt`: its destructor has completed it.
    pub(super) fn note_freed(&mut self, s: usize, pkt: &[TxSlot], stage: Stage, batch: &[TxSlot]) {
        let Some(r) = &mut self.rec else { return };
        r.flight = None;
        let frame = r.frame_of.get(&pkt[0].id).copied();
        let view = CallView { stage, pend: 0, batch };
        self.record(Some((s, view)), "DriverFree", Hint { frame, ..Hint::default() });
    }

    /// The application submitted `d` on socket `s`.
    pub(super) fn note_submit(&mut self, s: usize, d: &TxSlot) {
        let Some(r) = &mut self.rec else { return };
        if self.profile.tx_batch > 0 && d.options & XDP_TX_METADATA != 0 {
            // A batch's peek stops at any option, the spec's at
            // XDP_PKT_CONTD only: the two would take different runs.
            let what = "XDP_TX_METADATA under a batch profile is not projected".into();
            let e = ProjectionError { kind: Unprojected::NotModelled, ..r.err(what) };
            r.error.get_or_insert(e);
            return;
        }
        let f = match r.assign(d.id) {
            Ok(f) => f,
            Err(e) => {
                r.error.get_or_insert(e);
                return;
            }
        };
        r.submitted.insert(d.id, d.addr);
        r.owned.remove(&f);
        r.contd |= contd(d.options);
        let ok = aligned_valid(d.addr, d.len, d.options, self.setup.frame_size, self.setup.umem_len());
        let desc = Desc { addr: f, ok, contd: contd(d.options) };
        let hint = Hint { sock: Some(s as Sock), frame: Some(f), desc: Some(desc) };
        self.record(None, "UserSubmit", hint);
    }

    /// The application took completion `c` and owns its frame again.
    pub(super) fn note_reap(&mut self, c: &Compl) {
        let Some(r) = &mut self.rec else { return };
        let f = r.compl_frame(&self.profile, c);
        if f != STRAY {
            r.frame_of.remove(&c.id);
        }
        r.owned.insert(f);
        self.record(None, "UserReap", Hint::default());
    }

    /// Socket `s`'s sendto returned: its last step must have ended it.
    pub(super) fn note_returned(&mut self, s: usize) {
        let Some(r) = &mut self.rec else { return };
        let open = r.states.last().map(|(st, _)| st.call[s].stage).filter(|&st| st != Stage::Idle);
        if let Some(stage) = open {
            let e = r.err(format!("socket {s}'s sendto returned with its call at stage {}", stage.id()));
            r.error.get_or_insert(e);
        }
    }

    fn record(&mut self, active: Option<(usize, CallView)>, action: &'static str, hint: Hint) {
        let Some(mut r) = self.rec.take() else { return };
        if r.error.is_none() {
            match r.project(self, active) {
                Ok(mut state) => {
                    // A packet no longer being built was never published past.
                    for (s, p) in state.part.iter().enumerate() {
                        if p.is_empty() {
                            r.pubd[s] = false;
                            state.pubd[s] = false;
                        }
                    }
                    r.states.push((state, r.fresh));
                    r.steps.push(TraceStep { op: r.op, action, hint });
                }
                Err(e) => r.error = Some(e),
            }
        }
        self.rec = Some(r);
    }
}

/// The run of `s` under `p` as a trace of specs/XskCopyTx.tla.
pub fn spec_trace(s: &Scenario, p: &Profile) -> Result<SpecTrace, ProjectionError> {
    let mut m = Model::new(&s.setup, p);
    m.rec = Some(Box::new(Recorder::new(m.socks.len())));
    let mut obs = Vec::with_capacity(s.ops.len() + 1);
    for (i, op) in s.ops.iter().enumerate() {
        if let Some(r) = &mut m.rec {
            r.op = i;
        }
        obs.push(m.apply(op));
    }
    obs.push(Obs::Rings(m.rings()));
    let rec = m.rec.take().expect("the recorder is on");
    rec.finish(&m, obs)
}
