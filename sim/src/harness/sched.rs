//! The seeded deterministic scheduler, one for every protocol: one thread,
//! one spec action per step, drawn by the protocol's policy from a
//! generator seeded from the config, so that a seed replays a run
//! exactly. After every step every invariant is checked; the first to
//! break, a panic of the protocol's code or a disabled step stops the run
//! with the seed, the step and the action. Then a drain to a quiescent
//! point, every step still checked.
//!
//! One thread is enough: a scheduler that lets one actor step at a time
//! must hand the turn over through a lock or channel, which orders every
//! memory access of a step before the next; threads taking turns would
//! see the memory one thread sees. Weak memory is the loom tests' and the
//! specs' job; [`super::threads`] runs the same objects free for stress.

use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};

use ringlab_model::rng::Rng;

use super::protocol::{Protocol, Stats};
use super::trace::{Header, TraceWriter};
use super::verdict::{panic_message, Failure, RunError};

/// A deterministic run of the system `sys`.
pub struct Sched<P: Protocol> {
    pub sys: P,
    rng: Rng,
    stats: Stats,
    trace: Option<TraceWriter>,
    trace_err: Option<io::Error>,
}

impl<P: Protocol> Sched<P> {
    /// A run of `cfg`, from the spec's Init.
    pub fn new(cfg: P::Config) -> Result<Self, RunError> {
        Ok(Self::over(P::new(cfg).map_err(RunError::Config)?))
    }

    /// A run over a system as it is (the thread runner's, to drain it),
    /// its generator seeded from the system's seed.
    pub fn over(sys: P) -> Self {
        let seed = sys.seed();
        Sched {
            sys,
            rng: Rng::new(seed),
            stats: Stats {
                seed,
                ..Stats::default()
            },
            trace: None,
            trace_err: None,
        }
    }

    /// Record a trace into `out`: the header (`steps`: the random steps
    /// the run is asked for), the state now as step "Init", then a line
    /// per step. Call it before the first step: the spec starts there.
    pub fn record(&mut self, out: Box<dyn Write + Send>, steps: u64) -> io::Result<()> {
        let header = Header {
            protocol: P::NAME.to_string(),
            seed: self.stats.seed,
            steps,
            mutants: crate::mutants().into_iter().map(String::from).collect(),
            config: self.sys.config(),
        };
        let mut w = TraceWriter::new(out, &header)?;
        w.line(self.stats.steps, "Init", &self.sys.project())?;
        self.trace = Some(w);
        Ok(())
    }

