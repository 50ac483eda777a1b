//! Devmem receive tokens as a protocol of the harness: [`Devmem`] stepped
//! one action of specs/DevmemTokens.tla at a time, the concrete checks
//! and every spec invariant after each (see [`super::invariants`]), then
//! drained: pending releases finished, every socket closed, every binding
//! unbound, after which every net_iov is back in its pool. OwnTokensOnly
//! is watched, not enforced: the report tells the step it first broke
//! (array mode gives it up).

use std::collections::BTreeMap;

use ringlab_model::devmem::{self as model, Action};
use ringlab_model::rng::Rng;
use serde::Serialize;

use super::config::DevmemConfig;
use super::cost::Cost;
use super::invariants;
use super::system::Devmem;
use crate::harness::{Protocol, Stats, Violation};
use crate::Disabled;

/// The trace header's name of this protocol.
pub const NAME: &str = "devmem";

/// What a clean run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    pub mode: String,
    pub steps: u64,
    /// Invariant checks made (each covers every checked invariant).
    pub checks: u64,
    /// Steps of each action.
    pub actions: BTreeMap<&'static str, u64>,
    /// The step at which a socket first released a token another received
    /// (OwnTokensOnly broke), if one did.
    pub own_tokens_broken_at: Option<u64>,
    pub cost: Cost,
}

impl Protocol for Devmem {
    const NAME: &'static str = NAME;
    type Config = DevmemConfig;
    type Action = Action;
    type Spec = model::State;
    type Report = Report;

    fn new(cfg: DevmemConfig) -> Result<Self, String> {
        Devmem::new(cfg)
    }
    fn config(&self) -> &DevmemConfig {
        &self.cfg
    }
    fn seed(&self) -> u64 {
        self.cfg.seed
    }
    fn name(a: &Action) -> &'static str {
        a.name()
    }
    fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        Devmem::pick(self, rng)
    }

    fn step(&mut self, a: &Action) -> Result<(), Disabled> {
        Devmem::step(self, a)?;
        self.taken += 1;
        if self.own_tokens_broken_at.is_none() && !self.app.stolen.is_empty() {
            self.own_tokens_broken_at = Some(self.taken);
        }
        Ok(())
    }

    /// What only the concrete state shows, then the spec's invariants.
    fn check(&self) -> Result<(), Violation> {
        invariants::concrete(self).map_err(Violation::concrete)?;
        invariants::check(self).map(|_| ())
    }

    /// A pending release finished, else a socket closed, else a binding
    /// unbound, in the config's order; None once all are done.
    fn drain(&mut self, _: &mut Rng) -> Result<Option<Action>, String> {
        let spec = &self.cfg.spec;
        let socks = spec.socks();
        let next = socks
            .iter()
            .find(|&&s| self.pend[spec.sock_index(s)].is_some())
            .map(|&s| Action::DontneedPut { s })
            .or_else(|| {
                socks
                    .iter()
                    .find(|&&s| self.socks[spec.sock_index(s)].is_open())
                    .map(|&s| Action::Close { s })
            })
            .or_else(|| {
                spec.binding_ids()
                    .find(|&b| self.bindings[usize::from(b)].is_bound())
                    .map(|b| Action::Unbind { b })
            });
        Ok(next)
    }

    fn quiescent(&self) -> Result<(), String> {
        invariants::quiescent(self)
    }
    fn project(&self) -> model::State {
        self.model_state()
    }

    fn report(&self, stats: &Stats) -> Report {
        let modes: Vec<&str> = self.cfg.spec.modes.iter().map(|m| m.id()).collect();
        Report {
            seed: self.cfg.seed,
            mode: modes.join("+"),
            steps: stats.steps,
            checks: stats.checks,
            actions: stats.actions.clone(),
            own_tokens_broken_at: self.own_tokens_broken_at,
            cost: self.cost,
        }
    }
}
