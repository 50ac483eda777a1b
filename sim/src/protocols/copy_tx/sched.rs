//! The seeded deterministic scheduler: one thread, one spec action per
//! step, the actor (the application, the driver, a socket's kernel side)
//! and its action drawn from a seeded generator, so a seed replays a run
//! exactly. After every step every invariant is checked on the concrete
//! state (see [`super::invariants`]); the first to break stops the run
//! with the seed, the step and the action.

use std::fmt;
use std::panic::{self, AssertUnwindSafe};

use ringlab_model::copy_tx::{Action, Stage, TxResult};

use super::config::CopyTxConfig;
use super::cost::Cost;
use super::invariants::{self, Violation};
use super::sock::XskSock;
use super::system::CopyTx;
use super::umem::is_contd;
use crate::xsk_ring::outcome::panic_message;
use ringlab_ring::RingMem;
use ringlab_model::rng::Rng;
use ringlab_ring::sync::Ordering::Relaxed;

/// A run that broke: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub seed: u64,
    pub step: u64,
    /// The action of the failing step (None: the final checks).
    pub action: Option<String>,
    /// The invariant broken, if it was one (else a panic or a drain).
    pub invariant: Option<&'static str>,
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seed {} step {}", self.seed, self.step)?;
        if let Some(a) = &self.action {
            write!(f, " ({a})")?;
        }
        match self.invariant {
            Some(i) => write!(f, ": invariant {i} violated: {}", self.message),
            None => write!(f, ": {}", self.message),
        }
    }
}

impl std::error::Error for Failure {}

/// What a clean run did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub seed: u64,
    pub steps: u64,
    /// Completions the application took.
    pub completed: u64,
    /// Invariant checks made (each covers every invariant).
    pub checks: u64,
    pub invalid_descs: u64,
    pub cost: Cost,
}

/// What socket k's kernel side may do now, with weights: the stage of its
/// call decides; failures and the driver's other outcomes are rare.
pub fn socket_choices(k: &XskSock, cfg: &CopyTxConfig) -> Vec<(Action, u32)> {
    let s = k.id as u8;
    let fails = cfg.spec.alloc_fails;
    let outcomes = &cfg.spec.outcomes;
    let weight = |o: TxResult| if o == TxResult::Sent { 8 } else { 1 };
    let mut a = Vec::new();
    match k.call.stage {
        Stage::Idle => a.push((Action::Sendto { s }, 1)),
        Stage::Loop if cfg.spec.batch_size > 0 => a.push((Action::XmitBatchReserve { s }, 1)),
        Stage::Loop => a.push((Action::XmitReserve { s }, 1)),
        Stage::Reserving => a.push((Action::XmitReserveStore { s }, 1)),
        Stage::Reserved if is_contd(&k.peeked()) => {
            // A fragment: built into xs->skb, not transmitted.
            if fails {
                a.push((Action::XmitAllocFail { s }, 1));
            }
            a.push((
                Action::XmitSend {
                    s,
                    o: TxResult::Sent,
                },
                8,
            ));
        }
        Stage::Reserved => {
            if fails {
                a.push((Action::XmitAllocFail { s }, 1));
            }
            a.extend(
                outcomes
                    .iter()
                    .map(|&o| (Action::XmitSend { s, o }, weight(o))),
            );
        }
        Stage::BReserved => {
            let pend = k.call.pend as i64;
            if fails {
                a.push((Action::XmitBatchAllocFail { s }, 1));
                a.extend((1..pend).map(|j| (Action::XmitBatchAlloc { s, j }, 1)));
            }
            a.push((Action::XmitBatchAlloc { s, j: pend }, 8));
        }
        Stage::BSend => {
            a.extend(
                outcomes
                    .iter()
                    .map(|&o| (Action::XmitBatchSend { s, o }, weight(o))),
            );
        }
    }
    a
}

/// The deterministic simulation of a copy-mode transmit system.
#[derive(Debug)]
pub struct Sched {
    pub sys: CopyTx,
    rng: Rng,
    step: u64,
    checks: u64,
}

impl Sched {
    /// At most 256 sockets and frames: actions name them as the model does.
    pub fn new(cfg: CopyTxConfig) -> Result<Sched, String> {
        if cfg.frames() > 256 || cfg.sockets() > 256 {
            return Err("the scheduler names at most 256 sockets and frames".into());
        }
        let rng = Rng::new(cfg.seed);
        Ok(Sched {
            sys: CopyTx::new(cfg)?,
            rng,
            step: 0,
            checks: 0,
        })
    }

