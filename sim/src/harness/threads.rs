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

use super::protocol::Protocol;
use super::sched::Sched;
use super::verdict::{panic_message, Failure};

/// Set once the workers should finish.
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
        let handle = thread::Builder::new().name(name.clone()).spawn(body);
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
}
