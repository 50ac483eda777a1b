//! The NapiSkbCache model against a live TLC run on the current spec:
//! for each passing ci model, the very states TLC reaches (its -dump,
//! compared as printed by napi_cache::tla) and its counts of states
//! generated and distinct; for each failing one, TLC's counterexample
//! replays step for step in the model and ends in the invariant the
//! manifest expects. A spec whose states differ from the model's in a
//! value only (a string, an id the slab hands out, a field's initial value) fails
//! here. Needs java and the TLC jar (`make deps`).

mod common;

use common::dump::{assert_counterexample_replays, assert_reaches_tlcs_states, squash, Printed};
use ringlab_model::napi_cache::{tla, Config, Machine, ModelCfg, State};

fn printed(cfg: &Config, s: &State) -> Printed {
    tla::variables(cfg, s)
        .into_iter()
        .map(|(k, v)| (k.to_string(), squash(&v)))
        .collect()
}

/// The ci-tier models of the spec.
fn models() -> Vec<common::ManifestModel> {
    common::manifest_models_with_prefix("NapiSkbCache", "MCNapiSkbCache")
        .expect("specs/manifest.json")
        .into_iter()
        .filter(|m| m.tier == "ci")
        .collect()
}

fn cfg_of(m: &common::ManifestModel) -> (std::path::PathBuf, ModelCfg) {
    let path = common::specs_dir().join(format!("mc/MCNapiSkbCache{}.cfg", m.cfg));
    let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    (path, cfg)
}

/// A name for a scratch folder: the config's suffix, or "main" for
/// MCNapiSkbCache.cfg itself.
fn short(m: &common::ManifestModel) -> &str {
    m.cfg
        .strip_prefix('_')
        .filter(|c| !c.is_empty())
        .unwrap_or("main")
}

#[test]
fn passing_models_reach_tlcs_states() {
    let tlc = common::tlc();
    let spec = common::specs_dir().join("NapiSkbCache.tla");
    let passing: Vec<_> = models().into_iter().filter(|m| m.expected == "pass").collect();
    for m in &passing {
        let (path, mc) = cfg_of(m);
        let machine = Machine::from_model_cfg(&mc).unwrap();
        let print = |s: &State| printed(&mc.config, s);
        assert_reaches_tlcs_states(&m.name, &machine, print, &tlc, &spec, &path, &format!("napi-dump-{}", short(m)));
    }
    assert!(passing.len() >= 2);
}

#[test]
fn tlc_counterexamples_replay_in_the_model() {
    let tlc = common::tlc();
    let spec = common::specs_dir().join("NapiSkbCache.tla");
    let failing: Vec<_> = models()
        .into_iter()
        .filter(|m| m.expected.starts_with("violation:"))
        .collect();
    // Each run is mostly JVM start-up: two at a time.
    let checked = common::in_pairs(&failing, |m| {
        let (path, mc) = cfg_of(m);
        let machine = Machine::from_model_cfg(&mc).unwrap();
        let print = |s: &State| printed(&mc.config, s);
        let scratch = format!("napi-cex-{}", short(m));
        let n = assert_counterexample_replays(&m.name, &m.expected, &machine, print, &tlc, &spec, &path, &scratch);
        println!("{}: {n} states replayed, {}", m.name, m.expected);
    });
    assert!(checked.len() >= 11, "{} violation models", checked.len());
}
