//! Explicit-state breadth-first search of a spec's state machine, counted
//! as TLC counts: distinct states, states generated, and the depth of the
//! state graph.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::time::{Duration, Instant};

use crate::xsk_ring::{
    init_states, invariant, Action, Config, Invariant, ModelCfg, State, INVARIANTS,
};

/// A spec's state machine as the search sees it.
pub trait SpecMachine {
    type State: Clone + Eq + Hash;
    type Action: Clone;

    /// The states Init allows.
    fn init_states(&self) -> Vec<Self::State>;

    /// Every step of Next from `s`, with the action and choice taken.
    fn successors(&self, s: &Self::State) -> Vec<(Self::Action, Self::State)>;

    /// The first invariant `s` violates, in the order they are checked.
    fn first_violated(&self, s: &Self::State) -> Option<&'static str>;

    /// The representative of `s`'s class under the model's SYMMETRY (two
    /// states are one distinct state iff their representatives are equal);
    /// `s` itself when there is none.
    fn canonical(&self, s: &Self::State) -> Self::State {
        s.clone()
    }

    /// The first PROPERTY the step to `to` violates, as TLC checks a
    /// property it reads as an implied action: `from` is the state and
    /// action the step leaves from, None when `to` is an initial state
    /// (checked against the property's initial predicate). Checked on
    /// every step the search takes, to a new state or not, after the
    /// invariants. None when the model has no such property.
    fn step_violated(
        &self,
        _from: Option<(&Self::State, &Self::Action)>,
        _to: &Self::State,
    ) -> Option<&'static str> {
        None
    }
}

/// The candidates `step` allows, each with the state it leads to.
pub(crate) fn enabled_steps<A, S>(
    candidates: Vec<A>,
    step: impl Fn(&A) -> Option<S>,
) -> Vec<(A, S)> {
    candidates
        .into_iter()
        .filter_map(|a| step(&a).map(|s| (a, s)))
        .collect()
}

/// What to check.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// The invariants to check, in order (default: all, in cfg order).
    pub invariants: Vec<Invariant>,
    /// Report a state with no successor (TLC's CHECK_DEADLOCK).
    pub check_deadlock: bool,
    /// Give up after this many distinct states.
    pub max_distinct: Option<usize>,
    /// VIEW ShiftView: one state of each shift class.
    pub shift_view: bool,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            invariants: INVARIANTS.to_vec(),
            check_deadlock: true,
            max_distinct: None,
            shift_view: false,
        }
    }
}

impl ExploreOptions {
    /// The checks a .cfg file asks for; an invariant the model does not
    /// have is an error.
    pub fn from_model_cfg(m: &ModelCfg) -> Result<ExploreOptions, String> {
        let invariants = m
            .invariants
            .iter()
            .map(|n| invariant(n).ok_or_else(|| format!("the model has no invariant {n}")))
            .collect::<Result<_, _>>()?;
        let shift_view = match m.view.as_deref() {
            None => false,
            Some("ShiftView") => true,
            Some(v) => return Err(format!("the model has no view {v} (it has {})", crate::xsk_ring::VIEWS.join(", "))),
        };
        Ok(ExploreOptions {
            invariants,
            check_deadlock: m.check_deadlock,
            max_distinct: None,
            shift_view,
        })
    }
}

/// A behaviour: an initial state and the steps from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace<S = State, A = Action> {
    pub init: S,
    pub steps: Vec<(A, S)>,
}

impl<S, A> Trace<S, A> {
    /// Number of states, as TLC numbers them.
    pub fn len(&self) -> usize {
        self.steps.len() + 1
    }

