//! Explicit-state breadth-first search of the model, counted as TLC counts:
//! distinct states, states generated, and the depth of the state graph.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::{Duration, Instant};

use crate::xsk_ring::{
    init_states, invariant, Action, Config, Invariant, ModelCfg, State, INVARIANTS,
};

/// What to check.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// The invariants to check, in order (default: all, in cfg order).
    pub invariants: Vec<Invariant>,
    /// Report a state with no successor (TLC's CHECK_DEADLOCK).
    pub check_deadlock: bool,
    /// Give up after this many distinct states.
    pub max_distinct: Option<usize>,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            invariants: INVARIANTS.to_vec(),
            check_deadlock: true,
            max_distinct: None,
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
        Ok(ExploreOptions {
            invariants,
            check_deadlock: m.check_deadlock,
            max_distinct: None,
        })
    }
}

/// A behaviour: an initial state and the steps from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub init: State,
    pub steps: Vec<(Action, State)>,
}

impl Trace {
    /// Number of states, as TLC numbers them.
    pub fn len(&self) -> usize {
        self.steps.len() + 1
    }

    /// Never: a trace holds at least its initial state.
    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn last(&self) -> &State {
        self.steps.last().map_or(&self.init, |(_, s)| s)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every reachable state satisfies the invariants.
    Pass,
    /// The first violation found, with a shortest trace to it.
    Violation {
        invariant: &'static str,
        trace: Trace,
    },
    /// A state with no successor, with a shortest trace to it.
    Deadlock { trace: Trace },
    /// max_distinct was reached.
    Incomplete,
}

impl Outcome {
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
pub struct ExploreResult {
    /// Distinct states found (TLC: "distinct states found").
    pub distinct: usize,
    /// Initial states plus every successor computed, repeats included
    /// (TLC: "states generated").
    pub generated: usize,
    /// BFS levels reached, the initial level included (TLC: "depth of the
    /// complete state graph search").
    pub depth: usize,
    pub outcome: Outcome,
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

struct Node {
    state: State,
    parent: Option<(usize, Action)>,
}

fn trace_to(nodes: &[Node], mut i: usize) -> Trace {
    let mut steps = Vec::new();
    while let Some((p, a)) = nodes[i].parent {
        steps.push((a, nodes[i].state.clone()));
        i = p;
    }
    steps.reverse();
    Trace {
        init: nodes[i].state.clone(),
        steps,
    }
}

fn first_violated(state: &State, cfg: &Config, invs: &[Invariant]) -> Option<&'static str> {
    invs.iter()
        .find(|(_, holds)| !holds(state, cfg))
        .map(|(n, _)| *n)
}

/// Breadth-first search from every initial state, checking each new state
/// as it is found and stopping at the first violation.
pub fn explore(cfg: &Config, opts: &ExploreOptions) -> ExploreResult {
    let start = Instant::now();
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: FxMap<State, usize> = FxMap::default();
    let mut generated = 0;
    let mut depth = 0;
    let mut outcome = Outcome::Pass;
    // Record a generated state; Some(outcome) if the search must stop.
    let mut add =
        |nodes: &mut Vec<Node>, state: State, parent: Option<(usize, Action)>| -> Option<Outcome> {
            generated += 1;
            if index.contains_key(&state) {
                return None;
            }
            let bad = first_violated(&state, cfg, &opts.invariants);
            index.insert(state.clone(), nodes.len());
            nodes.push(Node { state, parent });
            if let Some(invariant) = bad {
                return Some(Outcome::Violation {
                    invariant,
                    trace: trace_to(nodes, nodes.len() - 1),
                });
            }
            if opts.max_distinct.is_some_and(|m| nodes.len() >= m) {
                return Some(Outcome::Incomplete);
            }
            None
        };
    'search: {
        for s in init_states(cfg) {
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
                let succ = nodes[i].state.successors(cfg);
                if succ.is_empty() && opts.check_deadlock {
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
        assert_eq!(Outcome::Pass.summary(), "pass");
    }
}
