//! The consumer actor: a kernel or user consumer handle, plus the spec's
//! cRd, cEnd (the peeked positions, cRd the next to load), cValid and the
//! position FIFO order expects next.

use super::{Handle, Steps};
use crate::xsk_ring::action::{Action, Choice, Counts, StepError};
use crate::harness::Violation;
use crate::xsk_ring::config::Side;
use ringlab_ring::idx::{add, sub};
use crate::xsk_ring::payload::Payload;
use ringlab_ring::{KernelCons, RingMem, UserCons};
use ringlab_model::rng::Rng;
use ringlab_ring::sync::Ordering::Relaxed;

/// What one ConsRead loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loaded {
    pub pos: u32,
    pub valid: bool,
}

#[derive(Debug)]
pub struct Consumer<R: RingMem> {
    handle: Handle<KernelCons<R>, UserCons<R>>,
    rd: u32,
    end: u32,
    valid: u32,
    expect: u32,
    steps: Steps,
    loaded: u64,
}

impl<R: RingMem> Consumer<R>
where
    R::Entry: Payload,
{
    /// # Safety
    ///
    /// As [`KernelCons::new`] / [`UserCons::new`]: the only consumer of `ring`.
    pub unsafe fn new(side: Side, ring: R, max_batch: u32) -> Self {
        let handle = match side {
            Side::Kernel => Handle::Kernel(KernelCons::new(ring)),
            Side::User => Handle::User(UserCons::new(ring)),
        };
        let mut c = Consumer {
            handle,
            rd: 0,
            end: 0,
            valid: 0,
            expect: 0,
            steps: Steps::new(max_batch),
            loaded: 0,
        };
        (c.rd, c.end, c.expect) = (c.c_cons(), c.c_cons(), c.c_cons());
        c
    }

    pub fn side(&self) -> Side {
        self.handle.side()
    }

    fn ring(&self) -> &R {
        self.handle.q().ring()
    }

    /// Spec cProd: cached_prod.
    pub fn c_prod(&self) -> u32 {
        self.handle.q().cached_prod()
    }

    /// Spec cCons: cached_cons (the user side's moves at peek).
    pub fn c_cons(&self) -> u32 {
        self.handle.q().cached_cons()
    }

    /// Spec cRd.
    pub fn c_rd(&self) -> u32 {
        self.rd
    }

    /// Spec cEnd.
    pub fn c_end(&self) -> u32 {
        self.end
    }

    /// Spec cValid: valid entries loaded since the last release.
    pub fn c_valid(&self) -> u32 {
        self.valid
    }

    /// ->consumer; ours, so a relaxed load sees our last store.
    fn cons(&self) -> u32 {
        self.ring().consumer().load(Relaxed)
    }

    pub fn counts(&self) -> &Counts {
        &self.steps.counts
    }

    /// Entries loaded so far.
    pub fn loaded(&self) -> u64 {
        self.loaded
    }

    /// Kernel guard of a peek: every peeked entry loaded and released.
    fn kernel_idle(&self) -> bool {
        self.rd == self.end && self.c_cons() == self.rd
    }

    /// Spec: ConsPeek. Kernel: xskq_cons_peek_addr_unchecked() /
    /// xskq_cons_peek_desc() up to the load (one entry; `nb` is unused);
    /// user: xsk_ring_cons__peek(nb). Returns how many were peeked.
    pub fn cons_peek(&mut self, nb: u32) -> Result<u32, StepError> {
        if self.rd != self.end || !self.steps.in_batch(nb) {
            return Err(StepError::Disabled);
        }
        let idle = self.kernel_idle();
        let n = match &mut self.handle {
            Handle::Kernel(_) if !idle => return Err(StepError::Disabled),
            Handle::Kernel(k) => k.peek() as u32,
            Handle::User(u) => u.peek(nb).0,
        };
        self.end = add(self.rd, n);
        self.steps.done(Action::ConsPeek, n)
    }

    /// Spec: ConsPeekBatch (kernel only). Kernel: xskq_cons_nb_entries(max),
    /// as xskq_cons_read_desc_batch()'s callers size a batch.
    pub fn cons_peek_batch(&mut self, max: u32) -> Result<u32, StepError> {
        if !self.kernel_idle() || !self.steps.in_batch(max) {
            return Err(StepError::Disabled);
        }
        let Handle::Kernel(k) = &mut self.handle else {
            return Err(StepError::Disabled);
        };
        let n = k.nb_entries(max);
        self.end = add(self.rd, n);
        self.steps.done(Action::ConsPeekBatch, n)
    }

    /// Spec: ConsRead: load the entry at cRd. A violation if it is not the
    /// entry stored for cRd, or cRd is not the position FIFO order expects.
    pub fn cons_read(&mut self) -> Result<Loaded, StepError> {
        if self.rd == self.end {
            return Err(StepError::Disabled);
        }
        let pos = self.rd;
        let e = match &self.handle {
            Handle::Kernel(k) => k.read(pos),
            Handle::User(u) => u.read(pos),
        };
        let expect = self.expect;
        let loaded = Loaded {
            pos,
            valid: e.valid(),
        };
        self.valid += loaded.valid as u32;
        self.rd = add(pos, 1);
        self.expect = add(expect, 1);
        self.loaded += 1;
        self.steps.counts.add(Action::ConsRead);
        if e.pos() != Some(pos) {
            return Err(StepError::Violation(Violation::of(
                "ReadsPublished",
                format!("consumer loaded the entry of {:?} at position {pos}", e.pos()),
            )));
        }
        if pos != expect {
            return Err(StepError::Violation(Violation::of(
                "FifoOrder",
                format!("consumer loaded position {pos}, expected {expect}"),
            )));
        }
        Ok(loaded)
    }

    /// Spec: ConsRelease. Kernel: the release ending xskq_cons_read_desc_batch()
    /// (all examined entries; `nb` is unused), guard: the whole peek is
    /// loaded. User: xsk_ring_cons__release(nb), guard: nb entries loaded
    /// and unreleased. Returns how many were released.
    pub fn cons_release(&mut self, nb: u32) -> Result<u32, StepError> {
        let n = match &mut self.handle {
            Handle::Kernel(k) => {
                let examined = sub(self.end, k.cached_cons());
                if self.rd != self.end || examined == 0 {
                    return Err(StepError::Disabled);
                }
                let before = k.cached_cons();
                k.release_examined(examined, self.valid);
                (self.rd, self.end) = (k.cached_cons(), k.cached_cons());
                sub(k.cached_cons(), before)
            }
            Handle::User(u) => {
                let loaded = sub(self.rd, u.ring().consumer().load(Relaxed));
                if !(1..=loaded).contains(&nb) {
                    return Err(StepError::Disabled);
                }
                u.release(nb);
                nb
            }
        };
        self.valid = 0;
        self.steps.done(Action::ConsRelease, n)
    }

    /// Spec: ConsPublish (kernel only). Kernel: __xskq_cons_release().
    /// Guard: a release not yet published. Returns ->consumer.
    pub fn cons_publish(&mut self) -> Result<u32, StepError> {
        let Handle::Kernel(k) = &self.handle else {
            return Err(StepError::Disabled);
        };
        if self.cons() == k.cached_cons() {
            return Err(StepError::Disabled);
        }
        k.publish();
        let cons = self.cons();
        self.steps.done(Action::ConsPublish, cons)
    }

    /// An enabled action and its parameter, drawn from `rng`.
    pub fn pick(&self, rng: &mut Rng) -> Choice {
        let mb = self.steps.max_batch;
        let reading = self.rd != self.end;
        let cons = self.cons();
        match self.side() {
            Side::Kernel => {
                let idle = self.kernel_idle();
                let weights = [
                    if idle { 4 } else { 0 },
                    if idle { 4 } else { 0 },
                    if reading { 4 } else { 0 },
                    if !reading && self.end != self.c_cons() {
                        4
                    } else {
                        0
                    },
                    if cons != self.c_cons() { 2 } else { 0 },
                ];
                match rng.weighted(&weights) {
                    0 => Choice::ConsPeek(1),
                    1 => Choice::ConsPeekBatch(rng.one_to(mb)),
                    2 => Choice::ConsRead,
                    3 => Choice::ConsRelease(0),
                    _ => Choice::ConsPublish,
                }
            }
            Side::User => {
                let weights = [
                    if !reading { 4 } else { 0 },
                    if reading { 4 } else { 0 },
                    if self.rd != cons { 3 } else { 0 },
                ];
                match rng.weighted(&weights) {
                    0 => Choice::ConsPeek(rng.one_to(mb)),
                    1 => Choice::ConsRead,
                    _ => Choice::ConsRelease(rng.one_to(sub(self.rd, cons))),
                }
            }
        }
    }

    /// Perform a consumer choice. Returns the step function's value
    /// (ConsRead: the position loaded).
    pub fn apply(&mut self, c: Choice) -> Result<u32, StepError> {
        match c {
            Choice::ConsPeek(n) => self.cons_peek(n),
            Choice::ConsPeekBatch(n) => self.cons_peek_batch(n),
            Choice::ConsRead => self.cons_read().map(|l| l.pos),
            Choice::ConsRelease(n) => self.cons_release(n),
            Choice::ConsPublish => self.cons_publish(),
            _ => Err(StepError::Disabled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_ring::{Ring, XdpDesc};
    use ringlab_ring::sync::{Arc, Ordering::Release};

    fn filled(side: Side, n: u32, start: u32) -> Consumer<Arc<Ring<XdpDesc>>> {
        let ring = Arc::new(Ring::new(4, start, XdpDesc::NEVER).unwrap());
        for i in 0..n {
            let pos = start.wrapping_add(i);
            unsafe { ring.write(pos, XdpDesc::entry(pos, i != 1)) };
        }
        ring.producer().store(start.wrapping_add(n), Release);
        unsafe { Consumer::new(side, ring, 4) }
    }

    #[test]
    fn kernel_peeks_loads_releases_publishes() {
        let mut c = filled(Side::Kernel, 3, u32::MAX);
        assert_eq!(c.cons_read(), Err(StepError::Disabled));
        assert_eq!(c.cons_peek_batch(2), Ok(2));
        assert_eq!(
            c.cons_peek(1),
            Err(StepError::Disabled),
            "peek before the batch is loaded"
        );
        assert_eq!(
            c.cons_release(0),
            Err(StepError::Disabled),
            "release before the batch is loaded"
        );
        assert_eq!(
            c.cons_read(),
            Ok(Loaded {
                pos: u32::MAX,
                valid: true
            })
        );
        assert_eq!(
            c.cons_read(),
            Ok(Loaded {
                pos: 0,
                valid: false
            })
        );
        assert_eq!(c.c_valid(), 1);
        assert_eq!(c.cons_release(0), Ok(2));
        assert_eq!(c.cons_publish(), Ok(1));
        assert_eq!(c.cons_publish(), Err(StepError::Disabled));
        assert_eq!(c.cons_peek(1), Ok(1));
        assert_eq!(c.cons_read().unwrap().pos, 1);
    }

    #[test]
    fn user_peeks_loads_and_releases_what_it_loaded() {
        let mut c = filled(Side::User, 3, u32::MAX - 1);
        assert_eq!(c.cons_peek(2), Ok(2));
        assert_eq!(c.c_cons(), c.c_end());
        assert_eq!(
            c.cons_release(1),
            Err(StepError::Disabled),
            "release of an unloaded entry"
        );
        c.cons_read().unwrap();
        assert_eq!(c.cons_release(2), Err(StepError::Disabled));
        assert_eq!(c.cons_release(1), Ok(1));
        assert_eq!(c.cons_publish(), Err(StepError::Disabled));
        assert_eq!(c.cons_peek_batch(1), Err(StepError::Disabled));
    }

    #[test]
    fn a_stale_entry_is_a_violation() {
        let mut c = filled(Side::User, 1, 0);
        unsafe { c.ring().write(0, XdpDesc::entry(4, true)) };
        c.cons_peek(1).unwrap();
        assert!(
            matches!(c.cons_read(), Err(StepError::Violation(v)) if v.detail.contains("entry of Some(4) at position 0"))
        );
    }
}
