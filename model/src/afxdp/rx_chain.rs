//! The receive chain from the kernel to the spec: the model runs a
//! scenario with a receive recorder on, and after every step of
//! specs/XskRx.tla the kernel takes (the `note_*` calls in rx.rs) the
//! recorder keeps the projection of the model's state (rx_project.rs)
//! and the action. The generic path takes, per frame: XdpRun (the
//! program's verdict; xsk_rcv_check's rx_dropped for a frame longer than
//! a chunk), then for a frame it redirects RxLock, XpAllocFree or
//! XpAllocPeek and XpAllocTake or XpAllocFail, XskRcvReserve (unless the
//! allocation failed), XskFlush. Each fill address is a UserFill, each
//! descriptor read a UserRecv. `rx_spec_trace` is the whole run.

use std::collections::HashMap;

use crate::xsk_rx::{Action, Config, Fate, Pkt, Recv, Stage, State, Verdict};

use super::profile::Profile;
use super::rx_project::{going, rx_config};
use super::rx_trace::{Refusal, Refused, RxStep, RxTrace};
use super::scenario::{Obs, Scenario};
use super::state::Model;

/// The one CPU.
const C: u8 = 0;

/// What deliver did, as rx.rs notes it.
pub(super) enum Rcv {
    /// xsk_rcv_check: longer than a chunk, rx_dropped.
    TooLong,
    /// The program redirected it and pool->rx_lock is taken.
    Locked,
    /// No buffer: rx_dropped.
    AllocFail,
    /// Its descriptor (this chunk) is on the RX ring, not yet published.
    Reserved(u64),
    /// The RX ring was full: rx_queue_full, the buffer to the free list.
    Full,
    /// xsk_flush and the unlock.
    Flushed,
}

/// What xp_alloc did.
pub(super) enum Alloc {
    /// This chunk from the pool's free list.
    Free(u64),
    /// The fill ring's entry at cached_cons read: this chunk.
    Peek(u64),
    /// cached_cons moved past it.
    Take,
}

/// The recorder a model runs with when its receive trace is wanted.
#[derive(Debug, Clone)]
pub struct RxRecorder {
    op: usize,
    pub(super) cfg: Config,
    pub(super) arrived: u32,
    pub(super) fate: Vec<Fate>,
    /// cpu[c1]: the receive in progress.
    pub(super) cpu: Recv,
    /// pool->rx_lock is held.
    pub(super) locked: bool,
    /// The RX socket whose last descriptor xsk_flush has not published.
    pub(super) unpub: Option<usize>,
    /// The packet of each chunk put on an RX ring.
    pub(super) pkt_of: HashMap<u64, Pkt>,
    states: Vec<State>,
    steps: Vec<RxStep>,
    error: Option<Refused>,
}

impl RxRecorder {
    fn new(cfg: Config) -> RxRecorder {
        RxRecorder {
            op: 0,
            fate: vec![Fate::None; usize::from(cfg.max_pkts)],
            states: vec![State::init(&cfg)],
            cfg,
            arrived: 0,
            cpu: Recv::IDLE,
            locked: false,
            unpub: None,
            pkt_of: HashMap::new(),
            steps: Vec::new(),
            error: None,
        }
    }

    pub(super) fn internal(&self, what: String) -> Refused {
        Refused { op: self.op, kind: Refusal::Internal, what }
    }

    /// A packet arrives: its number, its fate set.
    fn arrive(&mut self, f: Fate) -> Pkt {
        self.arrived += 1;
        self.fate[self.arrived as usize - 1] = f;
        self.arrived as Pkt
    }

    /// The receive ends with fate `f`: Finish's stage "flush".
    fn finish(&mut self, f: Fate) {
        self.fate[usize::from(self.cpu.pkt) - 1] = f;
        self.cpu.stage = Stage::Flush;
        self.cpu.bufs.clear();
    }

