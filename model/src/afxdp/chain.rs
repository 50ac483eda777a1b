//! The chain from the kernel to the spec: the model runs a scenario with a
//! recorder on, and after every step of specs/XskCopyTx.tla that the
//! kernel takes (the `note*` calls in tx.rs, batch.rs, packet.rs) the
//! recorder keeps the projection of the model's state (project.rs), the
//! action's name and the operation it belongs to. `spec_trace` is the
//! whole run as a trace of the spec, with the spec's constants.

use std::collections::{BTreeSet, HashMap};

use crate::copy_tx::{Desc, Frame, Sock, Stage, State};

use super::ghost::{Compl, Id, TxSlot};
use super::profile::Profile;
use super::project::{config, CallView, STRAY};
use super::scenario::{Obs, Scenario};
use super::trace::{Hint, ProjectionError, SpecTrace, TraceStep, Unprojected, MAX_FRAMES};
use super::state::Model;
use super::tx::contd;
use super::validate::aligned_valid;

/// XDP_TX_METADATA (uapi if_xdp.h).
const XDP_TX_METADATA: u32 = 1 << 1;

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