    /// A scheduler over a system as it is (the real-thread runner's, to
    /// drain it), its generator seeded from `seed`.
    pub fn with(sys: CopyTx, seed: u64) -> Sched {
        Sched {
            sys,
            rng: Rng::new(seed),
            step: 0,
            checks: 0,
        }
    }

    pub fn steps(&self) -> u64 {
        self.step
    }

    /// The actions the application, the driver and each socket may take
    /// now, each actor's with weights.
    fn choices(&mut self) -> Vec<Vec<(Action, u32)>> {
        let sys = &mut self.sys;
        let mut actors = Vec::new();
        let mut user = Vec::new();
        if sys.app.cq_avail() > 0 {
            user.push((Action::UserReap, 4));
        }
        let free: Vec<u32> = sys.app.free.iter().copied().collect();
        for s in 0..sys.socks.len() {
            if free.is_empty() || sys.app.tx_room(s) == 0 {
                continue;
            }
            let f = free[self.rng.below(free.len() as u32) as usize];
            let (one, more) = (sys.app.may_submit(s, false), sys.app.may_submit(s, true));
            let (s, f) = (s as u8, f as u8);
            let submit = |ok, contd| Action::UserSubmit { s, f, ok, contd };
            if one {
                user.push((submit(true, false), 6));
                user.push((submit(false, false), 1));
            }
            if more {
                // XDP_PKT_CONTD: a fragment of a packet, rarely an invalid one.
                user.push((submit(true, true), 6));
                user.push((submit(false, true), 1));
            }
        }
        actors.push(user);
        let skbs: Vec<(u8, u8)> = sys.pool.in_flight(|q| {
            q.iter()
                .map(|k| {
                    (
                        sys.pool.umem.frame(k.addrs[0]).unwrap_or(0) as u8,
                        k.sock as u8,
                    )
                })
                .collect()
        });
        actors.push(
            skbs.into_iter()
                .map(|(f, sock)| (Action::DriverFree { f, sock }, 1))
                .collect(),
        );
        for k in &sys.socks {
            actors.push(socket_choices(k, &sys.cfg));
        }
        actors.retain(|a| !a.is_empty());
        actors
    }

    fn failure(
        &self,
        action: Option<&Action>,
        invariant: Option<&'static str>,
        message: String,
    ) -> Failure {
        Failure {
            seed: self.sys.cfg.seed,
            step: self.step,
            action: action.map(|a| a.to_string()),
            invariant,
            message,
        }
    }

    /// One step: the action, then every invariant. A panic of the ring
    /// code or a disabled action is a failure too.
    pub fn apply(&mut self, a: &Action) -> Result<(), Failure> {
        self.step += 1;
        let sys = &mut self.sys;
        match panic::catch_unwind(AssertUnwindSafe(|| sys.step(a))) {
            Ok(Ok(())) => {}
            Ok(Err(d)) => {
                return Err(self.failure(
                    Some(a),
                    None,
                    format!("the scheduler chose a disabled step: {d}"),
                ))
            }
            Err(p) => {
                return Err(self.failure(Some(a), None, format!("panic: {}", panic_message(&*p))))
            }
        }
        self.checks += 1;
        let checked = panic::catch_unwind(AssertUnwindSafe(|| invariants::check(&self.sys)));
        match checked {
            Ok(Ok(())) => Ok(()),
            Ok(Err(Violation { invariant, detail })) => {
                Err(self.failure(Some(a), Some(invariant), detail))
            }
            Err(p) => Err(self.failure(
                Some(a),
                None,
                format!("panic in the checks: {}", panic_message(&*p)),
            )),
        }
    }

    /// A step of an actor and an action drawn from the seed; None if
    /// nothing is enabled (a deadlock: never, sendto is always possible
    /// for an idle socket).
    pub fn step_random(&mut self) -> Result<Option<Action>, Failure> {
        let actors = self.choices();
        if actors.is_empty() {
            return Ok(None);
        }
        let actor = &actors[self.rng.below(actors.len() as u32) as usize];
        let weights: Vec<u32> = actor.iter().map(|(_, w)| *w).collect();
        let a = actor[self.rng.weighted(&weights)].0;
        self.apply(&a)?;
        Ok(Some(a))
    }

