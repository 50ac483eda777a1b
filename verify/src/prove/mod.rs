//! Z3 proofs of the xsk ring index arithmetic over 32-bit bit-vectors.
//!
//! Each proof is an inductive step `Inv(s) /\ guard /\ step(s, s') => goal(s')`
//! for every power-of-two size 1..=2^31 and every u32 counter value. `Inv` is
//! two-sided (both the producer's and the consumer's private cursors), so a
//! step of one side is also checked against the other side's invariant.
//! The negated condition is handed to Z3: unsat means proved, sat gives a
//! counterexample.

mod kernel_cons;
mod kernel_prod;
mod refuted;
mod ring;
mod setup;
mod user_cons;
mod user_prod;

use ring::Vc;
use std::time::Instant;
use z3::{Config, SatResult, Solver};

/// Per-check solver timeout; every proof normally finishes far below it.
const TIMEOUT_MS: u64 = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Proved,
    Refuted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub name: &'static str,
    pub about: &'static str,
    pub expect: Expect,
    /// Mutant id of the mutation campaign this refutation corresponds to.
    pub mutant: Option<&'static str>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Proved,
    /// Values of every named variable (and `'`-suffixed post-state values).
    Refuted { counterexample: Vec<(String, u64)> },
    Unknown(String),
}

#[derive(Clone, Debug)]
pub struct ProofResult {
    pub name: String,
    pub about: String,
    pub expect: Expect,
    pub mutant: Option<String>,
    pub outcome: Outcome,
    pub seconds: f64,
}

impl ProofResult {
    pub fn as_expected(&self) -> bool {
        matches!(
            (self.expect, &self.outcome),
            (Expect::Proved, Outcome::Proved) | (Expect::Refuted, Outcome::Refuted { .. })
        )
    }
}

/// A catalogue entry and the builder of its verification condition.
struct Entry {
    proof: Proof,
    build: fn() -> Vc,
}

fn proved(name: &'static str, about: &'static str, build: fn() -> Vc) -> Entry {
    Entry { proof: Proof { name, about, expect: Expect::Proved, mutant: None }, build }
}

fn refuted(
    name: &'static str,
    about: &'static str,
    mutant: Option<&'static str>,
    build: fn() -> Vc,
) -> Entry {
    Entry { proof: Proof { name, about, expect: Expect::Refuted, mutant }, build }
}

fn table() -> Vec<Entry> {
    let mut t = setup::entries();
    t.extend(kernel_prod::entries());
    t.extend(kernel_cons::entries());
    t.extend(user_prod::entries());
    t.extend(user_cons::entries());
    t.extend(refuted::entries());
    t
}

pub fn catalogue() -> Vec<Proof> {
    table().into_iter().map(|e| e.proof).collect()
}

pub fn by_name(name: &str) -> Option<Proof> {
    catalogue().into_iter().find(|p| p.name == name)
}

/// Runs `f` with a fresh Z3 context as the thread's implicit context.
fn in_fresh_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    let mut cfg = Config::new();
    cfg.set_model_generation(true);
    cfg.set_timeout_msec(TIMEOUT_MS);
    z3::with_z3_config(&cfg, f)
}

/// A solver for quantifier-free bit-vector problems.
fn solver() -> Solver {
    Solver::new_for_logic("QF_BV").unwrap_or_else(Solver::new)
}

fn solve(build: fn() -> Vc) -> Outcome {
    in_fresh_context(move || {
        let vc = build();
        let s = solver();
        for h in &vc.hyp {
            s.assert(h);
        }
        s.assert(vc.goal.not());
        match s.check() {
            SatResult::Unsat => Outcome::Proved,
            SatResult::Sat => match s.get_model() {
                Some(m) => Outcome::Refuted {
                    counterexample: vc
                        .free
                        .iter()
                        .chain(&vc.derived)
                        .map(|(n, v)| {
                            let x = m.eval(v, true).and_then(|x| x.as_u64());
                            (n.clone(), x.expect("model value of a bit-vector"))
                        })
                        .collect(),
                },
                None => Outcome::Unknown("sat but no model".into()),
            },
            SatResult::Unknown => {
                Outcome::Unknown(s.get_reason_unknown().unwrap_or_else(|| "unknown".into()))
            }
        }
    })
}

pub fn run(p: &Proof) -> ProofResult {
    let start = Instant::now();
    let outcome = match table().into_iter().find(|e| e.proof.name == p.name) {
        Some(e) => solve(e.build),
        None => Outcome::Unknown(format!("no proof named {}", p.name)),
    };
    ProofResult {
        name: p.name.to_string(),
        about: p.about.to_string(),
        expect: p.expect,
        mutant: p.mutant.map(str::to_string),
        outcome,
        seconds: start.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Bool, BV};

    #[test]
    fn every_proof_as_expected() {
        let mut bad = vec![];
        for p in catalogue() {
            let r = run(&p);
            eprintln!("{:<30} {:?} {:>7.3}s {:?}", r.name, r.expect, r.seconds, r.outcome);
            if !r.as_expected() {
                bad.push(r.name);
            }
        }
        assert!(bad.is_empty(), "not as expected: {bad:?}");
    }

    #[test]
    fn names_unique_kebab_and_findable() {
        let all = catalogue();
        for (i, p) in all.iter().enumerate() {
            assert!(p.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            assert!(all[..i].iter().all(|q| q.name != p.name), "duplicate {}", p.name);
            assert_eq!(by_name(p.name), Some(*p));
            assert!(p.mutant.is_none() || p.expect == Expect::Refuted);
        }
        assert!(by_name("no-such-proof").is_none());
        let r = run(&Proof { name: "no-such-proof", about: "", expect: Expect::Proved, mutant: None });
        assert!(matches!(r.outcome, Outcome::Unknown(_)));
    }

    /// Whether `hyp /\ extra` is satisfiable; None when `extra` does not apply.
    fn sat_with(
        build: fn() -> Vc,
        extra: impl Fn(&Vc) -> Option<Bool> + Send + Sync,
    ) -> Option<bool> {
        in_fresh_context(move || {
            let vc = build();
            let s = solver();
            for h in &vc.hyp {
                s.assert(h);
            }
            s.assert(&extra(&vc)?);
            Some(s.check() == SatResult::Sat)
        })
    }

    fn get<'a>(vc: &'a Vc, name: &str) -> Option<&'a BV> {
        vc.free.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Guards against vacuous proofs: the hypotheses hold somewhere, and for
    /// ring states also with producer wrapped below consumer at both extreme sizes.
    #[test]
    fn hypotheses_satisfiable() {
        for e in table() {
            let name = e.proof.name;
            assert_eq!(sat_with(e.build, |_| Some(Bool::from_bool(true))), Some(true), "{name}");
            for size in [1u64, 1 << 31] {
                let r = sat_with(e.build, move |vc: &Vc| {
                    let (p, c, s) = (get(vc, "producer")?, get(vc, "consumer")?, get(vc, "size")?);
                    Some(Bool::and(&[p.bvult(c), s.eq(size)]))
                });
                assert!(r != Some(false), "{name}: no wrapped state with size {size:#x}");
            }
        }
    }
}
