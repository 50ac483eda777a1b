//! The seeded deterministic simulator: one producer actor and one consumer
//! actor over one ring, one spec action per step, the actor and action
//! drawn from a seeded generator, so a seed replays a run exactly.
//!
//! It runs on one thread. A scheduler that lets one actor step at a time
//! must hand the turn over through a lock or channel, which orders every
//! memory access of one step before the next step: two threads taking turns
//! would see exactly the memory one thread sees running the same steps in
//! the same order, at more cost and with nondeterminism to remove. Weak
//! memory is what the loom tests and the spec's ProdWriteAhead and
//! ConsReadAhead cover; [`crate::threads`] runs the same actors free on two
//! threads for stress.

use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};

use crate::xsk_ring::action::{Action, Choice, StepError};
use crate::xsk_ring::actor::{Consumer, Loaded, Producer};
use crate::xsk_ring::config::{ConfigError, RingKind, Side, SimConfig};
use ringlab_ring::idx::{sub, within};
use crate::xsk_ring::invariants;
use crate::xsk_ring::outcome::{panic_message, Failure, RunError, Summary};
use crate::xsk_ring::payload::Payload;
use ringlab_ring::{Ring, RingMem, XdpDesc};
use ringlab_model::rng::Rng;
use ringlab_ring::sync::{Arc, Ordering::Relaxed};
use crate::xsk_ring::trace::{Header, State, TraceWriter};

type Shared<E> = Arc<Ring<E>>;

/// A deterministic simulation over a ring of `E` entries.
#[derive(Debug)]
pub struct Sim<E: Payload> {
    cfg: SimConfig,
    ring: Shared<E>,
    prod: Producer<Shared<E>>,
    cons: Consumer<Shared<E>>,
    rng: Rng,
    step: u64,
    trace: Option<TraceWriter>,
    trace_err: Option<io::Error>,
}

impl<E: Payload> Sim<E> {
    /// A simulation of `cfg`; both counters start at `cfg.start`.
    pub fn new(cfg: SimConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let ring = Arc::new(Ring::new(cfg.size, cfg.start, E::NEVER)?);
        // Safety: this simulation holds the only producer and consumer of its ring.
        let prod = unsafe {
            Producer::new(
                cfg.kind.prod_side(),
                ring.clone(),
                cfg.max_batch,
                cfg.kind.invalid_descs(),
            )
        };
        let cons = unsafe { Consumer::new(cfg.kind.cons_side(), ring.clone(), cfg.max_batch) };
        Ok(Self::from_parts(cfg, ring, prod, cons))
    }

    pub(crate) fn from_parts(
        cfg: SimConfig,
        ring: Shared<E>,
        prod: Producer<Shared<E>>,
        cons: Consumer<Shared<E>>,
    ) -> Self {
        let step = prod.counts().total() + cons.counts().total();
        Sim {
            cfg,
            ring,
            prod,
            cons,
            rng: Rng::new(cfg.seed),
            step,
            trace: None,
            trace_err: None,
        }
    }

    pub(crate) fn into_parts(self) -> (Shared<E>, Producer<Shared<E>>, Consumer<Shared<E>>) {
        (self.ring, self.prod, self.cons)
    }

