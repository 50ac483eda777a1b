//! Two kernels on the same seeded scenarios (`ringlab diff --kernels`).
//!
//! Each kernel is held to the model under its own profile, scenario by
//! scenario; then the two are held to each other. A scenario they answer
//! differently is explained when each kernel agrees with its own model and
//! some set of the profiles' differing rules (afxdp::rules), taken from
//! the second kernel's profile into the first's, turns the first model's
//! answer into the second kernel's. The smallest such set is the
//! explanation; anything else is an unexplained difference, which fails
//! the run. Each explanation is shown once, on a scenario shrunk over the
//! model (the kernels' answers are their models' there, as on every
//! scenario of the campaign).

use ringlab_model::afxdp::rules::{differing, with_rules};
use ringlab_model::afxdp::{predict, Obs, Op, Profile, Scenario};
use serde::Serialize;

use crate::campaign::Observed;
use crate::compare::{first_mismatch, Mismatch};
use crate::shrink::shrink;

/// One kernel's campaign.
pub struct Side<'a> {
    /// `uname -r`.
    pub kernel: String,
    pub profile: Profile,
    pub observed: &'a [Observed],
}

/// A scenario the two kernels answered differently.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub seed: u64,
    pub scenario: Scenario,
    /// Index of the first observation that differs.
    pub at: usize,
    pub a: Vec<Obs>,
    pub b: Vec<Obs>,
    /// The smallest set of rules that accounts for it; Err: unexplained.
    pub rules: Result<Vec<&'static str>, String>,
}

/// One explanation, with the smallest scenario that shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Explained {
    pub rules: Vec<&'static str>,
    /// How many scenarios of the campaign it explains.
    pub scenarios: u64,
    /// The first such scenario's seed.
    pub seed: u64,
    pub shrunk: Scenario,
    /// The two profiles' answers to `shrunk`, and where they part.
    pub a: Vec<Obs>,
    pub b: Vec<Obs>,
    pub at: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub scenarios: u64,
    pub same: u64,
    pub explained: Vec<Explained>,
    /// Differences no rule accounts for, and scenarios only one side ran.
    pub unexplained: Vec<Difference>,
    pub problems: Vec<String>,
    /// The boundary grid's descriptors (gen_grid) among the scenarios
    /// compared, and the chunk sizes they were cut for: each field at and
    /// around its limits, accepted or refused alike by both kernels and
    /// their models wherever the scenarios agree.
    pub boundary_descs: u64,
    pub boundary_chunks: Vec<u32>,
}

impl Comparison {
    pub fn ok(&self) -> bool {
        self.unexplained.is_empty() && self.problems.is_empty() && self.scenarios > 0
    }
}

/// Why `a_obs` and `b_obs`, the two kernels' answers to `s`, differ: the
/// smallest set of rules, taken from `pb` into `pa`, whose model gives
/// `b_obs`, when each side agrees with its own model.
pub fn explain(s: &Scenario, a_obs: &[Obs], b_obs: &[Obs], pa: &Profile, pb: &Profile) -> Result<Vec<&'static str>, String> {
    for (obs, p, side) in [(a_obs, pa, "first"), (b_obs, pb, "second")] {
        if let Some(m) = first_mismatch(&predict(s, p), obs) {
            return Err(format!("the {side} kernel differs from its own model (profile {}) at observation {}", p.name, m.at));
        }
    }
    let rules = differing(pa, pb);
    for k in 0..=rules.len() {
        for set in subsets(&rules, k) {
            if predict(s, &with_rules(pa, pb, &set)) == b_obs {
                return Ok(set);
            }
        }
    }
    Err(format!("no set of the rules the profiles differ on ({}) accounts for it", rules.join(", ")))
}

/// The `k`-element subsets of `items`, in order.
fn subsets<'a>(items: &[&'a str], k: usize) -> Vec<Vec<&'a str>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, first) in items.iter().enumerate() {
        for mut rest in subsets(&items[i + 1..], k - 1) {
            rest.insert(0, *first);
            out.push(rest);
        }
    }
    out
}