    /// Never: a trace holds at least its initial state.
    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn last(&self) -> &S {
        self.steps.last().map_or(&self.init, |(_, s)| s)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<S = State, A = Action> {
    /// Every reachable state satisfies the invariants.
    Pass,
    /// The first violation found, with a shortest trace to it.
    Violation {
        invariant: &'static str,
        trace: Trace<S, A>,
    },
    /// A state with no successor, with a shortest trace to it.
    Deadlock { trace: Trace<S, A> },
    /// max_distinct was reached.
    Incomplete,
}

impl<S, A> Outcome<S, A> {
    /// "pass", "violation:Name", "deadlock" or "incomplete" (the form of
    /// specs/manifest.json's `expected`).
    pub fn summary(&self) -> String {
        match self {
            Outcome::Pass => "pass".into(),
            Outcome::Violation { invariant, .. } => format!("violation:{invariant}"),
            Outcome::Deadlock { .. } => "deadlock".into(),
            Outcome::Incomplete => "incomplete".into(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct ExploreResult<S = State, A = Action> {
    /// Distinct states found (TLC: "distinct states found").
    pub distinct: usize,
    /// Initial states plus every successor computed, repeats included
    /// (TLC: "states generated").
    pub generated: usize,
    /// BFS levels reached, the initial level included (TLC: "depth of the
    /// complete state graph search").
    pub depth: usize,
    pub outcome: Outcome<S, A>,
    pub elapsed: Duration,
}

/// A fast non-cryptographic hasher (FxHash's mixing) for the state table.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u8(&mut self, i: u8) {
        self.write_u64(i.into());
    }

    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

struct Node<S, A> {
    state: S,
    parent: Option<(usize, A)>,
}

fn trace_to<S: Clone, A: Clone>(nodes: &[Node<S, A>], mut i: usize) -> Trace<S, A> {
    let mut steps = Vec::new();
    while let Some((p, a)) = &nodes[i].parent {
        steps.push((a.clone(), nodes[i].state.clone()));
        i = *p;
    }
    steps.reverse();
    Trace {
        init: nodes[i].state.clone(),
        steps,
    }
}

/// XskRing.tla with the invariants of ExploreOptions.
struct Ring<'a> {
    cfg: &'a Config,
    invariants: &'a [Invariant],
    shift_view: bool,
}

impl SpecMachine for Ring<'_> {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        init_states(self.cfg)
    }

    fn successors(&self, s: &State) -> Vec<(Action, State)> {
        s.successors(self.cfg)
    }

    fn first_violated(&self, s: &State) -> Option<&'static str> {
        self.invariants
            .iter()
            .find(|(_, holds)| !holds(s, self.cfg))
            .map(|(n, _)| *n)
    }

    fn canonical(&self, s: &State) -> State {
        if self.shift_view {
            s.shift_view(self.cfg)
        } else {
            s.clone()
        }
    }
}

/// Breadth-first search of XskRing.tla (see [`bfs`]).
pub fn explore(cfg: &Config, opts: &ExploreOptions) -> ExploreResult {
    let ring = Ring {
        cfg,
        invariants: &opts.invariants,
        shift_view: opts.shift_view,
    };
    bfs(&ring, opts.check_deadlock, opts.max_distinct)
}

/// A spec whose models check invariants only (no SYMMETRY, no PROPERTY
/// the model checks): its state under Init and Next and its invariants.
/// `Machine<S>` is then the spec under one model.
pub trait PlainSpec: Clone + Eq + Hash + std::fmt::Debug + 'static {
    type Config: Clone + std::fmt::Debug + 'static;
    type Action: Clone;
    /// The spec's file, for errors.
    const SPEC: &'static str;
    /// Init (one state).
    fn init(cfg: &Self::Config) -> Self;
    /// Every step of Next from `self`, in TLC's order.
    fn successors(&self, cfg: &Self::Config) -> Vec<(Self::Action, Self)>;
    /// Every invariant of the spec, by its TLA+ name.
    fn invariants() -> &'static [PlainInvariant<Self>];
    /// TypeOK: every value within the config's ranges.
    fn type_ok(&self, cfg: &Self::Config) -> bool;
    /// The invariants `Machine::new` checks: what the spec's .cfg files
    /// list (all of them unless the spec says otherwise).
    fn checked() -> &'static [PlainInvariant<Self>] {
        Self::invariants()
    }
}

