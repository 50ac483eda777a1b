//! NAPI skb cache traces checked by TLC: a sequence of
//! `ringlab_model::napi_cache::State`, one per step from Init, is a
//! behaviour of specs/NapiSkbCache.tla iff TLC finds it through
//! specs/NapiSkbCacheTrace.tla.
//!
//! The states may come from anywhere that projects to the model: a
//! seeded walk of the model, or the simulator's runs projected to model
//! states. The trace is written as a module defining the log
//! (`MCNapiSkbCacheTrace`) with its .cfg, beside copies of the two
//! specs, in a fresh directory under target/ringlab/napi-trace/ (kept
//! when the trace is rejected). The path is validate.rs's; what is this
//! spec's own is below.
//!
//! The spec's constants are the caller's, Mutant included: a run of a
//! mutant build is checked against the correct spec by passing
//! `cfg.clone().with_mutant(Mutant::None)`.

use ringlab_model::napi_cache::{tla, Config, State};

use crate::trace::{SpecTrace, TraceSpec};
pub use crate::trace::{TraceError, Verdict};

/// The generated module's name.
pub const MODULE: &str = "MCNapiSkbCacheTrace";

/// NapiSkbCache's traces: every variable of the spec per state.
pub struct NapiCacheTrace;

impl SpecTrace for NapiCacheTrace {
    type Config = Config;
    type State = State;
    const FILES: TraceSpec = TraceSpec {
        spec: "NapiSkbCache",
        module: MODULE,
        runs: "napi-trace",
    };

    fn constants(cfg: &Config) -> String {
        tla::constants(cfg)
    }
    fn check_config(cfg: &Config) -> Result<(), String> {
        cfg.validate()
    }
    fn record(cfg: &Config, s: &State) -> Result<String, String> {
        if !s.type_ok(cfg) {
            return Err("its vectors do not have the config's sizes, or it names a CPU or skb outside the config, or a negative users, or more frames than NFrames left".into());
        }
        Ok(tla::state_record(cfg, s))
    }
    fn init(cfg: &Config) -> Option<State> {
        Some(State::init(cfg))
    }
    fn changed(cfg: &Config, a: &State, b: &State) -> Vec<String> {
        tla::changed(cfg, a, b).into_iter().map(String::from).collect()
    }
}

trace_fns!(NapiCacheTrace, Config, State);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::validate::read_checks;
    use ringlab_model::napi_cache::Action;

    #[test]
    fn the_model_prints_every_variable_of_each_state() {
        let cfg = Config::small();
        let init = State::init(&cfg);
        let m = module(&cfg, &[init.clone(), init]).unwrap();
        assert!(m.contains("EXTENDS NapiSkbCacheTrace\n"), "{m}");
        assert_eq!(m.matches("[slab |-> {1, 2, 3, 4}, cache |-> <<<<>>, <<>>>>, touch |-> <<<<1, \"bh\">>, <<2, \"bh\">>>>").count(), 2, "{m}");
        let c = cfg_text(&cfg);
        assert!(c.contains("    NCpu = 2\n") && c.contains("    Path = \"flush\"\n"), "{c}");
        assert!(c.ends_with("Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"), "{c}");
        assert!(matches!(module(&cfg, &[]), Err(TraceError::BadTrace(_))));
        // A state of another config is not printed.
        let other = State::init(&Config { ncpu: 3, ..Config::small() });
        assert!(matches!(module(&cfg, &[other]), Err(TraceError::BadTrace(_))));
    }

    #[test]
    fn verdicts_are_read() {
        let cfg = Config { ncpu: 1, ..Config::small() };
        let init = State::init(&cfg);
        let rx = init.step(&cfg, &Action::NetRxAction { c: 1 }).unwrap();
        let want = "no step of NapiSkbCache leads from state 0 to state 1 (it changes ctx); enabled at state 0: NetRxAction(1), TunSendmsg(1)";
        read_checks::verdicts_are_read::<NapiCacheTrace>(
            &cfg,
            &[init.clone(), rx.clone(), rx],
            &vec![init; 4],
            1,
            r#"{"NetRxAction(1)", "TunSendmsg(1)"}"#,
            want,
            &["NetRxAction(1)", "TunSendmsg(1)"],
        );
    }
}
