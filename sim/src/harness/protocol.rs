//! What a protocol gives the harness: a state built from a config, its
//! actions named as in its spec, a policy drawing the next action, its
//! invariants, a drain to a quiescent point, and a projection to the
//! spec's variables. The harness does the rest (scheduler, threads'
//! join, trace, replay, verdict) the same way for every protocol.

use std::collections::BTreeMap;
use std::fmt::{Debug, Display};

use ringlab_model::rng::Rng;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::verdict::Violation;
use crate::Disabled;

/// A protocol the harness runs: the system of objects itself (`Self`),
/// stepped one spec action at a time on one thread.
pub trait Protocol: Sized {
    /// The name a trace header carries: the protocol's folder.
    const NAME: &'static str;
    /// What a run is; a trace header carries it, replay rebuilds from it.
    type Config: Clone + Debug + Serialize + DeserializeOwned;
    /// An action with its parameters; Display as the spec names it.
    type Action: Clone + Debug + Display;
    /// The spec's variables, as [`Protocol::project`] reads them.
    type Spec: Serialize;
    /// What a clean run did.
    type Report: Debug + Serialize;

    /// The system `cfg` describes, in the spec's Init; Err if `cfg`
    /// cannot be run (bad input).
    fn new(cfg: Self::Config) -> Result<Self, String>;
    fn config(&self) -> &Self::Config;
    /// The seed of the run (the config's).
    fn seed(&self) -> u64;
    /// The spec action `a` is an instance of (no parameters).
    fn name(a: &Self::Action) -> &'static str;

    /// The next action, drawn from `rng` by the protocol's own policy;
    /// None: nothing is left to do (the run goes on to the drain). It
    /// must draw exactly as the protocol always has: a seed is a run.
    fn pick(&mut self, rng: &mut Rng) -> Option<Self::Action>;
    /// One spec action. Disabled: its guard is false, nothing changed.
    fn step(&mut self, a: &Self::Action) -> Result<(), Disabled>;
    /// Every invariant on the state now, the first broken named.
    fn check(&self) -> Result<(), Violation>;

    /// The next step towards a quiescent point, None once there; Err if
    /// the drain cannot get there (its bound passed).
    fn drain(&mut self, rng: &mut Rng) -> Result<Option<Self::Action>, String>;
    /// What must hold once drained (every frame, token or entry back).
    fn quiescent(&self) -> Result<(), String> {
        Ok(())
    }

    /// The spec's variables now. Call it from the one thread running
    /// the system.
    fn project(&self) -> Self::Spec;
    /// What the run did, given the scheduler's counts.
    fn report(&self, stats: &Stats) -> Self::Report;
}

/// What the scheduler counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub seed: u64,
    /// Steps taken (a drain's too).
    pub steps: u64,
    /// Checks made after steps, each of every invariant.
    pub checks: u64,
    /// Steps of each spec action.
    pub actions: BTreeMap<&'static str, u64>,
}
