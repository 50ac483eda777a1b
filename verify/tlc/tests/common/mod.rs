//! Shared by the integration tests: where the specs and TLC are.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub use ringlab_tlc::specs_dir;
pub mod dump;
pub mod plain_bfs;
pub mod sim_trace;
pub mod vs_tlc;

use ringlab_tlc::trace::{TraceError, Verdict};
use ringlab_tlc::Tlc;

pub fn cfg_path(name: &str) -> PathBuf {
    specs_dir().join(format!("mc/MCXskRing_{name}.cfg"))
}

/// Java and the TLC jar ($RINGLAB_TLC_JAR, else the one `make deps` puts in
/// ~/.m2). Panics, never skips, when either is missing.
pub fn tlc() -> Tlc {
    Tlc::locate().unwrap_or_else(|e| panic!("{e}"))
}

/// A simulator run as a trace test sees it: its name, the actions it
/// took (`steps[k - 1]` for step k) and the states it logged.
pub struct Logged<'a> {
    pub name: &'a str,
    pub steps: &'a [String],
    pub states: usize,
}

/// TLC's verdict on a log it accepts: one distinct state a log line (the
/// trace spec's i).
pub fn accepted_log(states: usize) -> Verdict {
    Verdict::Accepted { steps: states - 1, distinct_states: states as u64 }
}

/// The runs `verdicts` (one a run) reject, each as "run: step k (the
/// action taken there) is not a step of `spec`: why"; an accepted run
/// must be accepted with every line of its log. A run with no verdict
/// (None: not checked, see [`until_rejected`]) is skipped.
pub fn not_behaviours<'a, V: Into<Option<Verdict>>>(runs: impl IntoIterator<Item = Logged<'a>>, verdicts: Vec<V>, spec: &str) -> Vec<String> {
    let mut rejected = Vec::new();
    for (r, v) in runs.into_iter().zip(verdicts) {
        let Some(v) = v.into() else { continue };
        match v {
            Verdict::Rejected { step, reason, .. } => {
                let taken = step.checked_sub(1).and_then(|k| r.steps.get(k)).map_or("none", String::as_str);
                rejected.push(format!("{}: step {step} ({taken}) is not a step of {spec}: {reason}", r.name));
            }
            v => assert_eq!(v, accepted_log(r.states), "{}", r.name),
        }
    }
    rejected
}

/// Two TLC runs at a time across the tests of a file: each run is mostly
/// JVM start-up on one core, and more only contend.
static TLC_SLOTS: [std::sync::Mutex<()>; 2] = [std::sync::Mutex::new(()), std::sync::Mutex::new(())];

