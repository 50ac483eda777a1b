//! Z3 proofs of the xsk ring index arithmetic over 32-bit bit-vectors, of
//! the devmem token counters (`devmem`), of the TX descriptor check
//! (`desc`), and of the NAPI skb cache's counters (`napi_cache`).
//!
//! Each proof is an inductive step `Inv(s) /\ guard /\ step(s, s') => goal(s')`
//! for every power-of-two size 1..=2^31 and every u32 counter value. `Inv` is
//! two-sided (both the producer's and the consumer's private cursors), so a
//! step of one side is also checked against the other side's invariant.
//! The negated condition is handed to Z3: unsat means proved, sat gives a
//! counterexample.

mod cq_reserve;
mod desc;
mod devmem;
mod kernel_cons;
mod kernel_prod;
mod napi_cache;
mod refuted;
mod ring;
mod setup;
mod user_cons;
mod user_prod;

use ring::{Build, Builder, Vc, PARAMS, W};
use std::time::Instant;
use z3::ast::BV;
use z3::{Config, Params, SatResult, Solver};

/// Time limits of one query: the first try, growing 4-fold up to the last.
const FIRST_TRY_MS: u32 = 500;
const LAST_TRY_MS: u32 = 32_000;
/// Backstop for anything in a context that has no limit of its own.
const CONTEXT_TIMEOUT_MS: u64 = 60_000;

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
    Refuted {
        counterexample: Vec<(String, u64)>,
    },
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
    build: Build,
}

fn proved(name: &'static str, about: &'static str, build: Build) -> Entry {
    Entry {
        proof: Proof {
            name,
            about,
            expect: Expect::Proved,
            mutant: None,
        },
        build,
    }
}

fn refuted(
    name: &'static str,
    about: &'static str,
    mutant: Option<&'static str>,
    build: Build,
) -> Entry {
    Entry {
        proof: Proof {
            name,
            about,
            expect: Expect::Refuted,
            mutant,
        },
        build,
    }
}

fn table() -> Vec<Entry> {
    let mut t = setup::entries();
    t.extend(kernel_prod::entries());
    t.extend(kernel_cons::entries());
    t.extend(user_prod::entries());
    t.extend(user_cons::entries());
    t.extend(cq_reserve::entries());
    t.extend(refuted::entries());
    t.extend(devmem::entries());
    t.extend(desc::entries());
    t.extend(napi_cache::entries());
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
    cfg.set_timeout_msec(CONTEXT_TIMEOUT_MS);
    z3::with_z3_config(&cfg, f)
}

/// The proof's condition under each parametrization (just one if it has no ring).
fn variants(build: Build) -> Vec<Vc> {
    let mut out = vec![];
    for param in PARAMS {
        let mut b = Builder::new(param);
        let goals = build(&mut b);
        let used = b.param_used;
        out.push(b.finish(goals));
        if !used {
            break;
        }
    }
    out
}

fn bv_solver() -> Solver {
    Solver::new_for_logic("QF_BV").unwrap_or_default()
}

enum Check {
    Unsat,
    Sat(Vec<(String, u64)>),
    Unknown(String),
}

/// Ring size a counterexample is first sought with, for readability.
const SMALL_SIZE: u64 = 16;

/// A solver holding obligation `i` of `vc` negated, with a time limit.
fn negated(vc: &Vc, i: usize, ms: u32) -> Solver {
    let s = bv_solver();
    let mut params = Params::new();
    params.set_u32("timeout", ms);
    s.set_params(&params);
    for h in &vc.hyp {
        s.assert(h);
    }
    s.assert(vc.goals[i].not());
    s
}

/// Checks obligation `i` of `vc` within `ms` milliseconds.
fn check(vc: &Vc, i: usize, ms: u32) -> Check {
    let s = negated(vc, i, ms);
    match s.check() {
        SatResult::Unsat => Check::Unsat,
        SatResult::Sat => {
            let mut model = s.get_model();
            // prefer a counterexample with a small ring, and one the proof
            // prefers, if there is one
            let size = vc.free.iter().find(|(n, _)| n == "size");
            if size.is_some() || !vc.prefer.is_empty() {
                let small = negated(vc, i, ms);
                if let Some((_, size)) = size {
                    small.assert(size.bvule(BV::from_u64(SMALL_SIZE, W)));
                }
                for p in &vc.prefer {
                    small.assert(p);
                }
                if small.check() == SatResult::Sat {
                    model = small.get_model();
                }
            }
            match model {
                Some(m) => Check::Sat(
                    vc.free
                        .iter()
                        .chain(&vc.derived)
                        .map(|(n, v)| {
                            let x = m.eval(v, true).and_then(|x| x.as_u64());
                            (n.clone(), x.expect("model value of a bit-vector"))
                        })
                        .collect(),
                ),
                None => Check::Unknown("sat without a model".into()),
            }
        }
        SatResult::Unknown => Check::Unknown(s.get_reason_unknown().unwrap_or_default()),
    }
}

