//! TLC's random behaviours of each passing model replay step for step in
//! the Rust model. Needs java and the TLC jar (`make deps`).

mod common;

use std::collections::BTreeMap;

use ringlab_model::replay::ReplayErrorKind;
use ringlab_model::{replay, states_from_dump, Action, Config};

const BEHAVIOURS: usize = 20;
const DEPTH: usize = 60;

fn seed() -> u64 {
    std::env::var("RINGLAB_TLC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Simulate `name` in TLC and replay every behaviour in the model.
fn replay_simulation(name: &str) {
    let tlc = common::tlc();
    let cfg_path = common::cfg_path(name);
    let cfg = Config::from_cfg_file(&cfg_path).unwrap_or_else(|e| panic!("{e}"));
    let dir = common::scratch(&format!("sim-{name}"));
    let seed = seed();
    println!("{name}: TLC -simulate, {BEHAVIOURS} behaviours of depth {DEPTH}, seed {seed} (RINGLAB_TLC_SEED)");
    let file = format!("file={},num={BEHAVIOURS}", dir.join("trace").display());
    let (depth, seed_s) = (DEPTH.to_string(), seed.to_string());
    let spec = common::specs_dir().join("XskRing.tla");
    let out = ringlab_tlc::run_args(
        &tlc,
        &dir,
        [
            "-simulate",
            &file,
            "-depth",
            &depth,
            "-seed",
            &seed_s,
            "-workers",
            "1",
            "-config",
            &cfg_path.display().to_string(),
            &spec.display().to_string(),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "TLC -simulate failed on {name}:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("trace_"))
        })
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        BEHAVIOURS,
        "TLC wrote {} behaviours for {name}:\n{stdout}",
        files.len()
    );

    let mut actions: BTreeMap<&str, usize> = BTreeMap::new();
    let mut choices = std::collections::HashSet::new();
    let mut steps = 0;
    let mut first = None;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let states = states_from_dump(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let replayed = replay(&cfg, &states)
            .unwrap_or_else(|e| panic!("{name}, seed {seed}, {}:\n{e}", f.display()));
        steps += replayed.len();
        for a in &replayed {
            *actions.entry(a.name()).or_default() += 1;
            choices.insert(*a);
        }
        first.get_or_insert(states);
    }
    println!(
        "{name}: replayed {} behaviours, {steps} steps, {} distinct choices: {actions:?}",
        files.len(),
        choices.len()
    );
    assert!(
        actions.len() >= 5,
        "{name}: too few kinds of action exercised: {actions:?}"
    );
    if cfg.invalid_descs {
        assert!(
            choices.contains(&Action::ProdWrite { ok: false }),
            "{name}: no invalid descriptor stored"
        );
    }

    // A replay that accepts a corrupted behaviour would prove nothing.
    let mut states = first.unwrap();
    let k = states.len() / 2;
    states[k].c_exp = cfg.add(states[k].c_exp, 1);
    states.truncate(k + 1);
    let e = replay(&cfg, &states).expect_err("a corrupted behaviour must not replay");
    assert_eq!(e.state, k + 1, "{e}");
    assert!(matches!(e.kind, ReplayErrorKind::NoAction { .. }), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fill() {
    replay_simulation("Fill");
}

#[test]
fn tx() {
    replay_simulation("Tx");
}

#[test]
fn comp() {
    replay_simulation("Comp");
}

#[test]
fn comp4() {
    replay_simulation("Comp4");
}

#[test]
fn fill4() {
    replay_simulation("Fill4");
}

#[test]
fn tx4() {
    replay_simulation("Tx4");
}
