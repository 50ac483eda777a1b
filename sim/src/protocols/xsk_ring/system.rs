//! One ring and its two actors in one place, each spec action a method:
//! what the scheduler steps (through [`crate::harness::Protocol`]), what
//! the comparison with the model drives, and what the thread runner
//! splits across two threads.

use std::fmt;

use crate::harness::Violation;
use crate::xsk_ring::action::{Action, Choice, StepError};
use crate::xsk_ring::actor::{Consumer, Loaded, Producer};
use crate::xsk_ring::config::{ConfigError, SimConfig};
use crate::xsk_ring::payload::Payload;
use ringlab_ring::idx::within;
use ringlab_ring::sync::{Arc, Ordering::Relaxed};
use ringlab_ring::{Ring, RingMem};

pub(crate) type Shared<E> = Arc<Ring<E>>;

/// A ring of `E` entries, its producer actor and its consumer actor.
pub struct XskRing<E: Payload> {
    pub(crate) cfg: SimConfig,
    pub(crate) ring: Shared<E>,
    pub(crate) prod: Producer<Shared<E>>,
    pub(crate) cons: Consumer<Shared<E>>,
    /// What the last step's load broke, for the check after it.
    pub(crate) note: Option<Violation>,
    /// Steps the drain has taken.
    pub(crate) drained: u64,
}

impl<E: Payload> fmt::Debug for XskRing<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XskRing")
            .field("cfg", &self.cfg)
            .field("state", &self.state())
            .finish()
    }
}

impl<E: Payload> XskRing<E> {
    /// The ring `cfg` describes; both counters start at `cfg.start`.
    pub fn new(cfg: SimConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let ring = Arc::new(Ring::new(cfg.size, cfg.start, E::NEVER)?);
        let k = cfg.kind;
        // Safety: this system holds the only producer and consumer of its ring.
        let prod = unsafe {
            Producer::new(k.prod_side(), ring.clone(), cfg.max_batch, k.invalid_descs())
        };
        let cons = unsafe { Consumer::new(k.cons_side(), ring.clone(), cfg.max_batch) };
        Ok(Self::from_parts(cfg, ring, prod, cons))
    }

    pub(crate) fn from_parts(
        cfg: SimConfig,
        ring: Shared<E>,
        prod: Producer<Shared<E>>,
        cons: Consumer<Shared<E>>,
    ) -> Self {
        XskRing {
            cfg,
            ring,
            prod,
            cons,
            note: None,
            drained: 0,
        }
    }

    pub(crate) fn into_parts(self) -> (Shared<E>, Producer<Shared<E>>, Consumer<Shared<E>>) {
        (self.ring, self.prod, self.cons)
    }

    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }
    pub fn producer(&self) -> &Producer<Shared<E>> {
        &self.prod
    }
    pub fn consumer(&self) -> &Consumer<Shared<E>> {
        &self.cons
    }
    /// ->producer and ->consumer.
    pub(crate) fn published(&self) -> (u32, u32) {
        (
            self.ring.producer().load(Relaxed),
            self.ring.consumer().load(Relaxed),
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
            // Safety: one thread runs both actors; no access is concurrent.
            valid: unsafe { self.ring.read(pos) }.valid(),
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

    /// One step: the actor's step function; a load of a position that was
    /// not published breaks ReadsPublished.
    pub fn apply(&mut self, c: Choice) -> Result<u32, StepError> {
        let (prod, cons) = self.published();
        let read_published = within(self.cons.c_rd(), cons, prod);
        let v = if c.action().is_producer() {
            self.prod.apply(c)
        } else {
            self.cons.apply(c)
        }?;
        if c.action() == Action::ConsRead && !read_published {
            return Err(StepError::Violation(Violation::of(
                "ReadsPublished",
                format!("consumer loaded position {v}, which was not published"),
            )));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsk_ring::config::RingKind;

    #[test]
    fn steps_can_be_driven_one_by_one() {
        let mut s = XskRing::<u64>::new(SimConfig::new(RingKind::Fill, 2, u32::MAX, 0)).unwrap();
        assert_eq!(s.prod_write(true), Err(StepError::Disabled));
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
        assert_eq!(s.state().slot, vec![Some(0), Some(u32::MAX)]);
    }
}
