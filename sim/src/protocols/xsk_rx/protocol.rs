//! AF_XDP receive as a protocol of the harness: [`XskRx`] stepped one
//! action of specs/XskRx.tla at a time, the concrete checks and every
//! spec invariant after each (see [`super::invariants`]), then drained:
//! every receive finished, the poll ended, every release done, every
//! published descriptor read.

use std::collections::BTreeMap;

use ringlab_model::rng::Rng;
use ringlab_model::xsk_rx::{self as model, Action};
use serde::Serialize;

use super::config::XskRxConfig;
use super::cost::Cost;
use super::invariants;
use super::system::XskRx;
use crate::harness::{Protocol, Stats, Violation};
use crate::Disabled;

/// The trace header's name of this protocol.
pub const NAME: &str = "xsk_rx";

/// Drain steps at most: a drain that needs more does not end.
const DRAIN_BOUND: u64 = 100_000;

/// What a clean run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    pub path: &'static str,
    pub redirect: &'static str,
    pub steps: u64,
    /// Invariant checks made (each covers every invariant).
    pub checks: u64,
    /// Steps of each action.
    pub actions: BTreeMap<&'static str, u64>,
    /// Packets by fate.
    pub fates: BTreeMap<&'static str, u64>,
    pub cost: Cost,
}

impl Protocol for XskRx {
    const NAME: &'static str = NAME;
    type Config = XskRxConfig;
    type Action = Action;
    type Spec = model::State;
    type Report = Report;

    fn new(cfg: XskRxConfig) -> Result<Self, String> {
        XskRx::new(cfg)
    }
    fn config(&self) -> &XskRxConfig {
        &self.cfg
    }
    fn seed(&self) -> u64 {
        self.cfg.seed
    }
    fn name(a: &Action) -> &'static str {
        a.name()
    }
    fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        XskRx::pick(self, rng)
    }
    fn step(&mut self, a: &Action) -> Result<(), Disabled> {
        XskRx::step(self, a)
    }

    /// What only the concrete state shows, then the spec's invariants.
    fn check(&self) -> Result<(), Violation> {
        invariants::concrete(self).map_err(Violation::concrete)?;
        invariants::check(self).map(|_| ())
    }

    fn drain(&mut self, _: &mut Rng) -> Result<Option<Action>, String> {
        let drained = self.drain_steps;
        self.drain_steps += 1;
        if drained > DRAIN_BOUND {
            return Err(format!("the drain did not end in {DRAIN_BOUND} steps"));
        }
        Ok(self.drain_next())
    }

    fn quiescent(&self) -> Result<(), String> {
        invariants::quiescent(self)
    }
    fn project(&self) -> model::State {
        self.model_state()
    }

    fn report(&self, stats: &Stats) -> Report {
        let mut fates = BTreeMap::new();
        for f in self.rxq.fates() {
            *fates.entry(f.id()).or_default() += 1;
        }
        Report {
            seed: self.cfg.seed,
            path: self.cfg.spec.path.id(),
            redirect: self.cfg.spec.redirect.id(),
            steps: stats.steps,
            checks: stats.checks,
            actions: stats.actions.clone(),
            fates,
            cost: self.cost,
        }
    }
}