/// The smallest scenario (delta debugging over the model) that the two
/// profiles still answer differently for exactly the reason `rules`.
pub fn shrink_explained(s: &Scenario, pa: &Profile, pb: &Profile, rules: &[&'static str]) -> (Scenario, Mismatch) {
    let why = |c: &Scenario| -> Option<Mismatch> {
        let (a, b) = (predict(c, pa), predict(c, pb));
        let m = first_mismatch(&a, &b)?;
        (explain(c, &a, &b, pa, pb).ok()? == rules).then_some(m)
    };
    let first = why(s).expect("the scenario differs for these rules");
    shrink(why, s, first)
}

/// The descriptors of `s` that the boundary grid put there.
fn boundary_descs(s: &Scenario) -> u64 {
    s.ops
        .iter()
        .map(|op| match op {
            Op::Tx(d) | Op::Tx2(d) => d.iter().filter(|d| d.class.starts_with("boundary:")).count() as u64,
            _ => 0,
        })
        .sum()
}

/// Holds each side to its model and the two to each other.
pub fn compare(a: &Side, b: &Side) -> Comparison {
    let mut c = Comparison {
        scenarios: 0,
        same: 0,
        explained: Vec::new(),
        unexplained: Vec::new(),
        problems: Vec::new(),
        boundary_descs: 0,
        boundary_chunks: Vec::new(),
    };
    let by_seed: std::collections::HashMap<u64, &Observed> = b.observed.iter().map(|o| (o.seed, o)).collect();
    if a.observed.len() != b.observed.len() {
        c.problems.push(format!("{} ran {} scenarios, {} ran {}", a.kernel, a.observed.len(), b.kernel, b.observed.len()));
    }
    for oa in a.observed {
        let Some(ob) = by_seed.get(&oa.seed) else {
            c.problems.push(format!("scenario seed {:#x}: {} has no answer", oa.seed, b.kernel));
            continue;
        };
        if oa.scenario != ob.scenario {
            c.problems.push(format!("scenario seed {:#x}: the two sides generated different scenarios", oa.seed));
            continue;
        }
        c.scenarios += 1;
        let grid = boundary_descs(&oa.scenario);
        if grid > 0 {
            c.boundary_descs += grid;
            if !c.boundary_chunks.contains(&oa.scenario.setup.frame_size) {
                c.boundary_chunks.push(oa.scenario.setup.frame_size);
                c.boundary_chunks.sort();
            }
        }
        let Some(m) = first_mismatch(&oa.kernel, &ob.kernel) else {
            if oa.kernel.len() != ob.kernel.len() {
                c.problems.push(format!("scenario seed {:#x}: {} and {} observations", oa.seed, oa.kernel.len(), ob.kernel.len()));
            } else {
                c.same += 1;
            }
            continue;
        };
        let rules = explain(&oa.scenario, &oa.kernel, &ob.kernel, &a.profile, &b.profile);
        match &rules {
            Ok(set) => match c.explained.iter_mut().find(|e| e.rules == *set) {
                Some(e) => e.scenarios += 1,
                None => {
                    let (shrunk, sm) = shrink_explained(&oa.scenario, &a.profile, &b.profile, set);
                    c.explained.push(Explained {
                        rules: set.clone(),
                        scenarios: 1,
                        seed: oa.seed,
                        a: predict(&shrunk, &a.profile),
                        b: predict(&shrunk, &b.profile),
                        at: sm.at,
                        shrunk,
                    });
                }
            },
            Err(_) => c.unexplained.push(Difference {
                seed: oa.seed,
                scenario: oa.scenario.clone(),
                at: m.at,
                a: oa.kernel.clone(),
                b: ob.kernel.clone(),
                rules,
            }),
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen;
    use ringlab_model::afxdp::{V6_12, V6_18};

    /// Both sides as their models answer: what two kernels that each
    /// agree with their profile would show.
    fn modelled(p: &Profile, seeds: &[u64]) -> Vec<Observed> {
        seeds
            .iter()
            .map(|&seed| {
                let scenario = gen::scenario_for(seed, p);
                Observed { seed, kernel: predict(&scenario, p), scenario }
            })
            .collect()
    }

    #[test]
    fn subsets_in_order() {
        assert_eq!(subsets(&["a", "b", "c"], 2), vec![vec!["a", "b"], vec!["a", "c"], vec!["b", "c"]]);
        assert_eq!(subsets(&["a"], 0), vec![Vec::<&str>::new()]);
        assert!(subsets(&["a"], 2).is_empty());
    }

    #[test]
    fn two_releases_differ_only_where_their_rules_do() {
        let seeds: Vec<u64> = (0..120).collect();
        let (a, b) = (modelled(&V6_18, &seeds), modelled(&V6_12, &seeds));
        let c = compare(
            &Side { kernel: "6.18".into(), profile: V6_18, observed: &a },
            &Side { kernel: "6.12".into(), profile: V6_12, observed: &b },
        );
        assert!(c.ok(), "{:?} {:?}", c.problems, c.unexplained);
        assert_eq!(c.scenarios, 120);
        assert!(!c.explained.is_empty() && c.same > 0, "{} same, {:?}", c.same, c.explained.iter().map(|e| &e.rules).collect::<Vec<_>>());
        for e in &c.explained {
            assert!(!e.rules.is_empty());
            assert_ne!(e.a, e.b, "the shrunk scenario still tells them apart");
            assert!(e.shrunk.ops.len() <= gen::scenario_for(e.seed, &V6_18).ops.len());
        }
        let total: u64 = c.explained.iter().map(|e| e.scenarios).sum();
        assert_eq!(total + c.same, 120);
        // one seed in four carries the grid
        assert!(c.boundary_descs > 30 * 20 && !c.boundary_chunks.is_empty(), "{} {:?}", c.boundary_descs, c.boundary_chunks);
    }

    #[test]
    fn a_kernel_off_its_own_model_is_unexplained() {
        let seeds: Vec<u64> = (0..40).collect();
        let a = modelled(&V6_18, &seeds);
        let mut b = modelled(&V6_12, &seeds);
        // the second kernel answers one scenario as neither model does
        let o = b.iter_mut().find(|o| o.kernel.len() > 2).unwrap();
        o.kernel[0] = Obs::Rings(Default::default());
        let c = compare(
            &Side { kernel: "6.18".into(), profile: V6_18, observed: &a },
            &Side { kernel: "6.12".into(), profile: V6_12, observed: &b },
        );
        assert!(!c.ok());
        assert_eq!(c.unexplained.len(), 1);
        assert!(c.unexplained[0].rules.as_ref().unwrap_err().contains("second kernel differs from its own model"));
    }

    #[test]
    fn a_missing_answer_is_a_problem() {
        let a = modelled(&V6_18, &[1, 2, 3]);
        let b = modelled(&V6_12, &[1, 2]);
        let c = compare(
            &Side { kernel: "6.18".into(), profile: V6_18, observed: &a },
            &Side { kernel: "6.12".into(), profile: V6_12, observed: &b },
        );
        assert!(!c.ok());
        assert!(c.problems.iter().any(|p| p.contains("has no answer")), "{:?}", c.problems);
    }
}
