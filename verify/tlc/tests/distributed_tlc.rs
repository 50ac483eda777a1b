//! Distributed TLC (distributed.rs): TLCServer with two TLCWorker JVMs
//! over loopback finds a passing model's distinct states as the manifest
//! records them, names the invariant a must-fail model breaks, and refuses
//! a liveness model.

mod common;

use std::time::Duration;

use common::{specs_dir, tlc};
use ringlab_tlc::distributed::{self, DistOpts};
use ringlab_tlc::manifest::{Manifest, Model};
use ringlab_tlc::{Outcome, TlcResult};

fn model(name: &str) -> Model {
    let man = Manifest::load(&specs_dir().join("manifest.json")).unwrap();
    man.model(name).unwrap_or_else(|| panic!("no model {name}")).clone()
}

fn distributed(m: &Model) -> TlcResult {
    let (spec, cfg) = (specs_dir().join(&m.spec), specs_dir().join(&m.config));
    assert_eq!(distributed::refusal(m, &cfg), None);
    let opts = DistOpts { workers: 2, timeout: Duration::from_secs(300) };
    distributed::run(&tlc(), &spec, &cfg, &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{}: {e}", m.name))
}

#[test]
fn two_workers_find_the_manifests_distinct_states() {
    let m = model("xsk-ring-tx");
    let r = distributed(&m);
    assert_eq!(r.outcome, Outcome::Pass, "{:?}", r.outcome);
    assert!(m.distinct_states.is_some(), "the manifest records xsk-ring-tx's distinct states");
    assert_eq!(r.distinct_states, m.distinct_states);
}

#[test]
fn a_must_fail_model_breaks_the_same_invariant() {
    let m = model("xsk-ring-no-a");
    let r = distributed(&m);
    assert_eq!(r.outcome.label(), m.expected);
    assert!(!r.trace.is_empty(), "the server prints the counterexample");
}

#[test]
fn a_liveness_model_is_refused_naming_its_property() {
    let m = model("xsk-ring-live");
    let why = distributed::refusal(&m, &specs_dir().join(&m.config)).expect("refused");
    assert!(why.contains("PROPERTY EveryEntryConsumed") && why.contains("safety only"), "{why}");
    let m = model("xsk-ring-cons-no-publish");
    let why = distributed::refusal(&m, &specs_dir().join(&m.config)).expect("refused");
    assert!(why.contains("liveness:EveryEntryConsumed"), "{why}");
}
