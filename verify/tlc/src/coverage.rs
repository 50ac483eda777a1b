//! Action coverage: which actions of a spec's next-state relation a TLC
//! run took (its `-coverage` report), and which have no transition of
//! their own (its state graph, `-dump dot,actionlabels`).
//!
//! An action never taken in a run that explored every reachable state is
//! dead in that model; the manifest may say why (`idle`, per spec: a
//! constant turns it off), and then another model of the spec must take
//! it. An action each of whose transitions (s, s') another action also
//! produces, or a stutter, adds nothing to the model: a change that breaks
//! it leaves every model's outcome alone. It fails the check unless the
//! manifest declares it an alias, with why.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::manifest::{Manifest, SpecPolicy};

/// One action's line of TLC's coverage report (message 2772):
/// `<ProdReserve line 122, col 1 to line 122, col 11 of module XskRing>: 88:768`,
/// distinct states it found first : transitions it produced. An action
/// TLC splits over `\E` has one line per instance, the instance's place
/// appended in parentheses; they are summed here under the action's name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionCount {
    pub name: String,
    pub distinct: u64,
    pub transitions: u64,
}

/// Reads one 2772 line; None if it is not one.
pub fn parse_action(line: &str) -> Option<ActionCount> {
    let rest = line.trim().strip_prefix('<')?;
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    let (_, counts) = rest.rsplit_once(">: ")?;
    let (d, t) = counts.trim().split_once(':')?;
    if name.is_empty() {
        return None;
    }
    Some(ActionCount { name, distinct: d.trim().parse().ok()?, transitions: t.trim().parse().ok()? })
}

/// Adds `a` to `list`, summing the counts of an action already there.
pub fn merge(list: &mut Vec<ActionCount>, a: ActionCount) {
    match list.iter_mut().find(|x| x.name == a.name) {
        Some(x) => {
            x.distinct += a.distinct;
            x.transitions += a.transitions;
        }
        None => list.push(a),
    }
}

/// One action's transitions in a state graph: the distinct pairs (s, s')
/// it labels, how many of them are stutters (s' = s), and how many no
/// other action labels. `also`: the other actions on its pairs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionEdges {
    pub name: String,
    pub transitions: u64,
    pub stutters: u64,
    pub own: u64,
    pub also: Vec<String>,
}

impl ActionEdges {
    /// Taken, and every transition a stutter or another action's too.
    pub fn redundant(&self) -> bool {
        self.transitions > 0 && self.own == 0
    }
}

/// The edges of a TLC `-dump dot,actionlabels` file, per action label.
/// Reads the file line by line and keeps one small set of labels per
/// distinct (s, s'): the state labels, most of the file, are skipped.
pub fn edges_of_dot(path: &Path) -> Result<Vec<ActionEdges>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    edges_of_dot_lines(std::io::BufReader::new(f)).map_err(|e| format!("{}: {e}", path.display()))
}