    fn push(&mut self, m: &Model, action: Action) {
        match self.project(m) {
            Ok(s) => {
                self.states.push(s);
                self.steps.push(RxStep { op: self.op, action });
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Steps whose states follow from the last one by `edit`, the last of
    /// them the projection of `m`.
    fn push_derived(&mut self, m: &Model, actions: Vec<(Action, Box<dyn Fn(&mut State) + '_>)>) -> Result<(), Refused> {
        let mut cur = self.states.last().cloned().expect("Init");
        for (a, edit) in actions {
            edit(&mut cur);
            self.states.push(cur.clone());
            self.steps.push(RxStep { op: self.op, action: a });
        }
        let now = self.project(m)?;
        if now != cur {
            return Err(self.internal(format!("the model's state is not the one its steps lead to: {now:?}, not {cur:?}")));
        }
        Ok(())
    }
}

impl Model {
    /// Runs `f` on the recorder, if one is on and nothing stopped it.
    fn with_rx_rec(&mut self, f: impl FnOnce(&mut RxRecorder, &Model)) {
        let Some(mut r) = self.rx_rec.take() else { return };
        if r.error.is_none() {
            f(&mut r, self);
        }
        self.rx_rec = Some(r);
    }

    /// The program returned XDP_DROP or XDP_PASS (an empty XSKMAP entry's
    /// fallback included).
    pub(super) fn note_verdict(&mut self, v: Verdict) {
        self.with_rx_rec(|r, m| {
            r.arrive(if v == Verdict::Drop { Fate::XdpDrop } else { Fate::XdpPass });
            r.push(m, Action::XdpRun { c: C, v, k: 1, len: 1 });
        });
    }

    /// A step of deliver for RX socket `s`.
    pub(super) fn note_rcv(&mut self, s: usize, what: Rcv) {
        let k = s as u8 + 1;
        self.with_rx_rec(|r, m| match what {
            Rcv::TooLong => {
                r.arrive(Fate::RxDropped);
                r.push(m, Action::XdpRun { c: C, v: Verdict::Redirect, k, len: 2 });
            }
            Rcv::Locked => {
                let p = r.arrive(Fate::Busy);
                r.cpu = going(p, k);
                r.push(m, Action::XdpRun { c: C, v: Verdict::Redirect, k, len: 1 });
                r.locked = true;
                r.cpu.stage = Stage::Alloc;
                r.push(m, Action::RxLock { c: C });
            }
            Rcv::AllocFail => {
                r.finish(Fate::RxDropped);
                r.push(m, Action::XpAllocFail { c: C });
            }
            Rcv::Reserved(chunk) => {
                r.pkt_of.insert(chunk, r.cpu.pkt);
                r.unpub = Some(s);
                r.finish(Fate::Rx);
                r.push(m, Action::XskRcvReserve { c: C });
            }
            Rcv::Full => {
                r.finish(Fate::RxQueueFull);
                r.push(m, Action::XskRcvReserve { c: C });
            }
            Rcv::Flushed => {
                r.unpub = None;
                r.locked = false;
                r.cpu = Recv::IDLE;
                r.push(m, Action::XskFlush { c: C });
            }
        });
    }

    /// A step of xp_alloc.
    pub(super) fn note_alloc(&mut self, what: Alloc) {
        self.with_rx_rec(|r, m| match what {
            Alloc::Free(chunk) => {
                r.cpu.bufs.push(m.rx_buf(chunk));
                r.push(m, Action::XpAllocFree { c: C });
            }
            Alloc::Peek(chunk) => {
                r.cpu.peek = Some(m.rx_buf(chunk));
                r.push(m, Action::XpAllocPeek { c: C });
            }
            Alloc::Take => {
                let Some(b) = r.cpu.peek.take() else {
                    r.error = Some(r.internal("a take without a peek".into()));
                    return;
                };
                r.cpu.bufs.push(b);
                r.push(m, Action::XpAllocTake { c: C });
            }
        });
    }

    /// The application submitted `addrs` on the fill ring: a UserFill
    /// each, of a buffer it must hold.
    pub(super) fn note_fill(&mut self, addrs: &[u64]) {
        self.with_rx_rec(|r, m| {
            let before = r.states.last().expect("Init").ufree.clone();
            let mut seen = std::collections::BTreeSet::new();
            for &a in addrs {
                let b = m.rx_buf(a);
                if !before.contains(&b) || !seen.insert(b) {
                    let place = if seen.contains(&b) && before.contains(&b) { "already in this fill".into() } else { where_before(r, b) };
                    let what = format!("the fill hands in chunk {a:#x} (buffer {b}), which the application does not hold: it is {place}");
                    r.error = Some(Refused { op: r.op, kind: Refusal::FillNotOwned, what });
                    return;
                }
            }
            let steps = addrs
                .iter()
                .map(|&a| {
                    let b = m.rx_buf(a);
                    let f: Box<dyn Fn(&mut State)> = Box::new(move |s: &mut State| {
                        s.ufree.remove(&b);
                        s.fq.push(b);
                    });
                    (Action::UserFill { b }, f)
                })
                .collect();
            if let Err(e) = r.push_derived(m, steps) {
                r.error = Some(e);
            }
        });
    }

    /// The application read `n` descriptors of RX socket `s`: a UserRecv
    /// each.
    pub(super) fn note_recv(&mut self, s: usize, n: usize) {
        self.with_rx_rec(|r, m| {
            let steps = (0..n)
                .map(|_| {
                    let f: Box<dyn Fn(&mut State)> = Box::new(move |st: &mut State| {
                        let d = st.rx[s].remove(0);
                        st.rx_pub[s] -= 1;
                        st.ufree.insert(d.buf);
                    });
                    (Action::UserRecv { s: s as u8 + 1 }, f)
                })
                .collect();
            if let Err(e) = r.push_derived(m, steps) {
                r.error = Some(e);
            }
        });
    }
}

/// Where buffer `b` is in the recorder's last state, in words.
fn where_before(r: &RxRecorder, b: u8) -> String {
    let s = r.states.last().expect("Init");
    if s.fq.contains(&b) {
        "on the fill ring".into()
    } else if s.kfree.contains(&b) {
        "on the pool's free list".into()
    } else if let Some(k) = s.rx.iter().position(|q| q.iter().any(|d| d.buf == b)) {
        format!("on RX ring {}", k + 1)
    } else {
        "held by a receive".into()
    }
}

/// The receive of `s` under `p` as a trace of specs/XskRx.tla, or why it
/// is refused.
pub fn rx_spec_trace(s: &Scenario, p: &Profile) -> Result<RxTrace, Refused> {
    let cfg = rx_config(s)?;
    let mut m = Model::new(&s.setup, p);
    let rec = RxRecorder::new(cfg.clone());
    let start = rec.project(&m)?;
    if start != rec.states[0] {
        return Err(rec.internal(format!("the model's first state is not Init: {start:?}")));
    }
    m.rx_rec = Some(Box::new(rec));
    let mut obs = Vec::with_capacity(s.ops.len() + 1);
    for (i, op) in s.ops.iter().enumerate() {
        if let Some(r) = &mut m.rx_rec {
            r.op = i;
        }
        obs.push(m.apply(op));
    }
    obs.push(Obs::Rings(m.rings()));
    let r = m.rx_rec.take().expect("the recorder is on");
    if let Some(e) = r.error {
        return Err(e);
    }
    Ok(RxTrace { config: cfg, states: r.states, steps: r.steps, obs })
}