    /// Steps taken (the failing one included).
    pub fn steps(&self) -> u64 {
        self.stats.steps
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub fn report(&self) -> P::Report {
        self.sys.report(&self.stats)
    }

    /// One step: the action, its trace line, then every invariant.
    pub fn apply(&mut self, a: &P::Action) -> Result<(), Failure> {
        self.stats.steps += 1;
        let sys = &mut self.sys;
        match panic::catch_unwind(AssertUnwindSafe(|| sys.step(a))) {
            Ok(Ok(())) => {}
            Ok(Err(d)) => {
                let m = format!("the scheduler chose a disabled step: {d}");
                return Err(self.failure(Some(a), None, m));
            }
            Err(p) => {
                let m = format!("panic: {}", panic_message(&*p));
                // The state the step left, if it can still be read.
                let _ = self.log(a);
                return Err(self.failure(Some(a), None, m));
            }
        }
        *self.stats.actions.entry(P::name(a)).or_default() += 1;
        if let Err(m) = self.log(a) {
            return Err(self.failure(Some(a), None, m));
        }
        self.stats.checks += 1;
        let sys = &self.sys;
        match panic::catch_unwind(AssertUnwindSafe(|| sys.check())) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(v)) => Err(self.failure(Some(a), v.invariant, v.detail)),
            Err(p) => {
                let m = format!("panic in the checks: {}", panic_message(&*p));
                Err(self.failure(Some(a), None, m))
            }
        }
    }

    /// A step the protocol draws from the seed; None if nothing is left.
    pub fn step_random(&mut self) -> Result<Option<P::Action>, Failure> {
        let (sys, rng) = (&mut self.sys, &mut self.rng);
        let picked = panic::catch_unwind(AssertUnwindSafe(|| sys.pick(rng)));
        match picked {
            Ok(Some(a)) => self.apply(&a).map(|()| Some(a)),
            Ok(None) => Ok(None),
            Err(p) => {
                let m = format!("panic choosing a step: {}", panic_message(&*p));
                Err(self.failure(None, None, m))
            }
        }
    }

    /// Every invariant now, outside a step (`when`: where the run is).
    pub fn check_now(&mut self, when: &str) -> Result<(), Failure> {
        let sys = &self.sys;
        match panic::catch_unwind(AssertUnwindSafe(|| sys.check())) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(v)) => Err(self.failure(None, v.invariant, format!("{when}: {}", v.detail))),
            Err(p) => {
                let m = format!("{when}: panic in the checks: {}", panic_message(&*p));
                Err(self.failure(None, None, m))
            }
        }
    }

    /// One step of the drain; None once quiescent.
    pub fn drain_step(&mut self) -> Result<Option<P::Action>, Failure> {
        let (sys, rng) = (&mut self.sys, &mut self.rng);
        match panic::catch_unwind(AssertUnwindSafe(|| sys.drain(rng))) {
            Ok(Ok(Some(a))) => self.apply(&a).map(|()| Some(a)),
            Ok(Ok(None)) => Ok(None),
            Ok(Err(m)) => Err(self.failure(None, None, m)),
            Err(p) => {
                let m = format!("panic choosing a drain step: {}", panic_message(&*p));
                Err(self.failure(None, None, m))
            }
        }
    }

    /// Drain to a quiescent point, then check what must hold there.
    pub fn drain(&mut self) -> Result<(), Failure> {
        while self.drain_step()?.is_some() {}
        self.sys
            .quiescent()
            .map_err(|m| self.failure(None, None, format!("not quiescent after the drain: {m}")))
    }

    /// Up to `steps` random steps, then the drain; the report.
    pub fn run(&mut self, steps: u64) -> Result<P::Report, RunError> {
        for _ in 0..steps {
            if self.step_random()?.is_none() {
                break;
            }
        }
        self.drain()?;
        if let Some(w) = &mut self.trace {
            w.flush()?;
        }
        match self.trace_err.take() {
            Some(e) => Err(RunError::Io(e)),
            None => Ok(self.report()),
        }
    }

    /// The state's trace line; Err if the state cannot be projected.
    fn log(&mut self, a: &P::Action) -> Result<(), String> {
        let Some(w) = self.trace.as_mut() else {
            return Ok(());
        };
        let sys = &self.sys;
        let state = panic::catch_unwind(AssertUnwindSafe(|| sys.project()))
            .map_err(|p| format!("panic in the projection: {}", panic_message(&*p)))?;
        if let Err(e) = w.line(self.stats.steps, &a.to_string(), &state) {
            self.trace_err.get_or_insert(e);
        }
        Ok(())
    }

    fn failure(&mut self, a: Option<&P::Action>, invariant: Option<&'static str>, message: String) -> Failure {
        if let Some(w) = &mut self.trace {
            let _ = w.flush();
        }
        Failure {
            seed: self.stats.seed,
            step: self.stats.steps,
            action: a.map(|a| a.to_string()),
            invariant,
            message,
        }
    }
}

/// A deterministic run of `cfg`: `steps` random steps, then the drain;
/// the trace into `trace` if given.
pub fn run<P: Protocol>(
    cfg: P::Config,
    steps: u64,
    trace: Option<Box<dyn Write + Send>>,
) -> Result<P::Report, RunError> {
    let mut s = Sched::<P>::new(cfg)?;
    if let Some(out) = trace {
        s.record(out, steps)?;
    }
    s.run(steps)
}