/// `f` on each item, half of them on each TLC slot.
pub fn in_pairs<I: Sync, T: Send>(items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let f = &f;
    std::thread::scope(|sc| {
        let halves: Vec<_> = items
            .chunks(items.len().div_ceil(2).max(1))
            .zip(&TLC_SLOTS)
            .map(|(half, slot)| {
                sc.spawn(move || {
                    let one = |i: &I| {
                        let _slot = slot.lock().unwrap_or_else(|e| e.into_inner());
                        f(i)
                    };
                    half.iter().map(one).collect::<Vec<T>>()
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

/// [`in_pairs`] of TLC verdicts, but with a mutant built in no run starts
/// once one is rejected (a kill needs one; `ringlab mutants` runs this
/// test once a mutant): those runs get None. Without a mutant every run
/// is checked, so that a failure lists every run it breaks.
pub fn until_rejected<I: Sync>(items: &[I], f: impl Fn(&I) -> Verdict + Sync) -> Vec<Option<Verdict>> {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let (early, stop) = (ringlab_mutant::active().is_some(), AtomicBool::new(false));
    in_pairs(items, |i| {
        if stop.load(Relaxed) {
            return None;
        }
        let v = f(i);
        if early && matches!(v, Verdict::Rejected { .. }) {
            stop.store(true, Relaxed);
        }
        Some(v)
    })
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ringlab-model-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// One model of specs/manifest.json.
#[derive(Clone, Debug)]
pub struct ManifestModel {
    pub name: String,
    /// The config's name between `MC<module>_` and `.cfg`, e.g. `Fill`.
    pub cfg: String,
    /// `pass`, `violation:Inv`, `deadlock` or `liveness:Prop`.
    pub expected: String,
    pub tier: String,
    pub distinct_states: Option<usize>,
    pub depth: Option<usize>,
}

/// Why `summary`, the model's outcome, is not what `m` expects, if it is
/// not. The model checks safety only: a liveness model must pass it.
pub fn outcome_mismatch(m: &ManifestModel, summary: &str) -> Option<String> {
    let want = if m.expected.starts_with("liveness:") {
        "pass"
    } else {
        m.expected.as_str()
    };
    (summary != want).then(|| {
        format!(
            "{}: manifest expects {}, model found {summary}",
            m.name, m.expected
        )
    })
}

/// Where a passing model's search differs from TLC's counts that `m`
/// records (distinct states always, depth when recorded).
pub fn count_mismatches(m: &ManifestModel, distinct: usize, depth: usize) -> Vec<String> {
    let mut bad = Vec::new();
    if m.distinct_states != Some(distinct) {
        bad.push(format!(
            "{}: manifest records {:?} distinct states, model found {distinct}",
            m.name, m.distinct_states
        ));
    }
    if m.depth.is_some() && m.depth != Some(depth) {
        bad.push(format!(
            "{}: manifest records depth {:?}, model found {depth}",
            m.name, m.depth
        ));
    }
    bad
}

/// The XskRing models of specs/manifest.json, None if there is no manifest.
pub fn manifest_models() -> Option<Vec<ManifestModel>> {
    manifest_models_of("XskRing")
}

/// The models of specs/`module`.tla in specs/manifest.json (`cfg` is the
/// name between `MC<module>_` and `.cfg`), None if there is no manifest.
pub fn manifest_models_of(module: &str) -> Option<Vec<ManifestModel>> {
    manifest_models_with_prefix(module, &format!("MC{module}_"))
}

/// The models of specs/`module`.tla whose configs are named
/// `mc/<prefix><cfg>.cfg` (`cfg` is the name between them), None if there
/// is no manifest.
pub fn manifest_models_with_prefix(module: &str, prefix: &str) -> Option<Vec<ManifestModel>> {
    let text = std::fs::read_to_string(specs_dir().join("manifest.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).expect("specs/manifest.json is JSON");
    let models = json["models"]
        .as_array()
        .expect("manifest has a `models` array");
    let field = |m: &serde_json::Value, k: &str| {
        m[k].as_str()
            .unwrap_or_else(|| panic!("model without `{k}`: {m}"))
            .to_string()
    };
    Some(
        models
            .iter()
            .filter(|m| m["spec"] == format!("{module}.tla").as_str())
            .map(|m| {
                let config = field(m, "config");
                let cfg = config
                    .strip_prefix(format!("mc/{prefix}").as_str())
                    .and_then(|c| c.strip_suffix(".cfg"))
                    .unwrap_or_else(|| panic!("unexpected config path {config}"))
                    .to_string();
                ManifestModel {
                    name: field(m, "name"),
                    cfg,
                    expected: field(m, "expected"),
                    tier: field(m, "tier"),
                    distinct_states: m["distinct_states"].as_u64().map(|d| d as usize),
                    depth: m["depth"].as_u64().map(|d| d as usize),
                }
            })
            .collect(),
    )
}

/// Each case's verdict from `check(tlc, case, dir)`, in a scratch folder
/// of its own named `prefix` and `name(case)` (removed after), two at a
/// time: checked there rather than through validate, which keeps a
/// rejected trace's model.
pub fn check_in_scratch<C: Sync>(
    prefix: &str,
    cases: &[C],
    name: impl Fn(&C) -> &str + Sync,
    check: impl Fn(&Tlc, &C, &Path) -> Result<Verdict, TraceError> + Sync,
) -> Vec<Verdict> {
    let tlc = tlc();
    in_pairs(cases, |c| {
        let dir = std::env::temp_dir().join(format!("ringlab-{prefix}-{}-{}", std::process::id(), name(c)));
        let v = check(&tlc, c, &dir);
        let _ = std::fs::remove_dir_all(&dir);
        let v = v.unwrap_or_else(|e| panic!("{}: {e}", name(c)));
        eprintln!("{}: {v:?}", name(c));
        v
    })
}

/// `v` rejects the corrupted trace `name` at step `want`: with `taken`,
/// the action the run took there, among TLC's candidates at the state
/// before; with none (step 0), with `not_init` in its reason.
pub fn assert_rejected_at(name: &str, v: Verdict, want: usize, taken: Option<&String>, not_init: &str) {
    let Verdict::Rejected { step, reason, enabled } = v else {
        panic!("{name}: accepted");
    };
    assert_eq!(step, want, "{name}: {reason}");
    match taken {
        Some(a) => assert!(
            reason.contains(&format!(" to state {step} (it changes "))
                && reason.contains(&format!("; enabled at state {}: ", step - 1))
                && enabled.contains(a),
            "{name}: {a} is not a candidate: {reason}"
        ),
        None => assert!(reason.contains(not_init), "{name}: {reason}"),
    }
}