/// As [`edges_of_dot`], from any reader.
pub fn edges_of_dot_lines(r: impl BufRead) -> Result<Vec<ActionEdges>, String> {
    let mut labels: Vec<String> = Vec::new();
    let mut pairs: HashMap<(i64, i64), Vec<u16>> = HashMap::new();
    for line in r.lines() {
        let line = line.map_err(|e| e.to_string())?;
        let Some((from, rest)) = line.split_once(" -> ") else { continue };
        let Ok(from) = from.trim().parse::<i64>() else { continue };
        let Some((to, attrs)) = rest.split_once(" [") else { continue };
        let Ok(to) = to.trim().parse::<i64>() else { continue };
        let Some(label) = attrs.strip_prefix("label=\"").and_then(|l| l.split('"').next()) else {
            return Err(format!("an edge without an action label: `{line}` (dump with actionlabels)"));
        };
        let id = match labels.iter().position(|l| l == label) {
            Some(i) => i,
            None => {
                labels.push(label.to_string());
                labels.len() - 1
            }
        };
        let id = u16::try_from(id).map_err(|_| "more than 65535 action labels".to_string())?;
        let set = pairs.entry((from, to)).or_default();
        if !set.contains(&id) {
            set.push(id);
        }
    }
    let mut out: Vec<ActionEdges> = labels
        .iter()
        .map(|l| ActionEdges { name: l.clone(), transitions: 0, stutters: 0, own: 0, also: Vec::new() })
        .collect();
    let mut also: Vec<BTreeSet<u16>> = vec![BTreeSet::new(); labels.len()];
    for ((from, to), set) in &pairs {
        for &l in set {
            let a = &mut out[l as usize];
            a.transitions += 1;
            if from == to {
                a.stutters += 1;
            } else if set.len() == 1 {
                a.own += 1;
            }
            also[l as usize].extend(set.iter().filter(|&&o| o != l));
        }
    }
    for (a, others) in out.iter_mut().zip(also) {
        a.also = others.into_iter().map(|o| labels[o as usize].clone()).collect();
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// One action of a model's coverage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionCov {
    pub name: String,
    /// Distinct states it found first.
    pub distinct: u64,
    /// Transitions it produced (TLC's count, stutters and repeats included).
    pub transitions: u64,
    /// With the state graph: its distinct (s, s') no other action produces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<u64>,
}

/// A taken action with no transition of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redundant {
    pub name: String,
    pub transitions: u64,
    /// The actions that produce its transitions too (none: it only stutters).
    pub also: Vec<String>,
}

impl Redundant {
    pub fn words(&self) -> String {
        if self.also.is_empty() {
            format!("action {} is redundant: each of its {} transitions is a stutter", self.name, self.transitions)
        } else {
            format!(
                "action {} is redundant: each of its {} transitions is also one of {}'s",
                self.name,
                self.transitions,
                self.also.join(", ")
            )
        }
    }
}

/// A model's action coverage and its verdict.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Every action of Next, in TLC's order.
    pub actions: Vec<ActionCov>,
    /// The run explored every reachable state (a model expected to pass
    /// did), so what it never took is never taken in this model.
    pub complete: bool,
    /// Never taken in a complete run and not declared idle: each fails.
    pub never: Vec<String>,
    /// Never taken, declared idle for the spec in the manifest.
    pub idle: Vec<String>,
    /// The state graph was dumped (one of the spec's `transitions` models).
    pub graph: bool,
    /// With the graph: taken actions with no transition of their own, not
    /// declared aliases; each fails.
    pub redundant: Vec<Redundant>,
    /// With the graph: redundant actions the manifest declares aliases.
    pub aliased: Vec<String>,
}

impl Coverage {
    pub fn ok(&self) -> bool {
        self.never.is_empty() && self.redundant.is_empty()
    }

    pub fn taken(&self) -> usize {
        self.actions.iter().filter(|a| a.transitions > 0).count()
    }

    /// `taken/all`, as the tables show it.
    pub fn taken_words(&self) -> String {
        format!("{}/{}", self.taken(), self.actions.len())
    }

    /// `none`, the redundant actions, or `-` without a state graph.
    pub fn redundant_words(&self) -> String {
        if !self.graph {
            return "-".into();
        }
        let mut names: Vec<String> = self.redundant.iter().map(|r| r.name.clone()).collect();
        names.extend(self.aliased.iter().map(|a| format!("{a} (alias)")));
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }

    /// What fails this model, one line each.
    pub fn failures(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .never
            .iter()
            .map(|n| {
                format!(
                    "action {n} is never taken (declare it idle in the manifest's specs if a constant turns it off)"
                )
            })
            .collect();
        v.extend(self.redundant.iter().map(Redundant::words));
        v
    }
}

