//! specs/manifest.json: every TLC model with the outcome it must have, and
//! every mutant with the checks that must kill it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub about: String,
    pub models: Vec<Model>,
    pub mutants: Vec<Mutant>,
    /// Per spec file: how its action coverage is judged.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub specs: BTreeMap<String, SpecPolicy>,
}

/// How a spec's action coverage is judged (see `coverage`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SpecPolicy {
    /// Actions a constant turns off in some models, with why; another
    /// ci model of the spec must take each.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub idle: BTreeMap<String, String>,
    /// Actions whose every transition is another action's, on purpose,
    /// with why.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub aliases: BTreeMap<String, String>,
    /// Models whose state graph is read for the redundancy check (passing
    /// ci models of the spec; default: its smallest one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transitions: Vec<String>,
    /// The Rust model that implements the spec, and the tests that hold
    /// the two together. With one, a passing ci model whose distinct states
    /// or depth differ from the manifest fails: the spec no longer agrees
    /// with its reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// Who takes each action (the application, the kernel, the driver...):
    /// actor name -> actions. Every action has exactly one (the coverage
    /// check holds it); `ringlab check --actor` projects a trace on one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub actors: BTreeMap<String, Vec<String>>,
}

/// A spec's reference model (see [`SpecPolicy::reference`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Reference {
    /// Where the model is (model/src/...).
    pub model: String,
    /// The integration tests that run the spec against the model, as
    /// `package/test` (ringlab-tlc/tlc_bfs); each reads the spec through
    /// `specs_dir()`, so the mutation campaign can hold it to a mutant.
    pub tests: Vec<String>,
    /// What the tests compare.
    pub about: String,
}

impl Reference {
    /// Each test as (package, test target).
    pub fn test_targets(&self) -> Vec<(&str, &str)> {
        self.tests.iter().filter_map(|t| t.split_once('/')).collect()
    }

