//! specs/XskCopyTx.tla as Rust: copy-mode AF_XDP transmit, sockets sharing
//! one completion queue, each spec action a method of State with the same
//! name in snake_case (user.rs: the application, xmit.rs: the kernel's
//! per-descriptor loop, batch.rs: seed 000's batch, driver.rs: the driver).

mod action;
mod batch;
mod config;
mod driver;
mod invariants;
pub mod itf;
mod next;
mod state;
mod steps;
pub mod tla;
mod user;
mod xmit;

pub use action::Action;
pub use config::{Config, Design, DropFrags, ModelCfg, Mutant, PublishFrags, TxResult};
pub use invariants::{invariant, Invariant, INVARIANTS};
pub use steps::{first_rejected, first_rejected_with, Rejected};
pub use state::{permutations, symmetry_group, Call, Desc, Frame, Skb, Slot, Sock, Stage, State};

use crate::explore::{bfs, ExploreResult, SpecMachine};

/// The spec under one model: its constants, the invariants to check, and
/// the permutations of its SYMMETRY (none: the identity alone).
#[derive(Clone, Debug)]
pub struct Machine {
    pub config: Config,
    pub invariants: Vec<Invariant>,
    perms: Vec<(Vec<Frame>, Vec<Sock>)>,
}

impl Machine {
    /// Every invariant, without symmetry.
    pub fn new(config: Config) -> Machine {
        Machine {
            config,
            invariants: INVARIANTS.to_vec(),
            perms: Vec::new(),
        }
    }

    /// What a .cfg file asks for: its invariants in order, and SYMMETRY
    /// Perms (the spec's only permutation set).
    pub fn from_model_cfg(m: &ModelCfg) -> Result<Machine, String> {
        let invariants = m
            .invariants
            .iter()
            .map(|n| invariant(n).ok_or_else(|| format!("the model has no invariant {n}")))
            .collect::<Result<_, _>>()?;
        let perms = match m.symmetry.as_deref() {
            None => Vec::new(),
            Some("Perms") => symmetry_group(&m.config),
            Some(other) => return Err(format!("the spec has no symmetry set {other}")),
        };
        Ok(Machine {
            config: m.config.clone(),
            invariants,
            perms,
        })
    }

    /// Reduce by frame and socket permutations (SYMMETRY Perms).
    pub fn with_symmetry(mut self) -> Machine {
        self.perms = symmetry_group(&self.config);
        self
    }
}

impl SpecMachine for Machine {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State::init(&self.config)]
    }

    fn successors(&self, s: &State) -> Vec<(Action, State)> {
        s.successors(&self.config)
    }

    fn first_violated(&self, s: &State) -> Option<&'static str> {
        self.invariants
            .iter()
            .find(|(_, holds)| !holds(s, &self.config))
            .map(|(n, _)| *n)
    }

    /// The least image of `s` under the symmetry group.
    fn canonical(&self, s: &State) -> State {
        self.perms
            .iter()
            .map(|(f, k)| s.permuted(f, k))
            .min()
            .unwrap_or_else(|| s.clone())
    }
}

/// Breadth-first search of the model a .cfg file describes.
pub fn explore(m: &ModelCfg) -> Result<ExploreResult<State, Action>, String> {
    let machine = Machine::from_model_cfg(m)?;
    Ok(bfs(&machine, m.check_deadlock, None))
}
