//! The real-thread runner's machinery, one for every protocol: named
//! worker threads over the same objects the scheduler steps, a stop flag,
//! joins that turn a panic (an assertion of the protocol's code) or a
//! worker's own error into a failure naming the thread; then the joined
//! system goes back to the scheduler, which checks every invariant at
//! that quiescent point and drains it. Not reproducible as an
//! interleaving: the seed seeds each worker's choices. Each protocol
//! keeps only its workers' bodies.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use ringlab_model::rng::Rng;

use super::protocol::Protocol;
use super::sched::Sched;
use super::verdict::{panic_message, Failure};

/// Set once the workers should finish, or as soon as one of them fails.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
    pub fn set(&self) {
        self.0.store(true, Ordering::Release)
    }
}

/// Sets the stop flag when a worker fails or panics, so that the others
/// end soon rather than wait for what the failed one will never do.
struct StopOnFailure(Stop);

impl Drop for StopOnFailure {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.set();
        }
    }
}

/// A worker thread, and what it hands back.
pub struct Worker<T> {
    name: String,
    handle: Option<JoinHandle<Result<T, String>>>,
}

/// The workers of one run: their stop flag and what went wrong.
#[derive(Default)]
pub struct Crew {
    stop: Stop,
    errors: Vec<String>,
}

impl Crew {
    pub fn new() -> Crew {
        Crew::default()
    }

    /// The flag the workers watch.
    pub fn stop(&self) -> Stop {
        self.stop.clone()
    }

    /// A worker named `name` running `body`: Ok its part of the system,
    /// Err what it saw break.
    pub fn spawn<T, F>(&mut self, name: impl Into<String>, body: F) -> Worker<T>
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T, String> + Send + 'static,
    {
        let name = name.into();
        let stop = StopOnFailure(self.stop.clone());
        let handle = thread::Builder::new().name(name.clone()).spawn(move || {
            let r = body();
            if r.is_err() {
                stop.0.set();
            }
            r
        });
        let handle = match handle {
            Ok(h) => Some(h),
            Err(e) => {
                self.errors.push(format!("{name} thread: not started: {e}"));
                None
            }
        };
        Worker { name, handle }
    }

    /// What the worker handed back; None if it failed or panicked (the
    /// failure is kept, with the thread's name, for [`Crew::finish`]).
    pub fn join<T>(&mut self, w: Worker<T>) -> Option<T> {
        let r = match w.handle?.join() {
            Ok(r) => r,
            Err(p) => Err(panic_message(&*p)),
        };
        r.map_err(|m| self.errors.push(format!("{} thread: {m}", w.name)))
            .ok()
    }

    /// Every worker joined: a failure if any failed.
    pub fn finish(self, seed: u64) -> Result<(), Failure> {
        if self.errors.is_empty() {
            return Ok(());
        }
        Err(Failure::at_start(seed, self.errors.join("; ")))
    }
}

/// A preemption point after a worker's step: one time in `one_in` the
/// worker gives up its core. Without it a window between two steps of one
/// thread (a fill-ring entry peeked, not yet taken) is rarely open while
/// another thread runs on one core or a loaded machine, and a race the
/// runner should see goes unseen. Seeded, like the worker's choices.
pub fn preempt(rng: &mut Rng, one_in: u32) {
    if rng.chance(1, one_in) {
        thread::yield_now();
    }
}

/// The system the joined workers left, under the scheduler: every
/// invariant at this quiescent point, then the drain and what must hold
/// after it. The scheduler's counts are the drain's.
pub fn settle<P: Protocol>(sys: P) -> Result<Sched<P>, Failure> {
    let mut s = Sched::over(sys);
    s.check_now("after the threads")?;
    s.drain()?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_or_an_error_is_a_failure_naming_the_thread() {
        let mut crew = Crew::new();
        let stop = crew.stop();
        let ok = crew.spawn("fine", move || {
            while !stop.is_set() {
                thread::yield_now();
            }
            Ok(7)
        });
        let err = crew.spawn("picky", || Err::<u8, _>("saw a stale entry".to_string()));
        let boom = crew.spawn("loud", || -> Result<(), String> { panic!("assertion") });
        crew.stop().set();
        assert_eq!(crew.join(ok), Some(7));
        assert_eq!(crew.join(err), None);
        assert_eq!(crew.join(boom), None);
        let f = crew.finish(3).unwrap_err();
        assert_eq!(
            f.to_string(),
            "seed 3 step 0: picky thread: saw a stale entry; loud thread: assertion"
        );
        assert!(Crew::new().finish(1).is_ok());
    }

    #[test]
    fn a_failed_worker_stops_the_others() {
        for fail in [true, false] {
            let mut crew = Crew::new();
            let stop = crew.stop();
            let waiter = crew.spawn("waiter", move || {
                while !stop.is_set() {
                    thread::yield_now();
                }
                Ok(())
            });
            let w = crew.spawn("failing", move || -> Result<(), String> {
                if fail {
                    panic!("broke");
                }
                Err("broke".into())
            });
            assert_eq!(crew.join(w), None);
            // the waiter ends only because the other failed
            assert_eq!(crew.join(waiter), Some(()));
            assert!(crew.finish(0).unwrap_err().message.contains("failing thread: broke"));
        }
    }
}