    /// Record a trace into `out`: the header, an "Init" line, then a line per
    /// step. Call it before the first step: the spec must start there.
    pub fn record(&mut self, out: Box<dyn Write + Send>) -> io::Result<()> {
        let k = self.cfg.kind;
        let header = Header {
            ring: k.name().into(),
            size: self.cfg.size,
            start: self.cfg.start,
            max_batch: self.cfg.max_batch,
            seed: self.cfg.seed,
            prod_side: k.prod_side().name().into(),
            cons_side: k.cons_side().name().into(),
            invalid_descs: k.invalid_descs(),
            mutants: crate::mutants().into_iter().map(String::from).collect(),
        };
        let mut w = TraceWriter::new(out, &header)?;
        w.line(self.step, "Init", &self.state())?;
        self.trace = Some(w);
        Ok(())
    }

    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }
    /// Steps taken (disabled choices are not steps).
    pub fn steps(&self) -> u64 {
        self.step
    }
    pub fn producer(&self) -> &Producer<Shared<E>> {
        &self.prod
    }
    pub fn consumer(&self) -> &Consumer<Shared<E>> {
        &self.cons
    }

    /// The spec's observed variables now.
    pub fn state(&self) -> State {
        self.snapshot(true)
    }

    /// The counters, and the slots only if asked (a check needs none, and a
    /// large ring's slots cost a read each).
    fn snapshot(&self, slots: bool) -> State {
        let n = if slots { self.cfg.size } else { 0 };
        let entries: Vec<E> = (0..n)
            .map(|s| unsafe {
                // Safety: one thread runs both actors; no access is concurrent.
                self.ring.read(s)
            })
            .collect();
        State {
            prod: self.ring.producer().load(Relaxed),
            cons: self.ring.consumer().load(Relaxed),
            p_prod: self.prod.p_prod(),
            p_cons: self.prod.p_cons(),
            p_wr: self.prod.p_wr(),
            c_prod: self.cons.c_prod(),
            c_cons: self.cons.c_cons(),
            c_rd: self.cons.c_rd(),
            c_end: self.cons.c_end(),
            slot: entries.iter().map(|e| e.pos()).collect(),
            slot_ok: entries
                .iter()
                .map(|e| e.pos().is_none() || e.valid())
                .collect(),
        }
    }

    /// The spec's safety invariants on the counters now; see
    /// [`crate::xsk_ring::invariants::check`].
    pub fn check(&self) -> Result<(), String> {
        let k = self.cfg.kind;
        invariants::check(
            &self.snapshot(false),
            self.cfg.size,
            k.prod_side(),
            k.cons_side(),
        )
    }

    /// Spec: ProdReserve. See [`Producer::prod_reserve`].
    pub fn prod_reserve(&mut self, n: u32) -> Result<u32, StepError> {
        self.apply(Choice::ProdReserve(n))
    }
    /// Spec: ProdWrite. See [`Producer::prod_write`].
    pub fn prod_write(&mut self, valid: bool) -> Result<u32, StepError> {
        self.apply(Choice::ProdWrite(valid))
    }
    /// Spec: ProdSubmit. See [`Producer::prod_submit`].
    pub fn prod_submit(&mut self, n: u32) -> Result<u32, StepError> {
        self.apply(Choice::ProdSubmit(n))
    }
    /// Spec: ProdCancel. See [`Producer::prod_cancel`].
    pub fn prod_cancel(&mut self, n: u32) -> Result<u32, StepError> {
        self.apply(Choice::ProdCancel(n))
    }
    /// Spec: ConsPeek. See [`Consumer::cons_peek`].
    pub fn cons_peek(&mut self, nb: u32) -> Result<u32, StepError> {
        self.apply(Choice::ConsPeek(nb))
    }
    /// Spec: ConsPeekBatch. See [`Consumer::cons_peek_batch`].
    pub fn cons_peek_batch(&mut self, max: u32) -> Result<u32, StepError> {
        self.apply(Choice::ConsPeekBatch(max))
    }
    /// Spec: ConsRead. See [`Consumer::cons_read`]; also a violation if the
    /// position was not published.
    pub fn cons_read(&mut self) -> Result<Loaded, StepError> {
        let pos = self.cons.c_rd();
        self.apply(Choice::ConsRead).map(|_| Loaded {
            pos,
            valid: self.ring_valid(pos),
        })
    }
    /// Spec: ConsRelease. See [`Consumer::cons_release`].
    pub fn cons_release(&mut self, nb: u32) -> Result<u32, StepError> {
        self.apply(Choice::ConsRelease(nb))
    }
    /// Spec: ConsPublish. See [`Consumer::cons_publish`].
    pub fn cons_publish(&mut self) -> Result<u32, StepError> {
        self.apply(Choice::ConsPublish)
    }

    fn ring_valid(&self, pos: u32) -> bool {
        // Safety: one thread runs both actors; no access is concurrent.
        unsafe { self.ring.read(pos) }.valid()
    }

    /// One step: the actor's step function, then the checks and the trace
    /// line. A disabled choice is no step.
    pub fn apply(&mut self, c: Choice) -> Result<u32, StepError> {
        let read_published = within(
            self.cons.c_rd(),
            self.ring.consumer().load(Relaxed),
            self.ring.producer().load(Relaxed),
        );
        let r = if c.action().is_producer() {
            self.prod.apply(c)
        } else {
            self.cons.apply(c)
        };
        if r == Err(StepError::Disabled) {
            return r;
        }
        self.step += 1;
        self.log(c.action());
        let v = r?;
        if c.action() == Action::ConsRead && !read_published {
            return Err(StepError::Violation(format!(
                "consumer loaded position {v}, which was not published"
            )));
        }
        self.check().map_err(StepError::Violation)?;
        Ok(v)
    }

    fn log(&mut self, a: Action) {
        if self.trace.is_none() {
            return;
        }
        let state = self.state();
        if let Some(w) = &mut self.trace {
            if let Err(e) = w.line(self.step, a.spec_name(), &state) {
                self.trace_err.get_or_insert(e);
            }
        }
    }

    /// A step of an actor and an action drawn from the seed.
    pub fn step_random(&mut self) -> Result<Choice, Failure> {
        let c = if self.rng.chance(1, 2) {
            self.prod.pick(&mut self.rng)
        } else {
            self.cons.pick(&mut self.rng)
        };
        self.guarded(c).map(|_| c)
    }

    /// `apply`, with a panic in the ring code turned into a failure (after
    /// logging the state the step left).
    fn guarded(&mut self, c: Choice) -> Result<u32, Failure> {
        match panic::catch_unwind(AssertUnwindSafe(|| self.apply(c))) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(StepError::Disabled)) => Err(self.failure(
                c.action(),
                format!("the scheduler chose a disabled action {c:?}"),
            )),
            Ok(Err(StepError::Violation(m))) => Err(self.failure(c.action(), m)),
            Err(p) => {
                self.step += 1;
                self.log(c.action());
                Err(self.failure(c.action(), panic_message(&*p)))
            }
        }
    }

    fn failure(&mut self, a: Action, message: String) -> Failure {
        if let Some(w) = &mut self.trace {
            let _ = w.flush();
        }
        Failure {
            seed: self.cfg.seed,
            step: self.step,
            action: Some(a),
            message,
        }
    }

    /// `steps` random steps, then [`Sim::drain`].
    pub fn run(&mut self, steps: u64) -> Result<Summary, RunError> {
        for _ in 0..steps {
            self.step_random().map_err(RunError::Failed)?;
        }
        self.drain().map_err(RunError::Failed)?;
        if let Some(w) = &mut self.trace {
            w.flush().map_err(RunError::Io)?;
        }
        match self.trace_err.take() {
            Some(e) => Err(RunError::Io(e)),
            None => Ok(self.summary()),
        }
    }

    /// Finish: store and submit everything reserved, and let the consumer
    /// take and hand back every published entry. Each step is still a spec
    /// step. Fails if the ring is not empty within a bound (a published
    /// entry never handed back: the spec's EveryEntryConsumed).
    pub fn drain(&mut self) -> Result<(), Failure> {
        let size = self.cfg.size as u64;
        let bound = self.step + 8 * size + 32;
        loop {
            let Some(c) = self.drain_choice() else {
                return Ok(());
            };
            if self.step >= bound {
                let s = self.state();
                let m = format!(
                    "not drained: ->producer {} ->consumer {} cached_cons {} after {} steps",
                    s.prod,
                    s.cons,
                    s.c_cons,
                    8 * size + 32
                );
                return Err(Failure {
                    seed: self.cfg.seed,
                    step: self.step,
                    action: None,
                    message: m,
                });
            }
            self.guarded(c)?;
        }
    }

    /// The next step towards an empty ring; `None` once it is empty.
    fn drain_choice(&mut self) -> Option<Choice> {
        let (prod, cons) = (
            self.ring.producer().load(Relaxed),
            self.ring.consumer().load(Relaxed),
        );
        let mb = self.cfg.max_batch;
        let p = &self.prod;
        if p.p_wr() != p.p_prod() {
            return Some(Choice::ProdWrite(
                !self.cfg.kind.invalid_descs() || !self.rng.chance(1, 4),
            ));
        }
        if p.p_wr() != prod {
            return Some(Choice::ProdSubmit(mb.min(sub(p.p_wr(), prod))));
        }
        let c = &self.cons;
        if c.c_rd() != c.c_end() {
            return Some(Choice::ConsRead);
        }
        match c.side() {
            Side::Kernel if c.c_end() != c.c_cons() => Some(Choice::ConsRelease(0)),
            Side::Kernel if cons != c.c_cons() => Some(Choice::ConsPublish),
            Side::User if c.c_rd() != cons => Some(Choice::ConsRelease(sub(c.c_rd(), cons))),
            _ if cons != prod => Some(if c.side() == Side::Kernel {
                Choice::ConsPeekBatch(mb)
            } else {
                Choice::ConsPeek(mb)
            }),
            _ => None,
        }
    }

    pub fn summary(&self) -> Summary {
        let mut counts = *self.prod.counts();
        counts.merge(self.cons.counts());
        Summary {
            seed: self.cfg.seed,
            steps: self.step,
            published: self.prod.published(),
            loaded: self.cons.loaded(),
            counts,
            prod: self.ring.producer().load(Relaxed),
            cons: self.ring.consumer().load(Relaxed),
        }
    }
}

