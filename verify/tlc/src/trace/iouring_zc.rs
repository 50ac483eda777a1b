//! io_uring SEND_ZC traces checked by TLC: a sequence of
//! `ringlab_model::iouring_zc::State`, one per step from Init, is a
//! behaviour of specs/IoUringZcNotif.tla iff TLC finds it through
//! specs/IoUringZcNotifTrace.tla.
//!
//! The states may come from anywhere that projects to the model: the
//! simulator's trace (`ringlab sim iouring-zc --trace FILE`, or the
//! harness's `Sched::record`), a walk of the model, or a live run's CQEs
//! projected to model states. The trace is written as a module defining
//! the log (`MCIoUringZcNotifTrace`) with its .cfg, beside copies of the
//! two specs, in a fresh directory under target/ringlab/iouring-trace/
//! (kept when the trace is rejected, so the model can be rerun by hand).
//! The path is validate.rs's; what is this spec's own is below.
//!
//! The spec's constants are the caller's, Mutant included: a run of a
//! mutant build is checked against the correct spec by passing
//! `cfg.clone().with_mutant(Mutant::None)`.
//!
//! ```ignore
//! let states: Vec<State> = ...; // states[0] must be Init
//! match iouring_zc::validate(&cfg, &states)? {
//!     Verdict::Accepted { .. } => {}
//!     Verdict::Rejected { step, reason, .. } => panic!("step {step}: {reason}"),
//! }
//! ```

use ringlab_model::iouring_zc::{tla, Config, State};

use crate::trace::{SpecTrace, TraceSpec};
pub use crate::trace::{TraceError, Verdict};

/// The generated module's name.
pub const MODULE: &str = "MCIoUringZcNotifTrace";

/// IoUringZcNotif's traces: every variable of the spec per state.
pub struct IoUringZcTrace;

impl SpecTrace for IoUringZcTrace {
    type Config = Config;
    type State = State;
    const FILES: TraceSpec = TraceSpec {
        spec: "IoUringZcNotif",
        module: MODULE,
        runs: "iouring-trace",
    };

    fn constants(cfg: &Config) -> String {
        tla::constants(cfg)
    }
    fn check_config(cfg: &Config) -> Result<(), String> {
        cfg.validate()
    }
    fn record(cfg: &Config, s: &State) -> Result<String, String> {
        if !s.type_ok(cfg) {
            return Err("its vectors do not have the config's sizes, or it names a request or skb outside the config, or more units sent than ReqLen".into());
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

trace_fns!(IoUringZcTrace, Config, State);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::validate::read_checks;
    use ringlab_model::iouring_zc::Action;

    #[test]
    fn the_model_prints_every_variable_of_each_state() {
        let cfg = Config::zc_notif();
        let init = State::init(&cfg);
        let m = module(&cfg, &[init.clone(), init]).unwrap();
        assert!(m.contains("EXTENDS IoUringZcNotifTrace\n"), "{m}");
        assert!(!m.contains("CONSTANTS"), "{m}");
        assert_eq!(m.matches("[sq |-> <<>>, todo |-> 0, st |-> <<\"user\", \"user\">>").count(), 2, "{m}");
        let c = cfg_text(&cfg);
        assert!(c.contains("    NReqs = 2\n") && c.contains("    Mutant = \"none\"\n"), "{c}");
        assert!(c.ends_with("Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"), "{c}");
        assert!(matches!(module(&cfg, &[]), Err(TraceError::BadTrace(_))));
        // A state of another config is not printed.
        let other = State::init(&Config::batch1());
        assert!(matches!(module(&cfg, &[other]), Err(TraceError::BadTrace(_))));
    }

    #[test]
    fn verdicts_are_read() {
        let cfg = Config::zc_notif();
        let init = State::init(&cfg);
        let sub = init.step(&cfg, &Action::UserSubmit(1)).unwrap();
        let want = "no step of IoUringZcNotif leads from state 0 to state 1 (it changes sq, st); enabled at state 0: IoUringUnregisterBuffers, UserSubmit(1), UserSubmit(2)";
        read_checks::verdicts_are_read::<IoUringZcTrace>(
            &cfg,
            &[init.clone(), sub.clone(), sub],
            &vec![init; 4],
            1,
            r#"{"IoUringUnregisterBuffers", "UserSubmit(1)", "UserSubmit(2)"}"#,
            want,
            &["IoUringUnregisterBuffers", "UserSubmit(1)", "UserSubmit(2)"],
        );
    }
}
