//! The ring as a protocol of the harness: an actor and its action drawn
//! from the seed, the invariants after each step, and a drain that stores
//! and submits everything reserved and lets the consumer take and hand
//! back every published entry.

use std::fmt;
use std::io::Write;

use ringlab_model::rng::Rng;
use ringlab_ring::idx::sub;
use ringlab_ring::XdpDesc;
use serde::Serialize;

use crate::harness::{self, Protocol, RawTrace, Replayed, RunError, Stats, Violation};
use crate::xsk_ring::action::{Choice, Counts, StepError};
use crate::xsk_ring::config::{RingKind, Side, SimConfig};
use crate::xsk_ring::invariants;
use crate::xsk_ring::payload::Payload;
use crate::xsk_ring::project::State;
use crate::xsk_ring::system::XskRing;
use crate::Disabled;

/// The trace header's name of this protocol.
pub const NAME: &str = "xsk_ring";

impl<E: Payload> Protocol for XskRing<E> {
    const NAME: &'static str = NAME;
    type Config = SimConfig;
    type Action = Choice;
    type Spec = State;
    type Report = Summary;

    fn new(cfg: SimConfig) -> Result<Self, String> {
        XskRing::new(cfg).map_err(|e| e.to_string())
    }
    fn config(&self) -> &SimConfig {
        &self.cfg
    }
    fn seed(&self) -> u64 {
        self.cfg.seed
    }
    fn name(c: &Choice) -> &'static str {
        c.action().spec_name()
    }

    /// The producer or the consumer, even odds, then its own choice.
    fn pick(&mut self, rng: &mut Rng) -> Option<Choice> {
        Some(if rng.chance(1, 2) {
            self.prod.pick(rng)
        } else {
            self.cons.pick(rng)
        })
    }

    fn step(&mut self, c: &Choice) -> Result<(), Disabled> {
        self.note = None;
        match self.apply(*c) {
            Ok(_) => Ok(()),
            Err(StepError::Disabled) => Err(Disabled::new(
                c.action().spec_name(),
                format!("its guard is false for {c:?}"),
            )),
            // The step happened: the check after it reports what it broke.
            Err(StepError::Violation(v)) => {
                self.note = Some(v);
                Ok(())
            }
        }
    }

    /// What the last load broke (ReadsPublished, FifoOrder), then the
    /// invariants on the counters (see [`invariants::check`]).
    fn check(&self) -> Result<(), Violation> {
        if let Some(v) = &self.note {
            return Err(v.clone());
        }
        let k = self.cfg.kind;
        invariants::check(&self.snapshot(false), self.cfg.size, k.prod_side(), k.cons_side())
    }

    /// The next step towards an empty ring; fails if the ring is not
    /// empty within a bound (a published entry never handed back: the
    /// spec's EveryEntryConsumed).
    fn drain(&mut self, rng: &mut Rng) -> Result<Option<Choice>, String> {
        let Some(c) = self.drain_choice(rng) else {
            return Ok(None);
        };
        let bound = 8 * self.cfg.size as u64 + 32;
        if self.drained >= bound {
            let s = self.snapshot(false);
            return Err(format!(
                "not drained: ->producer {} ->consumer {} cached_cons {} after {bound} steps",
                s.prod, s.cons, s.c_cons
            ));
        }
        self.drained += 1;
        Ok(Some(c))
    }

    fn project(&self) -> State {
        self.state()
    }

    fn report(&self, _: &Stats) -> Summary {
        self.summary()
    }
}

