//! The IoUringZcNotif model against a live TLC run on the current spec:
//! for each passing ci model, the very states TLC reaches (its -dump,
//! compared as printed by iouring_zc::tla) and its counts of states
//! generated and distinct; for each failing one, TLC's counterexample
//! replays step for step in the model and ends in the invariant the
//! manifest expects. A spec whose states differ from the model's in a
//! value only (an error code, a string, a field's initial value) fails
//! here. Needs java and the TLC jar (`make deps`).

mod common;

use std::collections::{HashSet, VecDeque};

use common::dump::{dump_states, squash, Printed};
use ringlab_model::iouring_zc::{self, tla, Config, ModelCfg, State};
use ringlab_tlc::{RunOpts, TlcResult};

fn printed(cfg: &Config, s: &State) -> Printed {
    tla::variables(cfg, s)
        .into_iter()
        .map(|(k, v)| (k.to_string(), squash(&v)))
        .collect()
}

/// Every reachable state of the model, and the successors computed
/// (Done's stutter among them, as TLC counts it).
fn reachable(cfg: &Config) -> (Vec<State>, usize) {
    let init = State::init(cfg);
    let mut seen: HashSet<State> = HashSet::from([init.clone()]);
    let mut queue = VecDeque::from([init.clone()]);
    let mut all = vec![init];
    let mut generated = 1;
    while let Some(s) = queue.pop_front() {
        for (_, t) in s.successors(cfg) {
            generated += 1;
            if seen.insert(t.clone()) {
                all.push(t.clone());
                queue.push_back(t);
            }
        }
    }
    (all, generated)
}

/// The ci-tier models of the spec.
fn models() -> Vec<common::ManifestModel> {
    common::manifest_models_with_prefix("IoUringZcNotif", "MCIoUringZcNotif")
        .expect("specs/manifest.json")
        .into_iter()
        .filter(|m| m.tier == "ci")
        .collect()
}

fn cfg_of(m: &common::ManifestModel) -> (std::path::PathBuf, ModelCfg) {
    let path = common::specs_dir().join(format!("mc/MCIoUringZcNotif{}.cfg", m.cfg));
    let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    (path, cfg)
}

/// A name for a scratch folder: the config's suffix, or "main" for
/// MCIoUringZcNotif.cfg itself.
fn short(m: &common::ManifestModel) -> &str {
    m.cfg
        .strip_prefix('_')
        .filter(|c| !c.is_empty())
        .unwrap_or("main")
}

#[test]
fn passing_models_reach_tlcs_states() {
    let tlc = common::tlc();
    let spec = common::specs_dir().join("IoUringZcNotif.tla");
    let mut checked = 0;
    for m in models().iter().filter(|m| m.expected == "pass") {
        let (path, mc) = cfg_of(m);
        let dir = common::scratch(&format!("iouring-dump-{}", short(m)));
        let dump = dir.join("states");
        let out = ringlab_tlc::run_args(
            &tlc,
            &dir,
            [
                "-tool".as_ref(),
                "-workers".as_ref(),
                "1".as_ref(),
                "-dump".as_ref(),
                dump.as_os_str(),
                "-config".as_ref(),
                path.as_os_str(),
                spec.as_os_str(),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let res: TlcResult = ringlab_tlc::Parser::parse_str(&stdout);
        assert_eq!(
            res.outcome.label(),
            "pass",
            "{}: TLC says\n{stdout}",
            m.name
        );
        let text = std::fs::read_to_string(dir.join("states.dump")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let theirs: HashSet<Printed> = dump_states(&text).into_iter().collect();

        let (states, generated) = reachable(&mc.config);
        let ours: HashSet<Printed> = states.iter().map(|s| printed(&mc.config, s)).collect();
        assert_eq!(
            ours.len(),
            states.len(),
            "{}: two states print alike",
            m.name
        );
        let only_ours: Vec<_> = ours.difference(&theirs).take(2).collect();
        let only_theirs: Vec<_> = theirs.difference(&ours).take(2).collect();
        assert!(
            only_ours.is_empty() && only_theirs.is_empty(),
            "{}: model only {only_ours:?}\nTLC only {only_theirs:?}",
            m.name
        );
        assert_eq!(res.distinct_states, Some(states.len() as u64), "{}", m.name);
        assert_eq!(res.states_generated, Some(generated as u64), "{}", m.name);
        println!(
            "{}: {} states, {generated} generated, as TLC",
            m.name,
            states.len()
        );
        checked += 1;
    }
    assert!(checked >= 2);
}

#[test]
fn tlc_counterexamples_replay_in_the_model() {
    let tlc = common::tlc();
    let spec = common::specs_dir().join("IoUringZcNotif.tla");
    let failing: Vec<_> = models()
        .into_iter()
        .filter(|m| m.expected.starts_with("violation:"))
        .collect();
    // Each run is mostly JVM start-up: two at a time.
    let checked = common::in_pairs(&failing, |m| {
        let (path, mc) = cfg_of(m);
        let cfg = &mc.config;
        let dir = common::scratch(&format!("iouring-cex-{}", short(m)));
        let opts = RunOpts {
            workers: 1,
            metadir: dir.join("meta"),
            library: None,
            extra: Vec::new(),
        };
        let res = ringlab_tlc::run(&tlc, &spec, &path, &[], &opts, &mut |_| {});
        let _ = std::fs::remove_dir_all(&dir);
        let res = res.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(res.outcome.label(), m.expected, "{}", m.name);
        let theirs: Vec<Printed> = res
            .trace
            .iter()
            .map(|t| t.vars.iter().map(|(k, v)| (k.clone(), squash(v))).collect())
            .collect();
        assert!(!theirs.is_empty(), "{}: no trace", m.name);
        let mut s = State::init(cfg);
        assert_eq!(printed(cfg, &s), theirs[0], "{}: initial state", m.name);
        for (i, want) in theirs.iter().enumerate().skip(1) {
            let (_, next) = s
                .successors(cfg)
                .into_iter()
                .find(|(_, t)| printed(cfg, t) == *want)
                .unwrap_or_else(|| panic!("{}: TLC's state {} is no successor", m.name, i + 1));
            s = next;
        }
        let inv = m.expected.strip_prefix("violation:").unwrap();
        assert_eq!(s.violated(cfg, &mc.invariants), Some(inv), "{}", m.name);
        assert_eq!(
            iouring_zc::invariant(inv).map(|(_, holds)| holds(&s, cfg)),
            Some(false)
        );
        println!("{}: {} states replayed, {inv}", m.name, theirs.len());
    });
    assert!(checked.len() >= 14, "{} violation models", checked.len());
}
