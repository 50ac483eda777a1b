//! Copy-mode transmit as a protocol of the harness: [`CopyTx`] stepped
//! one spec action of specs/XskCopyTx.tla at a time, every invariant
//! after each (see [`super::invariants`]), drained until every frame is
//! the application's again.

use ringlab_model::copy_tx::{self as model, Action};
use ringlab_model::rng::Rng;
use serde::Serialize;

use super::config::CopyTxConfig;
use super::cost::Cost;
use super::invariants;
use super::system::CopyTx;
use crate::harness::{Protocol, Stats, Violation};
use crate::Disabled;

/// The trace header's name of this protocol.
pub const NAME: &str = "copy_tx";

/// What a clean run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    pub steps: u64,
    /// Completions the application took.
    pub completed: u64,
    /// Invariant checks made (each covers every invariant).
    pub checks: u64,
    pub invalid_descs: u64,
    pub cost: Cost,
}

impl Protocol for CopyTx {
    const NAME: &'static str = NAME;
    type Config = CopyTxConfig;
    type Action = Action;
    type Spec = model::State;
    type Report = Report;

    /// At most 256 sockets and frames: actions name them as the model does.
    fn new(cfg: CopyTxConfig) -> Result<Self, String> {
        if cfg.frames() > 256 || cfg.sockets() > 256 {
            return Err("the scheduler names at most 256 sockets and frames".into());
        }
        CopyTx::new(cfg)
    }
    fn config(&self) -> &CopyTxConfig {
        &self.cfg
    }
    fn seed(&self) -> u64 {
        self.cfg.seed
    }
    fn name(a: &Action) -> &'static str {
        a.name()
    }
    fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        CopyTx::pick(self, rng)
    }
    fn step(&mut self, a: &Action) -> Result<(), Disabled> {
        CopyTx::step(self, a)
    }
    fn check(&self) -> Result<(), Violation> {
        invariants::check(self)
    }
    fn drain(&mut self, rng: &mut Rng) -> Result<Option<Action>, String> {
        self.drain_next(rng)
    }
    fn quiescent(&self) -> Result<(), String> {
        invariants::quiescent(self)
    }
    fn project(&self) -> model::State {
        self.model_state()
    }
    fn report(&self, stats: &Stats) -> Report {
        Report {
            seed: self.cfg.seed,
            steps: stats.steps,
            completed: self.app.reaped,
            checks: stats.checks,
            invalid_descs: self.socks.iter().map(|k| k.invalid_descs).sum(),
            cost: self.cost(),
        }
    }
}