/// The coverage of one run: `counts` from TLC's report, `edges` from its
/// state graph if one was dumped, judged by the spec's `policy`.
pub fn judge(counts: &[ActionCount], complete: bool, policy: &SpecPolicy, edges: Option<&[ActionEdges]>) -> Coverage {
    let own = |name: &str| edges.and_then(|e| e.iter().find(|a| a.name == name)).map(|a| a.own);
    let actions: Vec<ActionCov> = counts
        .iter()
        .map(|a| ActionCov {
            name: a.name.clone(),
            distinct: a.distinct,
            transitions: a.transitions,
            own: edges.map(|_| own(&a.name).unwrap_or(0)),
        })
        .collect();
    let (mut never, mut idle) = (Vec::new(), Vec::new());
    for a in actions.iter().filter(|a| a.transitions == 0) {
        if policy.idle.contains_key(&a.name) {
            idle.push(a.name.clone());
        } else if complete {
            never.push(a.name.clone());
        }
    }
    let (mut redundant, mut aliased) = (Vec::new(), Vec::new());
    for e in edges.unwrap_or_default().iter().filter(|e| e.redundant()) {
        if policy.aliases.contains_key(&e.name) {
            aliased.push(e.name.clone());
        } else {
            redundant.push(Redundant { name: e.name.clone(), transitions: e.transitions, also: e.also.clone() });
        }
    }
    Coverage { actions, complete, never, idle, graph: edges.is_some(), redundant, aliased }
}

/// What one model contributes to its spec's verdict.
pub struct ModelCoverage<'a> {
    pub model: &'a str,
    pub spec: &'a str,
    pub coverage: Option<&'a Coverage>,
}

/// A spec's coverage over the models run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecCoverage {
    pub spec: String,
    /// Every action of the spec (as its runs report them).
    pub actions: Vec<String>,
    /// Every ci model of the spec was run, so `never` is known.
    pub complete: bool,
    /// Actions no model took: each fails.
    pub never: Vec<String>,
    /// Actions some model found redundant (each fails that model too).
    pub redundant: Vec<String>,
    /// Declared aliases, redundant where the graph was dumped.
    pub aliases: Vec<String>,
    /// Declared idle, never taken by some model and taken by another.
    pub idle: Vec<String>,
    /// The models whose state graph was read.
    pub graphs: Vec<String>,
    /// Declarations in the manifest that do not hold: each fails.
    pub stale: Vec<String>,
}

impl SpecCoverage {
    pub fn ok(&self) -> bool {
        self.never.is_empty() && self.redundant.is_empty() && self.stale.is_empty()
    }