/// Every obligation is tried under each parametrization with a time limit
/// that grows until one of them settles it, starting with the one that
/// settled the previous obligation. All are sound, so the first unsat is a
/// proof and the first sat a counterexample.
fn solve(build: Build) -> Outcome {
    in_fresh_context(move || {
        let vcs = variants(build);
        let mut best = 0;
        for i in 0..vcs[0].goals.len() {
            let mut ms = FIRST_TRY_MS;
            'limits: loop {
                let mut why = String::new();
                for k in (0..vcs.len()).map(|j| (best + j) % vcs.len()) {
                    match check(&vcs[k], i, ms) {
                        Check::Unsat => {
                            best = k;
                            break 'limits;
                        }
                        Check::Sat(cex) => {
                            return Outcome::Refuted {
                                counterexample: cex,
                            }
                        }
                        Check::Unknown(w) => why = w,
                    }
                }
                if ms >= LAST_TRY_MS {
                    return Outcome::Unknown(format!("obligation {i}: {why}"));
                }
                ms *= 4;
            }
        }
        Outcome::Proved
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
            eprintln!(
                "{:<30} {:?} {:>7.3}s {:?}",
                r.name, r.expect, r.seconds, r.outcome
            );
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
            assert!(p
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            assert!(
                all[..i].iter().all(|q| q.name != p.name),
                "duplicate {}",
                p.name
            );
            assert_eq!(by_name(p.name), Some(*p));
            assert!(p.mutant.is_none() || p.expect == Expect::Refuted);
        }
        assert!(by_name("no-such-proof").is_none());
        let r = run(&Proof {
            name: "no-such-proof",
            about: "",
            expect: Expect::Proved,
            mutant: None,
        });
        assert!(matches!(r.outcome, Outcome::Unknown(_)));
    }

    /// Whether `hyp /\ extra` is satisfiable under every parametrization;
    /// None when `extra` does not apply.
    fn sat_with(build: Build, extra: impl Fn(&Vc) -> Option<Bool> + Send + Sync) -> Option<bool> {
        in_fresh_context(move || {
            let mut all = Some(true);
            for vc in variants(build) {
                let s = bv_solver();
                for h in &vc.hyp {
                    s.assert(h);
                }
                s.assert(&extra(&vc)?);
                if s.check() != SatResult::Sat {
                    all = Some(false);
                }
            }
            all
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
            assert_eq!(
                sat_with(e.build, |_| Some(Bool::from_bool(true))),
                Some(true),
                "{name}"
            );
            for size in [1u64, 1 << 31] {
                let r = sat_with(e.build, move |vc: &Vc| {
                    let (p, c, s) = (get(vc, "producer")?, get(vc, "consumer")?, get(vc, "size")?);
                    Some(Bool::and(&[p.bvult(c), s.eq(size)]))
                });
                assert!(
                    r != Some(false),
                    "{name}: no wrapped state with size {size:#x}"
                );
            }
        }
    }

    /// Paths that cannot be taken: a refresh-free path means enough room was
    /// already cached, so the request cannot then fail.
    const DEAD_PATHS: [&str; 3] = [
        "kernel-prod-reserve: cached/enospc",
        "user-prod-reserve: cached/refused",
        "cached-cons-offset: cached/enospc",
    ];

    /// Guards against vacuous obligations: every path an operation was split
    /// into is reachable from the invariant, except the known dead ones.
    #[test]
    fn paths_reachable() {
        let mut dead = vec![];
        for e in table() {
            let name = e.proof.name;
            let found = in_fresh_context(move || {
                let vc = variants(e.build).swap_remove(0);
                let mut dead = vec![];
                for (tags, cond) in &vc.paths {
                    let s = bv_solver();
                    for h in &vc.hyp {
                        s.assert(h);
                    }
                    s.assert(cond);
                    match s.check() {
                        SatResult::Sat => {}
                        SatResult::Unsat => dead.push(format!("{name}: {tags}")),
                        SatResult::Unknown => panic!("{name}: {tags}: unknown"),
                    }
                }
                dead
            });
            dead.extend(found);
        }
        assert_eq!(dead, DEAD_PATHS);
    }
}
