//! Free-running mode: the producer and the consumer actor each on its own
//! OS thread, each drawing its own actions, for stress. Not reproducible;
//! what it checks is each load's content and order, and the ring code's
//! assertions, then (on the main thread) that the ring drains.

use crate::xsk_ring::action::{Choice, StepError};
use crate::xsk_ring::config::{RingKind, SimConfig};
use crate::xsk_ring::outcome::{panic_message, Failure, RunError, Summary};
use crate::xsk_ring::payload::Payload;
use ringlab_ring::XdpDesc;
use ringlab_model::rng::Rng;
use crate::xsk_ring::sched::Sim;
use ringlab_ring::sync::thread;

/// Each actor takes `steps` steps (some may find nothing to do), then the
/// ring is drained on this thread.
pub fn run(cfg: SimConfig, steps: u64) -> Result<Summary, RunError> {
    match cfg.kind {
        RingKind::Fill | RingKind::Comp => go::<u64>(cfg, steps),
        RingKind::Rx | RingKind::Tx => go::<XdpDesc>(cfg, steps),
    }
}

fn go<E: Payload>(cfg: SimConfig, steps: u64) -> Result<Summary, RunError> {
    let (ring, mut prod, mut cons) = Sim::<E>::new(cfg)?.into_parts();
    let fail = |who: &str, message: String| Failure {
        seed: cfg.seed,
        step: 0,
        action: None,
        message: format!("{who}: {message}"),
    };
    let p = thread::spawn(move || {
        let mut rng = Rng::new(cfg.seed ^ 0x5052_4f44);
        for _ in 0..steps {
            let c = prod.pick(&mut rng);
            match prod.apply(c) {
                Err(StepError::Violation(m)) => return Err(m),
                // A full ring: let the consumer run.
                Ok(0) if matches!(c, Choice::ProdReserve(_)) => thread::yield_now(),
                _ => {}
            }
        }
        Ok(prod)
    });
    let c = thread::spawn(move || {
        let mut rng = Rng::new(cfg.seed ^ 0x434f_4e53);
        for _ in 0..steps {
            let c = cons.pick(&mut rng);
            match cons.apply(c) {
                Err(StepError::Violation(m)) => return Err(m),
                // An empty ring: let the producer run.
                Ok(0) if matches!(c, Choice::ConsPeek(_) | Choice::ConsPeekBatch(_)) => {
                    thread::yield_now()
                }
                _ => {}
            }
        }
        Ok(cons)
    });
    fn joined<T>(h: thread::JoinHandle<Result<T, String>>) -> Result<T, String> {
        match h.join() {
            Ok(r) => r,
            Err(p) => Err(panic_message(&*p)),
        }
    }
    let p = joined(p).map_err(|m| fail("producer thread", m));
    let c = joined(c).map_err(|m| fail("consumer thread", m));
    let (prod, cons) = (p.map_err(RunError::Failed)?, c.map_err(RunError::Failed)?);
    let mut sim = Sim::from_parts(cfg, ring, prod, cons);
    sim.check()
        .map_err(|m| RunError::Failed(fail("after the threads", m)))?;
    sim.drain().map_err(RunError::Failed)?;
    Ok(sim.summary())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_run_every_ring_clean() {
        for kind in RingKind::ALL {
            for size in [1, 4] {
                let r = run(SimConfig::new(kind, size, u32::MAX - 100, 5), 20_000);
                let s = r.unwrap_or_else(|e| panic!("{kind} size {size}: {e}"));
                assert_eq!(s.published, s.loaded);
                assert_eq!(s.prod, s.cons);
            }
        }
    }
}
