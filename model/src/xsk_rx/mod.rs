//! specs/XskRx.tla as Rust: AF_XDP copy-mode receive through the XSKMAP
//! (linux 6.12.117) and seed 002's XDP_REDIRECT_XSK fast path, each spec
//! action a method of State with the same name in snake_case (socket.rs:
//! user_fill, user_recv, xsk_bind, xsk_map_update, xsk_release,
//! xsk_release_done; napi.rs: napi_poll, xdp_do_flush; rcv.rs: xdp_run,
//! xsk_rcv_batch, rx_lock, xsk_rcv_check_room, xp_alloc_free, xp_alloc_peek,
//! xp_alloc_take, xp_alloc_fail, xsk_rcv_reserve, xsk_flush, done), and
//! specs/XskRedirectXsk.tla's FastSpec and Refinement (refinement.rs).
//!
//! ```text
//! Config                       the spec's CONSTANTS (pub fields; Config::driver(),
//!                              ::generic(), ::fast(), ::batch();
//!                              Config::from_cfg_file(path))
//! State::init(&Config) -> State
//! State::enabled(&self, &Config) -> Vec<Action>
//!                              every enabled action instance of Next, in a fixed order
//! State::step(&self, &Config, &Action) -> Option<State>
//!                              None when the action is not enabled
//! State::successors_of(&self, &Config, Spec)
//!                              the steps of Next or of FastNext
//! State::violated(&self, &Config, names) -> Option<&'static str>
//!                              the first of `names` the state violates
//! State::buf_conservation(&self, &Config) -> bool, ... one per invariant
//! State::refinement_image(&self) -> State
//!                              XskRedirectXsk.tla's Map
//! ```
//!
//! Sockets, buffers and packets are the spec's numbers (1-based; 0 is the
//! spec's None where a socket may be none), CPUs their position in
//! Config::cpus. SYMMETRY Perms permutes the CPUs.

mod action;
mod cfg_file;
mod config;
mod invariants;
mod napi;
mod next;
mod rcv;
pub mod refinement;
mod socket;
mod state;
#[cfg(test)]
mod tests;
pub mod tla;

pub use action::Action;
pub use cfg_file::ModelCfg;
pub use config::{Config, Mutant, Redirect, RxPath, UnknownMutant, Verdict};
pub use invariants::{invariant, Invariant, INVARIANTS};
pub use next::Spec;
pub use state::{
    permutations, symmetry_group, Batched, Buf, Cnt, Cpu, Desc, Fate, Pkt, Recv, Sock, Sst, Stage,
    State,
};

use crate::explore::{bfs, ExploreResult, SpecMachine};

/// The spec under one model: its constants, its next-state relation, the
/// invariants and property to check, and the permutations of its
/// SYMMETRY (none: the identity alone).
#[derive(Clone, Debug)]
pub struct Machine {
    pub config: Config,
    pub spec: Spec,
    pub invariants: Vec<Invariant>,
    /// PROPERTY Refinement: the constants of XskRedirectXsk.tla's Map
    /// instance (None: no property).
    pub refinement: Option<Config>,
    perms: Vec<Vec<Cpu>>,
}

impl Machine {
    /// Spec with every invariant, without symmetry or property.
    pub fn new(config: Config) -> Machine {
        Machine {
            config,
            spec: Spec::Spec,
            invariants: INVARIANTS.to_vec(),
            refinement: None,
            perms: Vec::new(),
        }
    }

    /// What a .cfg file asks for: its SPECIFICATION (Spec or FastSpec),
    /// its invariants in order, PROPERTY Refinement, and SYMMETRY Perms.
    pub fn from_model_cfg(m: &ModelCfg) -> Result<Machine, String> {
        let spec = match m.specification.as_deref() {
            None => Spec::Spec,
            Some(name) => Spec::from_name(name)
                .ok_or_else(|| format!("the specs have no specification {name}"))?,
        };
        let invariants = m
            .invariants
            .iter()
            .map(|n| invariant(n).ok_or_else(|| format!("XskRx.tla has no invariant {n}")))
            .collect::<Result<_, _>>()?;
        let mut refinement = None;
        for p in &m.properties {
            match p.as_str() {
                "Refinement" => refinement = Some(m.config.refined()),
                other => return Err(format!("the model has no property {other}")),
            }
        }
        let perms = match m.symmetry.as_deref() {
            None => Vec::new(),
            Some("Perms") => symmetry_group(&m.config),
            Some(other) => return Err(format!("the spec has no symmetry set {other}")),
        };
        Ok(Machine {
            config: m.config.clone(),
            spec,
            invariants,
            refinement,
            perms,
        })
    }

    /// Reduce by CPU permutations (SYMMETRY Perms).
    pub fn with_symmetry(mut self) -> Machine {
        self.perms = symmetry_group(&self.config);
        self
    }

    /// Check PROPERTY Refinement.
    pub fn with_refinement(mut self) -> Machine {
        self.refinement = Some(self.config.refined());
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
        s.successors_of(&self.config, self.spec)
    }

    fn first_violated(&self, s: &State) -> Option<&'static str> {
        self.invariants
            .iter()
            .find(|(_, holds)| !holds(s, &self.config))
            .map(|(n, _)| *n)
    }

    /// The least image of `s` under the CPU permutations.
    fn canonical(&self, s: &State) -> State {
        self.perms
            .iter()
            .map(|p| s.permuted(p))
            .min()
            .unwrap_or_else(|| s.clone())
    }

    /// Refinement: Map!Init for an initial state, [Map!Next]_Map!vars for
    /// every step.
    fn step_violated(&self, from: Option<(&State, &Action)>, to: &State) -> Option<&'static str> {
        let abs = self.refinement.as_ref()?;
        let holds = match from {
            None => refinement::refines_init(abs, to),
            Some((s, a)) => refinement::refines_step(abs, s, a, to),
        };
        (!holds).then_some("Refinement")
    }
}

/// Breadth-first search of the model a .cfg file describes.
pub fn explore(m: &ModelCfg) -> Result<ExploreResult<State, Action>, String> {
    let machine = Machine::from_model_cfg(m)?;
    Ok(bfs(&machine, m.check_deadlock, None))
}
