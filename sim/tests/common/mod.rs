//! The proptest configuration the model comparisons share: a seeded RNG,
//! so that a run replays exactly, and the seed printed.
//!
//! `RINGLAB_SEED=<u64>` replays a run, `RINGLAB_SEED=random` draws a new
//! seed (printed, so a failure can be replayed); without it every run uses
//! the same seed. `PROPTEST_CASES` overrides the number of cases.

use std::fmt::{Debug, Display};

use proptest::test_runner::{Config, RngSeed};

/// The seed used when `RINGLAB_SEED` is not set.
const DEFAULT_SEED: u64 = 0x5249_4e47_4c41_4201;

fn seed() -> u64 {
    match std::env::var("RINGLAB_SEED") {
        Err(_) => DEFAULT_SEED,
        Ok(v) if v == "random" => {
            use std::hash::{BuildHasher, RandomState};
            RandomState::new().hash_one(std::time::SystemTime::now())
        }
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("RINGLAB_SEED={v:?}: expected a u64 or \"random\"")),
    }
}

/// `cases` cases (unless `PROPTEST_CASES` says otherwise) from a printed
/// seed, shrinking up to 4096 steps, nothing persisted.
pub fn prop_config(test: &str, cases: u32) -> Config {
    let seed = seed();
    eprintln!("{test}: seed {seed} (replay: RINGLAB_SEED={seed})");
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        max_shrink_iters: 4096,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    }
}

/// One step of the simulator against the model's: the simulator took `a`
/// (`stepped`) exactly when the model did (`took`), and its projection
/// `got` is the model's `want` after it; `changed` names the variables
/// that differ.
#[allow(dead_code)]
pub fn same_step<S: PartialEq + Debug, A: Display, E: Display>(
    a: &A,
    took: bool,
    stepped: Result<(), E>,
    got: &S,
    want: &S,
    changed: impl FnOnce(&S, &S) -> String,
) {
    match (stepped, took) {
        (Ok(()), true) | (Err(_), false) => {}
        (Err(d), true) => panic!("{a}: the model takes it, the simulator refuses: {d}"),
        (Ok(()), false) => panic!("{a}: the model refuses it, the simulator takes it, to {got:?}"),
    }
    if got != want {
        assert_eq!(got, want, "after {a}: the simulator (left) left the model (right) in {}", changed(got, want));
    }
}
