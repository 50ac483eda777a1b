//! The producer actor: a kernel or user producer handle, plus the spec's
//! pWr (the next reserved position not yet stored).

use super::{Handle, Steps};
use crate::xsk_ring::action::{Action, Choice, Counts, StepError};
use crate::xsk_ring::config::Side;
use ringlab_ring::idx::{add, sub};
use crate::xsk_ring::payload::Payload;
use ringlab_ring::{KernelProd, RingMem, UserProd};
use ringlab_model::rng::Rng;
use ringlab_ring::sync::Ordering::Relaxed;

#[derive(Debug)]
pub struct Producer<R: RingMem> {
    handle: Handle<KernelProd<R>, UserProd<R>>,
    wr: u32,
    invalid_descs: bool,
    steps: Steps,
    published: u64,
}

impl<R: RingMem> Producer<R>
where
    R::Entry: Payload,
{
    /// # Safety
    ///
    /// As [`KernelProd::new`] / [`UserProd::new`]: the only producer of `ring`.
    pub unsafe fn new(side: Side, ring: R, max_batch: u32, invalid_descs: bool) -> Self {
        let handle = match side {
            Side::Kernel => Handle::Kernel(KernelProd::new(ring)),
            Side::User => Handle::User(UserProd::new(ring)),
        };
        let mut p = Producer {
            handle,
            wr: 0,
            invalid_descs,
            steps: Steps::new(max_batch),
            published: 0,
        };
        p.wr = p.p_prod();
        p
    }

    pub fn side(&self) -> Side {
        self.handle.side()
    }

    fn ring(&self) -> &R {
        self.handle.q().ring()
    }

    /// Spec pProd: cached_prod.
    pub fn p_prod(&self) -> u32 {
        self.handle.q().cached_prod()
    }

    /// Spec pCons: cached_cons (the user side's is offset by +size).
    pub fn p_cons(&self) -> u32 {
        self.handle.q().cached_cons()
    }

    /// Spec pWr.
    pub fn p_wr(&self) -> u32 {
        self.wr
    }

    /// ->producer; ours, so a relaxed load sees our last store.
    fn prod(&self) -> u32 {
        self.ring().producer().load(Relaxed)
    }

    pub fn counts(&self) -> &Counts {
        &self.steps.counts
    }

    /// Entries made visible to the consumer so far.
    pub fn published(&self) -> u64 {
        self.published
    }

    /// Spec: ProdReserve. Kernel: xskq_prod_nb_free() + cached_prod += k
    /// (k = min(free, n)); user: xsk_ring_prod__reserve(n), all or nothing.
    /// Guard: every reserved entry is stored. Returns how many were reserved.
    pub fn prod_reserve(&mut self, n: u32) -> Result<u32, StepError> {
        if self.wr != self.p_prod() || !self.steps.in_batch(n) {
            return Err(StepError::Disabled);
        }
        let k = match &mut self.handle {
            Handle::Kernel(k) => k.reserve_n(n),
            Handle::User(u) => u.reserve(n).map_or(0, |_| n),
        };
        self.steps.done(Action::ProdReserve, k)
    }

    /// Spec: ProdWrite. Stores the entry for position pWr (its own position,
    /// with `valid` only on rings that carry invalid descriptors). Returns it.
    pub fn prod_write(&mut self, valid: bool) -> Result<u32, StepError> {
        if self.wr == self.p_prod() || (!valid && !self.invalid_descs) {
            return Err(StepError::Disabled);
        }
        let pos = self.wr;
        let e = R::Entry::entry(pos, valid);
        match &self.handle {
            Handle::Kernel(k) => k.write(pos, e),
            Handle::User(u) => u.write(pos, e),
        }
        self.wr = add(pos, 1);
        self.steps.done(Action::ProdWrite, pos)
    }

    /// Spec: ProdSubmit. Kernel: xskq_prod_submit_n(n); user:
    /// xsk_ring_prod__submit(n). Guard: n stored entries are unsubmitted.
    /// Returns the new ->producer.
    pub fn prod_submit(&mut self, n: u32) -> Result<u32, StepError> {
        let prod = self.prod();
        if !self.steps.in_batch(n) || n > sub(self.wr, prod) {
            return Err(StepError::Disabled);
        }
        match &self.handle {
            Handle::Kernel(k) => k.submit_n(n),
            Handle::User(u) => u.submit(n),
        }
        self.published += n as u64;
        self.steps.done(Action::ProdSubmit, add(prod, n))
    }

    /// Spec: ProdCancel (kernel only). Kernel: xskq_prod_cancel_n(n).
    /// Guard: all reserved are stored and n are unsubmitted. Returns the new
    /// cached_prod.
    pub fn prod_cancel(&mut self, n: u32) -> Result<u32, StepError> {
        let unsubmitted = sub(self.p_prod(), self.prod());
        let Handle::Kernel(k) = &mut self.handle else {
            return Err(StepError::Disabled);
        };
        if self.wr != k.cached_prod() || !(1..=self.steps.max_batch.min(unsubmitted)).contains(&n) {
            return Err(StepError::Disabled);
        }
        k.cancel_n(n);
        self.wr = k.cached_prod();
        let p = self.wr;
        self.steps.done(Action::ProdCancel, p)
    }

    /// An enabled action and its parameter, drawn from `rng`.
    pub fn pick(&self, rng: &mut Rng) -> Choice {
        let (prod, p_prod, mb) = (self.prod(), self.p_prod(), self.steps.max_batch);
        let kernel = self.side() == Side::Kernel;
        let weights = [
            if self.wr == p_prod { 4 } else { 0 },
            if self.wr != p_prod { 4 } else { 0 },
            if self.wr != prod { 4 } else { 0 },
            if kernel && self.wr == p_prod && p_prod != prod {
                1
            } else {
                0
            },
        ];
        match rng.weighted(&weights) {
            0 => Choice::ProdReserve(rng.one_to(mb)),
            1 => Choice::ProdWrite(!self.invalid_descs || !rng.chance(1, 4)),
            2 => Choice::ProdSubmit(rng.one_to(mb.min(sub(self.wr, prod)))),
            _ => Choice::ProdCancel(rng.one_to(mb.min(sub(p_prod, prod)))),
        }
    }

    /// Perform a producer choice. Returns the step function's value.
    pub fn apply(&mut self, c: Choice) -> Result<u32, StepError> {
        match c {
            Choice::ProdReserve(n) => self.prod_reserve(n),
            Choice::ProdWrite(v) => self.prod_write(v),
            Choice::ProdSubmit(n) => self.prod_submit(n),
            Choice::ProdCancel(n) => self.prod_cancel(n),
            _ => Err(StepError::Disabled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_ring::Ring;
    use ringlab_ring::sync::Arc;

    fn producer(side: Side) -> Producer<Arc<Ring<u64>>> {
        let ring = Arc::new(Ring::new(4, u32::MAX - 1, u64::NEVER).unwrap());
        unsafe { Producer::new(side, ring, 2, false) }
    }

    #[test]
    fn guards_follow_the_spec() {
        for side in [Side::Kernel, Side::User] {
            let mut p = producer(side);
            assert_eq!(p.prod_write(true), Err(StepError::Disabled));
            assert_eq!(p.prod_submit(1), Err(StepError::Disabled));
            assert_eq!(p.prod_reserve(3), Err(StepError::Disabled));
            assert_eq!(p.prod_reserve(2), Ok(2));
            assert_eq!(
                p.prod_reserve(1),
                Err(StepError::Disabled),
                "reserve before all are stored"
            );
            assert_eq!(
                p.prod_write(false),
                Err(StepError::Disabled),
                "invalid on a ring without them"
            );
            assert_eq!(p.prod_write(true), Ok(u32::MAX - 1));
            assert_eq!(
                p.prod_submit(2),
                Err(StepError::Disabled),
                "submit of an unstored entry"
            );
            assert_eq!(p.prod_submit(1), Ok(u32::MAX));
            assert_eq!(p.prod_write(true), Ok(u32::MAX));
            assert_eq!(p.p_wr(), 0);
            let cancel = p.prod_cancel(1);
            match side {
                Side::Kernel => assert_eq!(cancel, Ok(u32::MAX)),
                Side::User => assert_eq!(cancel, Err(StepError::Disabled)),
            }
        }
    }
}