impl<E: Payload> XskRing<E> {
    /// The next step towards an empty ring; `None` once it is empty.
    fn drain_choice(&mut self, rng: &mut Rng) -> Option<Choice> {
        let (prod, cons) = self.published();
        let mb = self.cfg.max_batch;
        let p = &self.prod;
        if p.p_wr() != p.p_prod() {
            return Some(Choice::ProdWrite(
                !self.cfg.kind.invalid_descs() || !rng.chance(1, 4),
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

    /// What the actors did, and where the counters ended.
    pub fn summary(&self) -> Summary {
        let mut counts = *self.prod.counts();
        counts.merge(self.cons.counts());
        let (prod, cons) = self.published();
        Summary {
            seed: self.cfg.seed,
            steps: counts.total(),
            published: self.prod.published(),
            loaded: self.cons.loaded(),
            counts,
            prod,
            cons,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub seed: u64,
    /// Steps the actors took.
    pub steps: u64,
    /// Entries the producer submitted.
    pub published: u64,
    /// Entries the consumer loaded.
    pub loaded: u64,
    pub counts: Counts,
    /// ->producer and ->consumer at the end.
    pub prod: u32,
    pub cons: u32,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "steps: {}", self.steps)?;
        writeln!(f, "entries produced: {}", self.published)?;
        writeln!(f, "entries consumed: {}", self.loaded)?;
        writeln!(f, "->producer {} ->consumer {}", self.prod, self.cons)?;
        for (a, n) in self.counts.nonzero() {
            writeln!(f, "  {a:<14} {n}")?;
        }
        Ok(())
    }
}

/// `$body` with `$E` the entry type of ring kind `$kind`.
macro_rules! for_entry {
    ($kind:expr, $E:ident => $body:expr) => {
        match $kind {
            RingKind::Fill | RingKind::Comp => {
                type $E = u64;
                $body
            }
            RingKind::Rx | RingKind::Tx => {
                type $E = XdpDesc;
                $body
            }
        }
    };
}
pub(crate) use for_entry;

/// A deterministic run of the ring `cfg` describes: `steps` steps, then
/// the drain; the trace into `trace` if given.
pub fn run(
    cfg: SimConfig,
    steps: u64,
    trace: Option<Box<dyn Write + Send>>,
) -> Result<Summary, RunError> {
    for_entry!(cfg.kind, E => harness::run::<XskRing<E>>(cfg, steps, trace))
}

/// Replay a trace of this protocol (see [`harness::replay()`]).
pub fn replay(trace: &RawTrace) -> Result<Replayed, RunError> {
    let cfg: SimConfig = serde_json::from_value(trace.header.config.clone())
        .map_err(|e| RunError::Config(format!("the trace's config: {e}")))?;
    for_entry!(cfg.kind, E => harness::replay::<XskRing<E>>(trace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::{Sched, SharedBuf};
    use crate::xsk_ring::trace_of;
    use ringlab_ring::sync::Ordering::Relaxed;
    use ringlab_ring::RingMem;

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
        let mut a = Sched::<XskRing<XdpDesc>>::new(cfg(RingKind::Tx, 4, 11)).unwrap();
        let mut b = Sched::<XskRing<XdpDesc>>::new(cfg(RingKind::Tx, 4, 11)).unwrap();
        for _ in 0..300 {
            let (x, y) = (a.step_random(), b.step_random());
            assert_eq!(x, y);
            if x.is_err() {
                break;
            }
            assert_eq!(a.sys.state(), b.sys.state());
        }
    }

    #[test]
    fn a_broken_invariant_is_reported() {
        let s = XskRing::<u64>::new(SimConfig::new(RingKind::Rx, 2, 0, 0)).unwrap();
        // Another producer (there must be none) publishes behind the actor's back.
        s.ring.producer().store(3, Relaxed);
        let e = Protocol::check(&s).unwrap_err();
        assert_eq!(e.invariant, Some("InFlightBounded"), "{e}");
    }

    #[test]
    fn a_trace_is_recorded_per_step_and_replays() {
        let buf = SharedBuf::default();
        let r = run(cfg(RingKind::Comp, 4, 3), 50, Some(Box::new(buf.clone())));
        let t = trace_of(&buf.bytes()[..]).unwrap();
        assert_eq!(t.header.config.kind.prod_side(), Side::Kernel);
        assert_eq!(t.lines.len() as u64, t.lines.last().unwrap().step + 1);
        assert_eq!(t.lines.len() as u64, r.unwrap().steps + 1);
        let raw = RawTrace::parse(&buf.bytes()[..]).unwrap();
        let again = replay(&raw).unwrap();
        assert!(again.ok(), "{again}");
        assert_eq!(again.lines, t.lines.len());
    }
}