/// A deterministic run of `steps` steps (then a drain) of the ring `cfg`
/// describes, recording a trace into `trace` if given.
pub fn run(
    cfg: SimConfig,
    steps: u64,
    trace: Option<Box<dyn Write + Send>>,
) -> Result<Summary, RunError> {
    fn go<E: Payload>(
        cfg: SimConfig,
        steps: u64,
        trace: Option<Box<dyn Write + Send>>,
    ) -> Result<Summary, RunError> {
        let mut sim = Sim::<E>::new(cfg)?;
        if let Some(t) = trace {
            sim.record(t).map_err(RunError::Io)?;
        }
        sim.run(steps)
    }
    match cfg.kind {
        RingKind::Fill | RingKind::Comp => go::<u64>(cfg, steps, trace),
        RingKind::Rx | RingKind::Tx => go::<XdpDesc>(cfg, steps, trace),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(kind: RingKind, size: u32, seed: u64) -> SimConfig {
        SimConfig::new(kind, size, u32::MAX - 5, seed)
    }

    #[test]
    fn every_ring_runs_clean_and_wraps() {
        for kind in RingKind::ALL {
            for size in [1, 2, 4, 8] {
                for seed in 0..8 {
                    let r = run(cfg(kind, size, seed), 400, None);
                    let s = r.unwrap_or_else(|e| panic!("{kind} size {size}: {e}"));
                    assert_eq!(s.published, s.loaded);
                    assert_eq!(s.prod, s.cons);
                    assert!(
                        s.published > 6,
                        "{kind} size {size} seed {seed}: only {} entries, no wrap",
                        s.published
                    );
                }
            }
        }
    }

    #[test]
    fn the_same_seed_replays_the_same_run() {
        let mut a = Sim::<XdpDesc>::new(cfg(RingKind::Tx, 4, 11)).unwrap();
        let mut b = Sim::<XdpDesc>::new(cfg(RingKind::Tx, 4, 11)).unwrap();
        for _ in 0..300 {
            let (x, y) = (a.step_random(), b.step_random());
            assert_eq!(x, y);
            if x.is_err() {
                break;
            }
            assert_eq!(a.state(), b.state());
        }
    }

    #[test]
    fn steps_can_be_driven_one_by_one() {
        let mut s = Sim::<u64>::new(SimConfig::new(RingKind::Fill, 2, u32::MAX, 0)).unwrap();
        assert_eq!(s.prod_write(true), Err(StepError::Disabled));
        assert_eq!(s.steps(), 0);
        assert_eq!(s.prod_reserve(2), Ok(2));
        assert_eq!(s.prod_write(true), Ok(u32::MAX));
        assert_eq!(s.prod_write(true), Ok(0));
        assert_eq!(s.prod_submit(2), Ok(1));
        assert_eq!(s.cons_peek(1), Ok(1));
        assert_eq!(
            s.cons_read(),
            Ok(Loaded {
                pos: u32::MAX,
                valid: true
            })
        );
        assert_eq!(s.cons_release(0), Ok(1));
        assert_eq!(s.cons_publish(), Ok(0));
        assert_eq!(s.steps(), 8);
        assert_eq!(s.state().slot, vec![Some(0), Some(u32::MAX)]);
        s.drain().unwrap();
        assert_eq!(s.summary().loaded, 2);
    }

    #[test]
    fn a_broken_invariant_is_reported() {
        let s = Sim::<u64>::new(SimConfig::new(RingKind::Rx, 2, 0, 0)).unwrap();
        // Another producer (there must be none) publishes behind the actor's back.
        s.ring.producer().store(3, Relaxed);
        let e = s.check().unwrap_err();
        assert!(e.contains("in flight"), "{e}");
    }

    #[test]
    fn a_trace_is_recorded_per_step() {
        #[derive(Clone, Default)]
        struct Buf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Buf {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().write(b)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let buf = Buf::default();
        let r = run(cfg(RingKind::Comp, 4, 3), 50, Some(Box::new(buf.clone())));
        let t = crate::xsk_ring::trace::Trace::parse(&buf.0.lock().unwrap()[..]).unwrap();
        assert_eq!(t.header.prod_side, "kernel");
        assert_eq!(t.lines.len() as u64, t.lines.last().unwrap().step + 1);
        assert_eq!(t.lines.len() as u64, r.unwrap().steps + 1);
    }
}