/// A plain spec's module glue, written once: `Machine`, the `PlainSpec`
/// impl forwarding to the module's `State`, `Config`, `Action` and
/// `INVARIANTS`, and `explore` over its `ModelCfg`. `checked:` names the
/// invariants the spec's .cfg files list when not all of them.
macro_rules! plain_spec {
    ($spec:literal) => {
        $crate::explore::plain_spec!($spec, checked: &INVARIANTS);
    };
    ($spec:literal, checked: $checked:expr) => {
        /// The spec under one model: its constants and the invariants to check.
        pub type Machine = $crate::explore::Machine<State>;

        impl $crate::explore::PlainSpec for State {
            type Config = Config;
            type Action = Action;
            const SPEC: &'static str = $spec;

            fn init(cfg: &Config) -> State {
                State::init(cfg)
            }

            fn successors(&self, cfg: &Config) -> Vec<(Action, State)> {
                State::successors(self, cfg)
            }

            fn invariants() -> &'static [Invariant] {
                &INVARIANTS
            }

            fn type_ok(&self, cfg: &Config) -> bool {
                State::type_ok(self, cfg)
            }

            fn checked() -> &'static [Invariant] {
                $checked
            }
        }

        /// Breadth-first search of the model a .cfg file describes.
        pub fn explore(m: &ModelCfg) -> Result<$crate::explore::ExploreResult<State, Action>, String> {
            $crate::explore::explore_plain(m)
        }
    };
}
pub(crate) use plain_spec;

/// An invariant by its TLA+ name.
pub type PlainInvariant<S> = (&'static str, fn(&S, &<S as PlainSpec>::Config) -> bool);

/// A plain spec under one model: its constants and the invariants to check.
#[derive(Clone, Debug)]
pub struct Machine<S: PlainSpec> {
    pub config: S::Config,
    pub invariants: Vec<PlainInvariant<S>>,
}

impl<S: PlainSpec> Machine<S> {
    /// The invariants the spec's .cfg files check (`PlainSpec::checked`).
    pub fn new(config: S::Config) -> Self {
        Machine { config, invariants: S::checked().to_vec() }
    }

    /// What a .cfg file asks for: its invariants, in its order.
    pub fn from_model_cfg(m: &crate::cfg::ModelCfg<S::Config>) -> Result<Self, String> {
        let invariants = m
            .invariants
            .iter()
            .map(|n| {
                S::invariants()
                    .iter()
                    .find(|(name, _)| name == n)
                    .copied()
                    .ok_or_else(|| format!("{} has no invariant {n}", S::SPEC))
            })
            .collect::<Result<_, _>>()?;
        Ok(Machine { config: m.config.clone(), invariants })
    }
}

impl<S: PlainSpec> SpecMachine for Machine<S> {
    type State = S;
    type Action = S::Action;

    fn init_states(&self) -> Vec<S> {
        vec![S::init(&self.config)]
    }

    fn successors(&self, s: &S) -> Vec<(S::Action, S)> {
        s.successors(&self.config)
    }

    fn first_violated(&self, s: &S) -> Option<&'static str> {
        self.invariants.iter().find(|(_, holds)| !holds(s, &self.config)).map(|(n, _)| *n)
    }
}

/// Breadth-first search of the model a .cfg file describes (its
/// invariants; its PROPERTIES are TLC's).
pub fn explore_plain<S: PlainSpec>(m: &crate::cfg::ModelCfg<S::Config>) -> Result<ExploreResult<S, S::Action>, String> {
    let machine = Machine::<S>::from_model_cfg(m)?;
    Ok(bfs(&machine, m.check_deadlock, None))
}

