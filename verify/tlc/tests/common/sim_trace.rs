//! What a protocol's simulator-trace test shares: seeded scheduler runs of
//! the simulator recorded as model states (`Run`, `sim_run`), TLC's
//! verdict on each (`validated`), and corruptions of a run at one step
//! (`Corrupt`, `corrupt_at`); and the two tests every such file has: the
//! runs are behaviours of the correct spec whatever the build carries,
//! and, with a mutant in, of the spec with that mutant.
//!
//! `sim_trace_tests!(model, sim, Protocol, SimConfig, trace, "Spec",
//! "SEED_VAR", STEPS)` writes them into the calling file, which supplies
//! `fn sim_runs(seed: u64) -> Vec<Run>` and its corruption test. The
//! model module must have `tla::action`, `Action`, `Config` (with
//! `with_mutant`), `Mutant` and `State` (with `successors`); the trace
//! module `validate` and `Verdict`.

#[macro_export]
macro_rules! sim_trace_tests {
    ($model:ident, $sim:ident, $proto:ident, $simcfg:ident, $trace:ident, $spec:literal, $seed_var:literal, $steps:expr) => {
        use ringlab_model::$model::{tla, Action, Config, Mutant, State};
        use ringlab_sim::harness::{Failure, Sched};
        use ringlab_sim::protocols::$sim::{self as sim, $proto, $simcfg};
        use ringlab_tlc::trace::$trace::{validate, Verdict};

        /// Random steps of a run, before the drain.
        const STEPS: usize = $steps;

        fn base_seed() -> u64 {
            std::env::var($seed_var).ok().and_then(|s| s.parse().ok()).unwrap_or(1)
        }

        /// A simulator run: its model state before the first step and after
        /// each, with what each step was.
        struct Run {
            name: String,
            /// The spec's constants of the run, its mutant the build's.
            spec: Config,
            states: Vec<State>,
            /// `steps[k - 1]`: step k, the action as TLC names it (and, for
            /// the last, the invariant it broke).
            steps: Vec<String>,
        }

        impl Run {
            fn logged(&self) -> common::Logged<'_> {
                common::Logged { name: &self.name, steps: &self.steps, states: self.states.len() }
            }

            /// The state after a step of `sim`, and the step; false if the
            /// step broke an invariant, which ends the run.
            fn record(&mut self, sim: &Sched<$proto>, r: Result<Action, Failure>) -> bool {
                self.states.push(sim.sys.model_state());
                match r {
                    Ok(a) => {
                        self.steps.push(tla::action(&self.spec, &a));
                        true
                    }
                    Err(f) if f.invariant.is_some() => {
                        eprintln!("{}: {f}", self.name);
                        let a = f.action.clone().unwrap_or_default();
                        self.steps.push(format!("{a}, breaking {}", f.invariant.unwrap_or_default()));
                        false
                    }
                    Err(f) => panic!("{}: the simulator failed: {f}", self.name),
                }
            }
        }

        /// The simulator's run from `cfg`: STEPS random steps, then the
        /// drain, every step recorded. A step that breaks an invariant ends
        /// the run there: it is recorded, as it may still be one of the
        /// spec's (it is, but for a mutant).
        fn sim_run(name: &str, cfg: $simcfg) -> Run {
            let name = format!("simulator {name}, seed {}", cfg.seed);
            let spec = cfg.spec.clone();
            let mut sim = Sched::<$proto>::new(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut run = Run { name, spec, states: vec![sim.sys.model_state()], steps: Vec::new() };
            for _ in 0..STEPS {
                let Some(r) = sim.step_random().transpose() else {
                    break;
                };
                if !run.record(&sim, r) {
                    return run;
                }
            }
            while let Some(r) = sim.drain_step().transpose() {
                if !run.record(&sim, r) {
                    break;
                }
            }
            run
        }

        fn validated(name: &str, cfg: &Config, states: &[State]) -> Verdict {
            let v = validate(cfg, states).unwrap_or_else(|e| panic!("{name}: {e}"));
            eprintln!("{name}: {} states: {v:?}", states.len());
            v
        }

        /// Step `step` of `run`, as the simulator took it.
        fn taken(run: &Run, step: usize) -> &str {
            step.checked_sub(1).and_then(|k| run.steps.get(k)).map_or("none", String::as_str)
        }

        #[test]
        fn simulator_runs_are_behaviours_of_the_spec() {
            let runs = sim_runs(base_seed());
            for r in &runs {
                eprintln!("{} ({}): {}", r.name, $seed_var, r.steps.join(" "));
            }
            // The correct spec, whatever the build carries.
            let verdicts = common::until_rejected(&runs, |r| {
                let spec = r.spec.clone().with_mutant(Mutant::None);
                validated(&r.name, &spec, &r.states)
            });
            let rejected = common::not_behaviours(runs.iter().map(Run::logged), verdicts, $spec);
            assert!(rejected.is_empty(), "built with {:?}:\n{}", ringlab_sim::mutants(), rejected.join("\n"));
        }

        /// With a mutant in, the simulator's runs are behaviours of the spec
        /// with that mutant (without one, the test above is this one).
        #[test]
        fn mutant_runs_are_behaviours_of_the_mutant_spec() {
            if sim::mutant() == Mutant::None {
                return;
            }
            let runs = sim_runs(base_seed());
            let verdicts = common::in_pairs(&runs, |r| validated(&r.name, &r.spec, &r.states));
            let spec = format!("the spec with mutant {}", sim::mutant().id());
            let rejected = common::not_behaviours(runs.iter().map(Run::logged), verdicts, &spec);
            assert!(rejected.is_empty(), "{}", rejected.join("\n"));
        }

        /// A corruption: the trace, the step TLC must reject, and the action
        /// really taken there (a candidate TLC must name), if any.
        struct Corrupt {
            name: &'static str,
            cfg: Config,
            states: Vec<State>,
            step: usize,
            taken: Option<String>,
        }

        /// Whether the model steps (or stutters) from `s` to `t`.
        fn is_step(cfg: &Config, s: &State, t: &State) -> bool {
            s == t || s.successors(cfg).iter().any(|(_, u)| u == t)
        }

        /// The first k from the middle of `run` on (then from its start) at
        /// which `f` corrupts it into a trace whose step k is not a step of
        /// the spec.
        fn corrupt_at(run: &Run, name: &'static str, f: impl Fn(&mut State) -> bool) -> Corrupt {
            let cfg = run.spec.clone().with_mutant(Mutant::None);
            let (mid, end) = (run.states.len() / 2, run.states.len() - 1);
            for k in (mid..end).chain(1..mid) {
                let mut t = run.states.clone();
                if f(&mut t[k]) && !is_step(&cfg, &t[k - 1], &t[k]) {
                    return Corrupt { name, cfg, states: t, step: k, taken: Some(taken(run, k).to_string()) };
                }
            }
            panic!("{name}: no step of {} to corrupt", run.name);
        }
    };
}