    /// One line for a message: the model and what holds it to the spec.
    pub fn words(&self) -> String {
        format!("{}, {}", self.model, self.tests.join(", "))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Model {
    pub name: String,
    pub spec: String,
    pub config: String,
    /// `pass`, `violation:Inv`, `deadlock` or `liveness:Prop`.
    pub expected: String,
    /// `ci` (make test, make verify) or `deep` (make verify-deep).
    pub tier: String,
    pub about: String,
    /// Measured by `ringlab check --record`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct_states: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Mutant {
    pub id: String,
    /// `real` (a bug that shipped) or `synthetic` (one per invariant).
    pub kind: String,
    /// The fix's title, or what was broken.
    pub bug: String,
    pub year: Option<u32>,
    pub what: String,
    /// Where the fix is described, when it is not a kernel commit (the
    /// report finds those by title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    pub killers: Vec<Killer>,
}

/// A check that must fail when the mutant is in.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "check", rename_all = "lowercase")]
pub enum Killer {
    /// A TLC model whose expected outcome is the violation.
    Tlc { model: String },
    /// `RINGLAB_MUTANT=<feature> cargo test -p ringlab-sim --features
    /// mutants --test <test>`: `feature` names the mutant in
    /// ringlab-mutant (every mutant is compiled in behind its switch).
    Proptest { feature: String, test: String },
    /// The same under `--cfg loom`.
    Loom { feature: String, test: String },
    /// The same, a test of the simulator on real threads (its real-thread
    /// runner: every interleaving the hardware gives, seeded choices).
    Threads { feature: String, test: String },
    /// A simulator trace that TLC must reject.
    Trace { feature: String, test: String },
    /// A Z3 proof of the mutant's arithmetic that must be refuted.
    Proof { proof: String },
    /// The same in ringlab-kernel:
    /// the live-kernel differential campaign with a wrong model built in.
    Diff { feature: String, test: String },
    /// The same in `package`: the chain from the kernel's model to the spec (the step
    /// check in ringlab-kernel, TLC in ringlab-tlc) with a wrong model.
    Chain { feature: String, test: String, package: String },
}

/// The packages whose tests a `chain` killer may run.
pub const CHAIN_PACKAGES: [&str; 2] = ["ringlab-kernel", "ringlab-tlc"];

impl Killer {
    /// The cargo test target this killer runs, if it runs one.
    pub fn test_target(&self) -> Option<&str> {
        match self {
            Killer::Tlc { .. } | Killer::Proof { .. } => None,
            Killer::Proptest { test, .. }
            | Killer::Loom { test, .. }
            | Killer::Threads { test, .. }
            | Killer::Trace { test, .. }
            | Killer::Diff { test, .. }
            | Killer::Chain { test, .. } => Some(test),
        }
    }

    /// How the mutation matrix names this check.
    pub fn label(&self) -> String {
        match self {
            Killer::Tlc { model } => format!("tlc:{model}"),
            Killer::Proptest { test, .. } => format!("proptest:{test}"),
            Killer::Loom { test, .. } => format!("loom:{test}"),
            Killer::Threads { test, .. } => format!("threads:{test}"),
            Killer::Trace { test, .. } => format!("trace:{test}"),
            Killer::Proof { proof } => format!("proof:{proof}"),
            Killer::Diff { test, .. } => format!("diff:{test}"),
            Killer::Chain { test, .. } => format!("chain:{test}"),
        }
    }

    /// The mutant a Rust check runs with (RINGLAB_MUTANT), if it is one.
    pub fn feature(&self) -> Option<&str> {
        match self {
            Killer::Proptest { feature, .. }
            | Killer::Loom { feature, .. }
            | Killer::Threads { feature, .. }
            | Killer::Trace { feature, .. }
            | Killer::Diff { feature, .. }
            | Killer::Chain { feature, .. } => Some(feature),
            Killer::Tlc { .. } | Killer::Proof { .. } => None,
        }
    }
}

pub const VALID_EXPECTED: &str = "pass, violation:<Invariant or action property>, deadlock or liveness:<Property>";

impl Manifest {
    pub fn load(path: &Path) -> Result<Manifest, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read manifest {}: {e}", path.display()))?;
        let m: Manifest = serde_json::from_str(&text)
            .map_err(|e| format!("manifest {}: {e}", path.display()))?;
        m.validate(path.parent().unwrap_or(Path::new(".")))
            .map_err(|e| format!("manifest {}: {e}", path.display()))?;
        Ok(m)
    }

    /// Rejects a manifest that could make a check pass vacuously.
    pub fn validate(&self, dir: &Path) -> Result<(), String> {
        self.validate_references()?;
        let mut seen = std::collections::HashSet::new();
        for m in &self.models {
            if !seen.insert(&m.name) {
                return Err(format!("model `{}` is listed twice", m.name));
            }
            let ok = m.expected == "pass"
                || m.expected == "deadlock"
                || m.expected.strip_prefix("violation:").is_some_and(|s| !s.is_empty())
                || m.expected.strip_prefix("liveness:").is_some_and(|s| !s.is_empty());
            if !ok {
                return Err(format!(
                    "model `{}`: expected `{}` is not one of {VALID_EXPECTED}",
                    m.name, m.expected
                ));
            }
            if m.tier != "ci" && m.tier != "deep" {
                return Err(format!("model `{}`: tier `{}` is not ci or deep", m.name, m.tier));
            }
            for f in [&m.spec, &m.config] {
                if !dir.join(f).is_file() {
                    return Err(format!("model `{}`: no file {}", m.name, dir.join(f).display()));
                }
            }
            check_cfg(m, &dir.join(&m.config))?;
        }
        for (spec, p) in &self.specs {
            if !self.models.iter().any(|m| &m.spec == spec) {
                return Err(format!("specs: no model checks `{spec}`"));
            }
            for (what, keys) in [("idle", &p.idle), ("aliases", &p.aliases)] {
                for (k, why) in keys {
                    if !is_ident(k) || why.trim().is_empty() {
                        return Err(format!("specs `{spec}`: {what} `{k}` needs an action name and a reason"));
                    }
                }
            }
            for (n, xs) in &p.actors {
                if !is_ident(n) || xs.is_empty() || !xs.iter().all(|x| is_ident(x)) {
                    return Err(format!("specs `{spec}`: actor `{n}` needs a name and a list of action names"));
                }
            }
            for t in &p.transitions {
                let Some(m) = self.model(t) else {
                    return Err(format!("specs `{spec}`: no model `{t}`"));
                };
                if &m.spec != spec || m.expected != "pass" || m.tier != "ci" {
                    return Err(format!("specs `{spec}`: transitions model `{t}` is not a passing ci model of it"));
                }
            }
        }
        let mut ids = std::collections::HashSet::new();
        for mu in &self.mutants {
            if !ids.insert(&mu.id) {
                return Err(format!("mutant `{}` is listed twice", mu.id));
            }
            if let Some(l) = &mu.link {
                if !(l.starts_with("https://") || l.starts_with("http://")) {
                    return Err(format!("mutant `{}`: link `{l}` is not an http(s) address", mu.id));
                }
            }
            if mu.killers.is_empty() {
                return Err(format!("mutant `{}` names no check that kills it", mu.id));
            }
            for k in &mu.killers {
                if let Some(f) = k.feature() {
                    if !ringlab_mutant::KNOWN.contains(&f) {
                        return Err(format!(
                            "mutant `{}`: check {} puts back `{f}`, which ringlab-mutant does not know (model/mutant/src/lib.rs)",
                            mu.id,
                            k.label()
                        ));
                    }
                }
                if let Killer::Chain { package, .. } = k {
                    if !CHAIN_PACKAGES.contains(&package.as_str()) {
                        return Err(format!(
                            "mutant `{}`: a chain check runs in {}, not `{package}`",
                            mu.id,
                            CHAIN_PACKAGES.join(" or ")
                        ));
                    }
                }
                if let Killer::Tlc { model } = k {
                    let Some(m) = self.models.iter().find(|m| &m.name == model) else {
                        return Err(format!("mutant `{}`: no model `{model}`", mu.id));
                    };
                    if m.expected == "pass" {
                        return Err(format!(
                            "mutant `{}`: model `{model}` is expected to pass, so it cannot kill it",
                            mu.id
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Each spec's reference names tests, each `package/test`.
    fn validate_references(&self) -> Result<(), String> {
        for (spec, p) in &self.specs {
            let Some(r) = &p.reference else { continue };
            if r.tests.is_empty() {
                return Err(format!("specs.{spec}.reference: names no test"));
            }
            if let Some(t) = r.tests.iter().find(|t| t.split_once('/').map_or(true, |(a, b)| a.is_empty() || b.is_empty())) {
                return Err(format!("specs.{spec}.reference: test `{t}` is not package/test"));
            }
        }
        Ok(())
    }

    pub fn model(&self, name: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.name == name)
    }

    /// The models of `spec` whose state graph the check reads: the
    /// manifest's list, else the passing ci model with the fewest states.
    pub fn graph_models(&self, spec: &str) -> Vec<&str> {
        if let Some(p) = self.specs.get(spec).filter(|p| !p.transitions.is_empty()) {
            return p.transitions.iter().map(String::as_str).collect();
        }
        self.models
            .iter()
            .filter(|m| m.spec == spec && m.tier == "ci" && m.expected == "pass")
            .min_by_key(|m| m.distinct_states.unwrap_or(u64::MAX))
            .map(|m| vec![m.name.as_str()])
            .unwrap_or_default()
    }

    /// The coverage policy of `spec` (empty if the manifest has none).
    pub fn policy(&self, spec: &str) -> SpecPolicy {
        self.specs.get(spec).cloned().unwrap_or_default()
    }
}

/// A TLA+ identifier.
pub fn is_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The expected outcome is one the model's cfg can produce: the named
/// invariant or property is checked there, and a deadlock is looked for.
/// A typo here would otherwise only show when TLC has run.
fn check_cfg(m: &Model, cfg: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(cfg).map_err(|e| format!("model `{}`: {}: {e}", m.name, cfg.display()))?;
    let (want, kinds, listed) = if let Some(inv) = m.expected.strip_prefix("violation:") {
        // An invariant, or an action property such as a refinement
        // (`Refinement == Abs!Spec`), which TLC also reports as violated.
        let mut listed = cfg_section(&text, &["INVARIANT", "INVARIANTS"]);
        listed.extend(cfg_section(&text, &["PROPERTY", "PROPERTIES"]));
        (inv, "INVARIANT or PROPERTY", listed)
    } else if let Some(prop) = m.expected.strip_prefix("liveness:") {
        (prop, "PROPERTY", cfg_section(&text, &["PROPERTY", "PROPERTIES"]))
    } else {
        let no_deadlock = text.lines().any(|l| l.split("\\*").next().unwrap_or("").split_whitespace().collect::<Vec<_>>() == ["CHECK_DEADLOCK", "FALSE"]);
        if m.expected == "deadlock" && no_deadlock {
            return Err(format!("model `{}`: expected a deadlock, but {} has CHECK_DEADLOCK FALSE", m.name, cfg.display()));
        }
        return Ok(());
    };
    if !listed.iter().any(|x| x == want) {
        return Err(format!(
            "model `{}`: expected `{}`, but {} checks no {kinds} {want} (it checks: {})",
            m.name,
            m.expected,
            cfg.display(),
            if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
        ));
    }
    Ok(())
}

/// The temporal properties a cfg file asks TLC to check.
pub fn cfg_properties(cfg: &Path) -> Vec<String> {
    std::fs::read_to_string(cfg).map(|t| cfg_section(&t, &["PROPERTY", "PROPERTIES"])).unwrap_or_default()
}

/// The names listed under `keys` (e.g. INVARIANT, INVARIANTS) in a cfg.
fn cfg_section(text: &str, keys: &[&str]) -> Vec<String> {
    let mut props = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("\\*").next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        match words.next() {
            Some(k) if keys.contains(&k) => {
                in_block = true;
                props.extend(words.map(str::to_string));
            }
            Some(w) if w.chars().all(|c| c.is_ascii_uppercase() || c == '_') && w.len() > 2 => {
                in_block = false
            }
            Some(w) if in_block => {
                props.push(w.to_string());
                props.extend(words.map(str::to_string));
            }
            _ => {}
        }
    }
    props
}

pub use ringlab_model::paths::find_root;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
    }

    #[test]
    fn the_real_manifest_is_valid() {
        let m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        assert!(m.models.iter().any(|m| m.expected == "pass"));
        assert!(m.models.iter().any(|m| m.expected.starts_with("violation:")));
    }

    #[test]
    fn every_invariant_in_a_cfg_has_a_model_that_must_break_it() {
        let m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        let dir = root().join("specs");
        let mut checked = std::collections::BTreeSet::new();
        for model in &m.models {
            let text = std::fs::read_to_string(dir.join(&model.config)).unwrap();
            checked.extend(cfg_section(&text, &["INVARIANT", "INVARIANTS"]));
            checked.extend(cfg_properties(&dir.join(&model.config)));
        }
        for name in checked {
            let broken = m
                .models
                .iter()
                .any(|x| x.expected == format!("violation:{name}") || x.expected == format!("liveness:{name}"));
            assert!(broken, "{name} is checked but no model is expected to break it");
        }
    }

    #[test]
    fn rejects_a_mutant_killed_by_a_passing_model() {
        let mut m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        m.mutants[0].killers = vec![Killer::Tlc { model: "xsk-ring-fill".into() }];
        let e = m.validate(&root().join("specs")).unwrap_err();
        assert!(e.contains("expected to pass"), "{e}");
    }

    #[test]
    fn a_mutant_link_is_optional_and_must_be_an_address() {
        let mut m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        assert!(m.mutants.iter().any(|mu| mu.link.is_none()));
        let wa = m.mutants.iter().find(|mu| mu.id == "wrapping-add").unwrap();
        assert_eq!(wa.link.as_deref(), Some("https://github.com/DouglasGray/xsk-rs/issues/53"));
        m.mutants[0].link = Some("xsk-rs#53".into());
        let e = m.validate(&root().join("specs")).unwrap_err();
        assert!(e.contains("not an http(s) address"), "{e}");
    }

    #[test]
    fn a_chain_killer_names_its_package() {
        let mut m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        let k: Killer = serde_json::from_str(
            r#"{"check": "chain", "feature": "f", "test": "chain", "package": "ringlab-kernel"}"#,
        )
        .unwrap();
        assert_eq!(k.label(), "chain:chain");
        let f = "mutant-chain-unsubmitted-completion";
        m.mutants[0].killers = vec![Killer::Chain { feature: f.into(), test: "t".into(), package: "ringlab-sim".into() }];
        let e = m.validate(&root().join("specs")).unwrap_err();
        assert!(e.contains("chain check runs in"), "{e}");
    }

    #[test]
    fn a_rust_killer_puts_back_a_mutant_ringlab_mutant_knows() {
        let mut m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        m.mutants[0].killers = vec![Killer::Proptest { feature: "mutant-xsk-rbm".into(), test: "sim_vs_model".into() }];
        let e = m.validate(&root().join("specs")).unwrap_err();
        assert!(e.contains("puts back `mutant-xsk-rbm`, which ringlab-mutant does not know"), "{e}");
    }

    #[test]
    fn rejects_an_unknown_expected_outcome() {
        let mut m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        m.models[0].expected = "fails".into();
        let e = m.validate(&root().join("specs")).unwrap_err();
        assert!(e.contains("not one of"), "{e}");
    }

    #[test]
    fn an_expected_invariant_the_cfg_does_not_check_is_refused() {
        let mut m = Manifest::load(&root().join("specs/manifest.json")).unwrap();
        let i = m.models.iter().position(|x| x.expected.starts_with("violation:")).unwrap();
        let right = m.models[i].expected.clone();
        m.models[i].expected = format!("{right}Typo");
        let e = m.validate(&root().join("specs")).unwrap_err();
        assert!(e.contains(&format!("expected `{right}Typo`")) && e.contains(".cfg checks no INVARIANT") && e.contains(&right["violation:".len()..]), "{e}");
        m.models[i].expected = right;
        let j = m.models.iter().position(|x| x.expected.starts_with("liveness:")).unwrap();
        m.models[j].expected = "liveness:NoSuchProperty".into();
        let e = m.validate(&root().join("specs")).unwrap_err();
        assert!(e.contains("checks no PROPERTY NoSuchProperty"), "{e}");
    }

    #[test]
    fn reads_properties_from_a_cfg() {
        let p = cfg_properties(&root().join("specs/mc/MCXskRing_Live.cfg"));
        assert_eq!(p, vec!["EveryEntryConsumed".to_string()]);
    }
}