/// Breadth-first search from every initial state, checking each new state
/// as it is found and stopping at the first violation. States are told
/// apart by their canonical form; traces hold the states as reached.
pub fn bfs<M: SpecMachine>(
    m: &M,
    check_deadlock: bool,
    max_distinct: Option<usize>,
) -> ExploreResult<M::State, M::Action> {
    let start = Instant::now();
    let mut nodes: Vec<Node<M::State, M::Action>> = Vec::new();
    let mut index: FxMap<M::State, usize> = FxMap::default();
    let mut generated = 0;
    let mut depth = 0;
    let mut outcome = Outcome::Pass;
    // Record a generated state; Some(outcome) if the search must stop.
    let mut add = |nodes: &mut Vec<Node<M::State, M::Action>>,
                   state: M::State,
                   parent: Option<(usize, M::Action)>|
     -> Option<Outcome<M::State, M::Action>> {
        generated += 1;
        let key = m.canonical(&state);
        let from = parent.as_ref().map(|(i, a)| (&nodes[*i].state, a));
        if index.contains_key(&key) {
            let property = m.step_violated(from, &state)?;
            let trace = match parent {
                Some((i, a)) => {
                    let mut trace = trace_to(nodes, i);
                    trace.steps.push((a, state));
                    trace
                }
                None => Trace {
                    init: state,
                    steps: Vec::new(),
                },
            };
            return Some(Outcome::Violation {
                invariant: property,
                trace,
            });
        }
        let bad = m.first_violated(&state);
        let bad_step = match bad {
            None => m.step_violated(from, &state),
            Some(_) => None,
        };
        index.insert(key, nodes.len());
        nodes.push(Node { state, parent });
        if let Some(invariant) = bad.or(bad_step) {
            return Some(Outcome::Violation {
                invariant,
                trace: trace_to(nodes, nodes.len() - 1),
            });
        }
        if max_distinct.is_some_and(|n| nodes.len() >= n) {
            return Some(Outcome::Incomplete);
        }
        None
    };
    'search: {
        for s in m.init_states() {
            if let Some(o) = add(&mut nodes, s, None) {
                outcome = o;
                depth = 1;
                break 'search;
            }
        }
        let mut level = 0..nodes.len();
        while !level.is_empty() {
            depth += 1;
            let next_start = nodes.len();
            for i in level.clone() {
                let succ = m.successors(&nodes[i].state);
                if succ.is_empty() && check_deadlock {
                    outcome = Outcome::Deadlock {
                        trace: trace_to(&nodes, i),
                    };
                    break 'search;
                }
                for (a, s) in succ {
                    if let Some(o) = add(&mut nodes, s, Some((i, a))) {
                        outcome = o;
                        depth += 1;
                        break 'search;
                    }
                }
            }
            level = next_start..nodes.len();
        }
    }
    ExploreResult {
        distinct: nodes.len(),
        generated,
        depth,
        outcome,
        elapsed: start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsk_ring::{Barrier, Barriers, Mutant};

    #[test]
    fn fill_matches_tlc() {
        let r = explore(&Config::fill(), &ExploreOptions::default());
        assert_eq!(r.outcome, Outcome::Pass);
        assert_eq!((r.distinct, r.generated, r.depth), (528, 2320, 14));
    }

    #[test]
    fn a_violation_comes_with_a_shortest_trace() {
        let cfg = Config {
            mutant: Mutant::WrappingAdd,
            ..Config::fill()
        };
        let r = explore(&cfg, &ExploreOptions::default());
        let Outcome::Violation { invariant, trace } = r.outcome else {
            panic!("{:?}", r.outcome)
        };
        assert_eq!(invariant, "IndicesAreU32");
        assert_eq!(trace.len(), 2);
        assert_eq!(trace.steps[0].0, Action::ProdReserve { n: 2 });
        assert_eq!(trace.last().violated(&cfg), Some("IndicesAreU32"));
        let mut s = trace.init.clone();
        for (a, t) in &trace.steps {
            s = s.step(&cfg, a).unwrap();
            assert_eq!(&s, t);
        }
    }

    #[test]
    fn the_shift_view_divides_the_count_by_m() {
        let spec = crate::paths::specs_dir();
        let m = ModelCfg::from_file(spec.join("mc/MCXskRing_Fill.cfg")).unwrap();
        let mut opts = ExploreOptions::from_model_cfg(&m).unwrap();
        let full = explore(&m.config, &opts);
        opts.shift_view = true;
        let view = explore(&m.config, &opts);
        assert_eq!((full.outcome.summary(), view.outcome.summary()), ("pass".into(), "pass".into()));
        assert_eq!(full.distinct, view.distinct * m.config.m() as usize);
        let mut bad = m.clone();
        bad.view = Some("Rotate".into());
        let e = ExploreOptions::from_model_cfg(&bad).unwrap_err();
        assert_eq!(e, "the model has no view Rotate (it has ShiftView)");
    }

    #[test]
    fn deadlock_and_limits() {
        let cfg = Config {
            barriers: Barriers::ALL.without(Barrier::D),
            ..Config::fill()
        };
        let r = explore(
            &cfg,
            &ExploreOptions {
                invariants: vec![],
                ..Default::default()
            },
        );
        assert_eq!(r.outcome, Outcome::Pass);
        let r = explore(
            &Config::fill(),
            &ExploreOptions {
                max_distinct: Some(100),
                ..Default::default()
            },
        );
        assert_eq!((r.outcome, r.distinct), (Outcome::Incomplete, 100));
        let pass: Outcome = Outcome::Pass;
        assert_eq!(pass.summary(), "pass");
    }
}
