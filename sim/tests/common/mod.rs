//! The proptest configuration the model comparisons share: a seeded RNG,
//! so that a run replays exactly, and the seed printed.
//!
//! `RINGLAB_SEED=<u64>` replays a run, `RINGLAB_SEED=random` draws a new
//! seed (printed, so a failure can be replayed); without it every run uses
//! the same seed. `PROPTEST_CASES` overrides the number of cases.

#![allow(dead_code)]

use std::fmt::{Debug, Display};

use proptest::strategy::{BoxedStrategy, Strategy};
use ringlab_sim::harness::{Failure, Protocol};
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

/// After a step both took: the model keeps every invariant the simulator
/// checks (`model_breaks`, the first it breaks), and the simulator's
/// concrete state (`concrete`) and its projection (`check`) are sound.
pub fn invariants_hold<A: Display, C: Display, T, V: Display>(
    a: &A,
    model_breaks: Option<&str>,
    concrete: Result<(), C>,
    check: Result<T, V>,
) {
    if let Some(name) = model_breaks {
        panic!("after {a}: the model breaks {name}");
    }
    if let Err(v) = concrete {
        panic!("after {a}: {v}");
    }
    if let Err(v) = check {
        panic!("after {a}: the model keeps every invariant, the simulator breaks {v}");
    }
}

/// One of `actions`: a name (by `name`) drawn by `weight`, then one of
/// its instances, so that an action of many instances does not drown the
/// rest.
pub fn by_name<A: Clone + Debug + 'static>(
    actions: &[A],
    name: impl Fn(&A) -> &'static str,
    weight: impl Fn(&str) -> u32,
) -> Option<BoxedStrategy<A>> {
    let mut names: Vec<&'static str> = actions.iter().map(&name).collect();
    names.sort_unstable();
    names.dedup();
    let arms: Vec<(u32, BoxedStrategy<A>)> = names
        .into_iter()
        .map(|n| {
            let of: Vec<A> = actions.iter().filter(|a| name(a) == n).cloned().collect();
            (weight(n), proptest::sample::select(of).boxed())
        })
        .collect();
    (!arms.is_empty()).then(|| proptest::strategy::Union::new_weighted(arms).boxed())
}

/// Some seed of `0..seeds` breaks `invariant` within `steps` steps of the
/// run of `cfg(seed)`, and every seed that breaks, breaks it.
pub fn mutant_breaks<P: Protocol>(seeds: u64, steps: u64, cfg: impl Fn(u64) -> P::Config, invariant: &str) {
    let fs: Vec<Failure> = (0..seeds)
        .filter_map(|seed| ringlab_sim::harness::run::<P>(cfg(seed), steps, None).err().map(|e| e.into_failure(seed)))
        .collect();
    let other: Vec<String> = fs.iter().filter(|f| f.invariant != Some(invariant)).map(|f| f.to_string()).collect();
    assert!(other.is_empty(), "{other:?}");
    assert!(!fs.is_empty(), "no seed broke {invariant}");
    eprintln!("{} of {seeds} seeds broke {invariant}; first: {}", fs.len(), fs[0]);
}