    /// The step that takes socket k's call forward without failing.
    fn finishing(&self, k: usize) -> Option<Action> {
        let c = &self.sys.socks[k].call;
        let s = k as u8;
        let o = TxResult::Sent;
        Some(match c.stage {
            Stage::Idle => return None,
            Stage::Loop if self.sys.cfg.spec.batch_size > 0 => Action::XmitBatchReserve { s },
            Stage::Loop => Action::XmitReserve { s },
            Stage::Reserving => Action::XmitReserveStore { s },
            Stage::Reserved => Action::XmitSend { s, o },
            Stage::BReserved => Action::XmitBatchAlloc {
                s,
                j: c.pend as i64,
            },
            Stage::BSend => Action::XmitBatchSend { s, o },
        })
    }

    /// Drain to a quiescent point, every step still a checked spec step:
    /// finish every call, free every skb, take every completion, end every
    /// open packet, and send what the tx rings still hold; then every
    /// frame must be the application's again.
    pub fn drain(&mut self) -> Result<(), Failure> {
        let n = self.sys.socks.len();
        let rounds = 8 * (self.sys.cfg.frames() + n) + 16;
        for _ in 0..rounds {
            for k in 0..n {
                while let Some(a) = self.finishing(k) {
                    self.apply(&a)?;
                }
            }
            while let Some(a) = self.choices_of_driver() {
                self.apply(&a)?;
            }
            while self.sys.app.cq_avail() > 0 {
                self.apply(&Action::UserReap)?;
            }
            for k in 0..n {
                if let Some(a) = self.ending(k) {
                    self.apply(&a)?;
                }
            }
            let pending: Vec<usize> = (0..n)
                .filter(|&k| {
                    let t = &self.sys.socks[k].tx;
                    t.ring().producer().load(Relaxed) != t.cached_cons()
                })
                .collect();
            if pending.is_empty() {
                return invariants::quiescent(&self.sys).map_err(|m| {
                    self.failure(None, None, format!("not quiescent after the drain: {m}"))
                });
            }
            for k in pending {
                self.apply(&Action::Sendto { s: k as u8 })?;
            }
        }
        Err(self.failure(None, None, format!("not drained after {rounds} rounds")))
    }

    /// The last descriptor of socket k's open packet, if the application
    /// has a frame and the ring a slot for it.
    fn ending(&mut self, k: usize) -> Option<Action> {
        let app = &mut self.sys.app;
        let f = *app.free.iter().next()?;
        (!app.open[k].is_empty() && app.tx_room(k) > 0).then_some(Action::UserSubmit {
            s: k as u8,
            f: f as u8,
            ok: true,
            contd: false,
        })
    }

    /// The driver frees a random skb, if any.
    fn choices_of_driver(&mut self) -> Option<Action> {
        let skbs: Vec<(u8, u8)> = self.sys.pool.in_flight(|q| {
            q.iter()
                .map(|k| {
                    (
                        self.sys.pool.umem.frame(k.addrs[0]).unwrap_or(0) as u8,
                        k.sock as u8,
                    )
                })
                .collect()
        });
        if skbs.is_empty() {
            return None;
        }
        let (f, sock) = skbs[self.rng.below(skbs.len() as u32) as usize];
        Some(Action::DriverFree { f, sock })
    }

    pub fn report(&self) -> Report {
        Report {
            seed: self.sys.cfg.seed,
            steps: self.step,
            completed: self.sys.app.reaped,
            checks: self.checks,
            invalid_descs: self.sys.socks.iter().map(|k| k.invalid_descs).sum(),
            cost: self.sys.cost(),
        }
    }

    /// `steps` random steps, then [`Sched::drain`].
    pub fn run(&mut self, steps: u64) -> Result<Report, Failure> {
        for _ in 0..steps {
            if self.step_random()?.is_none() {
                return Err(self.failure(None, None, "no action is enabled".into()));
            }
        }
        self.drain()?;
        Ok(self.report())
    }
}

/// A deterministic run of `cfg` (its seed) for `steps` steps, then a drain.
pub fn run(cfg: CopyTxConfig, steps: u64) -> Result<Report, Failure> {
    let seed = cfg.seed;
    let mut s = Sched::new(cfg).map_err(|m| Failure {
        seed,
        step: 0,
        action: None,
        invariant: None,
        message: m,
    })?;
    s.run(steps)
}
