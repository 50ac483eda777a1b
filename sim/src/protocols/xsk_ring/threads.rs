//! Free-running mode: the producer and the consumer actor each on its own
//! OS thread, each drawing its own actions, for stress. What it checks is
//! each load's content and order and the ring code's assertions as it
//! runs; then the harness checks the invariants where the threads
//! stopped and drains the ring.

use crate::harness::{settle, Crew, Failure, RunError};
use crate::xsk_ring::action::{Choice, StepError};
use crate::xsk_ring::config::{RingKind, SimConfig};
use crate::xsk_ring::payload::Payload;
use crate::xsk_ring::protocol::{for_entry, Summary};
use crate::xsk_ring::system::XskRing;
use ringlab_model::rng::Rng;
use ringlab_ring::sync::thread;
use ringlab_ring::XdpDesc;

/// Each actor takes `steps` steps (some may find nothing to do), then the
/// ring is drained on this thread.
pub fn run(cfg: SimConfig, steps: u64) -> Result<Summary, RunError> {
    for_entry!(cfg.kind, E => go::<E>(cfg, steps))
}

fn go<E: Payload>(cfg: SimConfig, steps: u64) -> Result<Summary, RunError> {
    let sys = XskRing::<E>::new(cfg).map_err(|e| RunError::Config(e.to_string()))?;
    let (ring, mut prod, mut cons) = sys.into_parts();
    let mut crew = Crew::new();
    let p = crew.spawn("producer", move || {
        let mut rng = Rng::new(cfg.seed ^ 0x5052_4f44);
        for _ in 0..steps {
            let c = prod.pick(&mut rng);
            match prod.apply(c) {
                Err(StepError::Violation(v)) => return Err(v.to_string()),
                // A full ring: let the consumer run.
                Ok(0) if matches!(c, Choice::ProdReserve(_)) => thread::yield_now(),
                _ => {}
            }
        }
        Ok(prod)
    });
    let c = crew.spawn("consumer", move || {
        let mut rng = Rng::new(cfg.seed ^ 0x434f_4e53);
        for _ in 0..steps {
            let c = cons.pick(&mut rng);
            match cons.apply(c) {
                Err(StepError::Violation(v)) => return Err(v.to_string()),
                // An empty ring: let the producer run.
                Ok(0) if matches!(c, Choice::ConsPeek(_) | Choice::ConsPeekBatch(_)) => {
                    thread::yield_now()
                }
                _ => {}
            }
        }
        Ok(cons)
    });
    let (prod, cons) = (crew.join(p), crew.join(c));
    crew.finish(cfg.seed)?;
    let (Some(prod), Some(cons)) = (prod, cons) else {
        return Err(Failure::at_start(cfg.seed, "a thread handed nothing back").into());
    };
    let sys = settle(XskRing::from_parts(cfg, ring, prod, cons))?;
    Ok(sys.sys.summary())
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