    /// What fails the spec, one line each.
    pub fn failures(&self) -> Vec<String> {
        let mut v: Vec<String> = self.never.iter().map(|n| format!("action {n} is taken by no model")).collect();
        v.extend(self.redundant.iter().map(|n| format!("action {n} is redundant")));
        v.extend(self.stale.iter().cloned());
        v
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

impl SpecCoverage {
    pub fn never_words(&self) -> String {
        if self.complete {
            list(&self.never)
        } else {
            "? (not every ci model run)".into()
        }
    }
    pub fn redundant_words(&self) -> String {
        if self.graphs.is_empty() {
            "? (no state graph)".into()
        } else {
            list(&self.redundant)
        }
    }
    pub fn aliases_words(&self) -> String {
        list(&self.aliases)
    }
}

/// Each spec's verdict over `runs`; `complete(spec)`: every ci model of
/// the spec is among them.
pub fn by_spec(man: &Manifest, runs: &[ModelCoverage]) -> Vec<SpecCoverage> {
    let mut specs: Vec<&str> = runs.iter().map(|r| r.spec).collect();
    specs.sort_unstable();
    specs.dedup();
    let none = SpecPolicy::default();
    specs
        .into_iter()
        .map(|spec| {
            let policy = man.specs.get(spec).unwrap_or(&none);
            let mine: Vec<&ModelCoverage> = runs.iter().filter(|r| r.spec == spec).collect();
            let ran: BTreeSet<&str> = mine.iter().map(|r| r.model).collect();
            let complete = man.models.iter().filter(|m| m.spec == spec && m.tier == "ci").all(|m| {
                ran.contains(m.name.as_str()) && mine.iter().any(|r| r.model == m.name && r.coverage.is_some())
            });
            let mut actions: Vec<String> = Vec::new();
            let mut taken: BTreeSet<String> = BTreeSet::new();
            let mut redundant: BTreeSet<String> = BTreeSet::new();
            let mut idle: BTreeSet<String> = BTreeSet::new();
            // alias -> models whose graph shows it with transitions of its own
            let mut own_in: BTreeMap<String, Vec<String>> = BTreeMap::new();
            let mut aliased: BTreeSet<String> = BTreeSet::new();
            let mut graphs = Vec::new();
            for r in &mine {
                let Some(c) = r.coverage else { continue };
                for a in &c.actions {
                    if !actions.contains(&a.name) {
                        actions.push(a.name.clone());
                    }
                    if a.transitions > 0 {
                        taken.insert(a.name.clone());
                    }
                    if c.graph && a.transitions > 0 && a.own.unwrap_or(0) > 0 && policy.aliases.contains_key(&a.name) {
                        own_in.entry(a.name.clone()).or_default().push(r.model.to_string());
                    }
                }
                redundant.extend(c.redundant.iter().map(|x| x.name.clone()));
                aliased.extend(c.aliased.iter().cloned());
                idle.extend(c.idle.iter().cloned());
                if c.graph {
                    graphs.push(r.model.to_string());
                }
            }
            let never: Vec<String> =
                if complete { actions.iter().filter(|a| !taken.contains(*a)).cloned().collect() } else { Vec::new() };
            let mut stale = Vec::new();
            if !actions.is_empty() {
                for (what, keys) in [("idle", &policy.idle), ("alias", &policy.aliases)] {
                    for k in keys.keys().filter(|k| !actions.contains(k)) {
                        stale.push(format!("{what} {k}: the spec has no action {k}"));
                    }
                }
            }
            if !actions.is_empty() {
                stale.extend(actor_problems(&policy.actors, &actions));
            }
            for (a, models) in &own_in {
                if !aliased.contains(a) {
                    stale.push(format!("alias {a}: has transitions of its own in {}", models.join(", ")));
                }
            }
            SpecCoverage {
                spec: spec.to_string(),
                actions,
                complete,
                never,
                redundant: redundant.into_iter().collect(),
                aliases: aliased.into_iter().collect(),
                idle: idle.into_iter().filter(|i| taken.contains(i)).collect(),
                graphs,
                stale,
            }
        })
        .collect()
}

/// Every action of the spec has exactly one actor, and every action an
/// actor lists is the spec's: `ringlab check --actor` shows a projection
/// no step of which is lost or counted twice.
pub fn actor_problems(actors: &BTreeMap<String, Vec<String>>, actions: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if actors.is_empty() {
        out.push("actors: the manifest names none (specs.<spec>.actors: each action's actor, for `ringlab check --actor`)".to_string());
        return out;
    }
    for a in actions {
        let of: Vec<&str> = actors.iter().filter(|(_, xs)| xs.contains(a)).map(|(n, _)| n.as_str()).collect();
        match of.len() {
            0 => out.push(format!("actors: action {a} has no actor")),
            1 => {}
            _ => out.push(format!("actors: action {a} has {} actors ({})", of.len(), of.join(", "))),
        }
    }
    for (n, xs) in actors {
        for x in xs.iter().filter(|x| !actions.contains(x)) {
            out.push(format!("actors: {n}'s action {x}: the spec has no action {x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_one_actor() {
        let acts: Vec<String> = ["A", "B", "C"].iter().map(|s| s.to_string()).collect();
        let mut actors = BTreeMap::new();
        assert_eq!(actor_problems(&actors, &acts).len(), 1);
        actors.insert("user".to_string(), vec!["A".to_string(), "B".to_string()]);
        actors.insert("kernel".to_string(), vec!["B".to_string(), "D".to_string()]);
        let p = actor_problems(&actors, &acts);
        assert_eq!(
            p,
            [
                "actors: action B has 2 actors (kernel, user)",
                "actors: action C has no actor",
                "actors: kernel's action D: the spec has no action D"
            ]
        );
    }

    #[test]
    fn reads_action_lines_with_and_without_an_instance() {
        let a = parse_action("<ProdReserve line 122, col 1 to line 122, col 11 of module XskRing>: 88:768").unwrap();
        assert_eq!(a, ActionCount { name: "ProdReserve".into(), distinct: 88, transitions: 768 });
        let b = parse_action("<Twice line 12, col 1 to line 12, col 5 of module T (12 28 12 51)>: 2:5").unwrap();
        assert_eq!((b.name.as_str(), b.distinct, b.transitions), ("Twice", 2, 5));
        assert_eq!(parse_action("<Init line 95, col 1 to line 95, col 4 of module XskRing>"), None);
        assert_eq!(parse_action("  line 300, col 35 to line 300, col 44 of module XskRing: 608"), None);
    }

    #[test]
    fn merges_instances_by_name() {
        let mut v = Vec::new();
        merge(&mut v, ActionCount { name: "A".into(), distinct: 1, transitions: 2 });
        merge(&mut v, ActionCount { name: "B".into(), distinct: 0, transitions: 0 });
        merge(&mut v, ActionCount { name: "A".into(), distinct: 3, transitions: 4 });
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].distinct, v[0].transitions), (4, 6));
    }

    const DOT: &str = r#"strict digraph DiskGraph {
1 [label="/\\ x = 0",style = filled]
1 -> 2 [label="Inc",color="black",fontcolor="black"];
2 [label="/\\ x = 1 /\\ r = [a |-> 1]"];
1 -> 2 [label="Twice",color="black",fontcolor="black"];
1 -> 3 [label="Twice",color="black",fontcolor="black"];
2 -> 1 [label="Dec",color="black",fontcolor="black"];
2 -> 2 [label="Gated",color="black",fontcolor="black"];
1 -> 1 [label="Gated",color="black",fontcolor="black"];
2 -> 3 [label="Inc",color="black",fontcolor="black"];
2 -> 3 [label="Inc",color="black",fontcolor="black"];
}"#;

    #[test]
    fn finds_actions_without_transitions_of_their_own() {
        let e = edges_of_dot_lines(DOT.as_bytes()).unwrap();
        let get = |n: &str| e.iter().find(|a| a.name == n).unwrap().clone();
        let inc = get("Inc");
        assert_eq!((inc.transitions, inc.own, inc.also.clone()), (2, 1, vec!["Twice".to_string()]));
        assert!(!inc.redundant() && !get("Dec").redundant() && !get("Twice").redundant());
        let gated = get("Gated");
        assert_eq!((gated.transitions, gated.stutters, gated.own), (2, 2, 0));
        assert!(gated.redundant());
    }

    #[test]
    fn judges_never_taken_idle_redundant_and_aliases() {
        let counts = vec![
            ActionCount { name: "Inc".into(), distinct: 2, transitions: 3 },
            ActionCount { name: "Gated".into(), distinct: 0, transitions: 2 },
            ActionCount { name: "Off".into(), distinct: 0, transitions: 0 },
            ActionCount { name: "Dead".into(), distinct: 0, transitions: 0 },
        ];
        let edges = edges_of_dot_lines(DOT.as_bytes()).unwrap();
        let mut policy = SpecPolicy::default();
        policy.idle.insert("Off".into(), "a constant turns it off".into());
        let c = judge(&counts, true, &policy, Some(&edges));
        assert_eq!(c.never, vec!["Dead".to_string()]);
        assert_eq!(c.idle, vec!["Off".to_string()]);
        assert_eq!(c.redundant.len(), 1);
        assert_eq!(c.redundant[0].words(), "action Gated is redundant: each of its 2 transitions is a stutter");
        assert!(!c.ok());
        assert_eq!(c.taken_words(), "2/4");
        policy.aliases.insert("Gated".into(), "the terminal stutter".into());
        let c = judge(&counts, false, &policy, Some(&edges));
        assert!(c.ok(), "{c:?}");
        assert_eq!(c.redundant_words(), "Gated (alias)");
        assert_eq!(judge(&counts, true, &policy, None).redundant_words(), "-");
    }
}
