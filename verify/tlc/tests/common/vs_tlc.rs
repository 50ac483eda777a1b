//! The two tests that hold a reference model to a live TLC run of its
//! spec, for a model module of ringlab_model with the usual names (`tla`,
//! `Config`, `Machine`, `ModelCfg`, `State`): for each passing ci model,
//! the very states TLC reaches (its -dump, compared as the module's `tla`
//! prints them) and its counts of states generated and distinct; for each
//! failing one, TLC's counterexample replays step for step in the model
//! and ends in the invariant the manifest expects. A spec whose states
//! differ from the model's in a value only fails. Needs java and the TLC
//! jar (`make deps`).
//!
//! `model_vs_tlc_tests!(module, "Spec", "scratch-prefix", min_passing,
//! min_failing)` writes both tests into the calling test file.

#[macro_export]
macro_rules! model_vs_tlc_tests {
    ($module:ident, $spec:literal, $scratch:literal, $min_pass:expr, $min_fail:expr) => {
        use common::dump::{assert_counterexample_replays, assert_reaches_tlcs_states, squash, Printed};
        use ringlab_model::$module::{tla, Config, Machine, ModelCfg, State};

        fn printed(cfg: &Config, s: &State) -> Printed {
            tla::variables(cfg, s).into_iter().map(|(k, v)| (k.to_string(), squash(&v))).collect()
        }

        /// The ci-tier models of the spec.
        fn models() -> Vec<common::ManifestModel> {
            common::manifest_models_with_prefix($spec, concat!("MC", $spec))
                .expect("specs/manifest.json")
                .into_iter()
                .filter(|m| m.tier == "ci")
                .collect()
        }

        fn cfg_of(m: &common::ManifestModel) -> (std::path::PathBuf, ModelCfg) {
            let path = common::specs_dir().join(format!(concat!("mc/MC", $spec, "{}.cfg"), m.cfg));
            let cfg = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
            (path, cfg)
        }

        /// A scratch folder's name: the config's suffix, or "main" for the
        /// spec's MC file itself.
        fn scratch(m: &common::ManifestModel, what: &str) -> String {
            let short = m.cfg.strip_prefix('_').filter(|c| !c.is_empty()).unwrap_or("main");
            format!("{}-{what}-{short}", $scratch)
        }

        fn spec_file() -> std::path::PathBuf {
            common::specs_dir().join(concat!($spec, ".tla"))
        }

        #[test]
        fn passing_models_reach_tlcs_states() {
            let tlc = common::tlc();
            let passing: Vec<_> = models().into_iter().filter(|m| m.expected == "pass").collect();
            for m in &passing {
                let (path, mc) = cfg_of(m);
                let machine = Machine::from_model_cfg(&mc).unwrap();
                let print = |s: &State| printed(&mc.config, s);
                assert_reaches_tlcs_states(&m.name, &machine, print, &tlc, &spec_file(), &path, &scratch(m, "dump"));
            }
            assert!(passing.len() >= $min_pass, "{} passing models", passing.len());
        }

        #[test]
        fn tlc_counterexamples_replay_in_the_model() {
            let tlc = common::tlc();
            let failing: Vec<_> = models().into_iter().filter(|m| m.expected.starts_with("violation:")).collect();
            // Each run is mostly JVM start-up: two at a time.
            let checked = common::in_pairs(&failing, |m| {
                let (path, mc) = cfg_of(m);
                let machine = Machine::from_model_cfg(&mc).unwrap();
                let print = |s: &State| printed(&mc.config, s);
                let n = assert_counterexample_replays(
                    &m.name,
                    &m.expected,
                    &machine,
                    print,
                    &tlc,
                    &spec_file(),
                    &path,
                    &scratch(m, "cex"),
                );
                println!("{}: {n} states replayed, {}", m.name, m.expected);
            });
            assert!(checked.len() >= $min_fail, "{} violation models", checked.len());
        }
    };
}
