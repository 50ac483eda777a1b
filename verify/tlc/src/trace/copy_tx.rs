//! Copy-mode transmit traces checked by TLC: a sequence of
//! `ringlab_model::copy_tx::State`, one per step from Init, is a behaviour
//! of specs/XskCopyTx.tla iff TLC finds it through specs/XskCopyTxTrace.tla.
//!
//! The trace is written as a module defining the log (`MCXskCopyTxTrace`)
//! with its .cfg, beside copies of the two specs, in a fresh directory
//! under target/ringlab/copytx-trace/ (kept when the trace is rejected,
//! so the model can be rerun by hand). The path is validate.rs's; what is
//! this spec's own is below.
//!
//! `states[0]` is the state before the first step (it must be Init), then
//! one state per step. The simulator's trace has them (`ringlab sim
//! copy-tx --trace FILE`, or the harness's `Sched::record`), a step that
//! breaks an invariant included (it is still one of the spec's):
//!
//! ```ignore
//! let t = Trace::<CopyTxConfig, State>::parse_of(file, "copy_tx")?;
//! let states: Vec<State> = t.lines.into_iter().map(|l| l.state).collect();
//! match copy_tx::validate(&t.header.config.spec, &states)? {
//!     Verdict::Accepted { .. } => {}
//!     Verdict::Rejected { step, reason, .. } => panic!("step {step}: {reason}"),
//! }
//! ```

use ringlab_model::copy_tx::{tla, Config, State};

use crate::trace::{differing, SpecTrace, TraceSpec};
pub use crate::trace::{TraceError, Verdict};

/// The generated module's name.
pub const MODULE: &str = "MCXskCopyTxTrace";

/// XskCopyTx's traces: every variable of the spec per state; sockets and
/// frames are model values.
pub struct CopyTxTrace;

impl SpecTrace for CopyTxTrace {
    type Config = Config;
    type State = State;
    const FILES: TraceSpec = TraceSpec {
        spec: "XskCopyTx",
        module: MODULE,
        runs: "copytx-trace",
    };

    fn model_values(cfg: &Config) -> Vec<String> {
        tla::model_values(cfg).into_iter().map(String::from).collect()
    }
    fn constants(cfg: &Config) -> String {
        tla::constants(cfg)
    }
    fn record(cfg: &Config, s: &State) -> Result<String, String> {
        tla::check_names(cfg, s)?;
        Ok(tla::state_record(cfg, s))
    }
    fn init(cfg: &Config) -> Option<State> {
        Some(State::init(cfg))
    }
    fn changed(cfg: &Config, a: &State, b: &State) -> Vec<String> {
        let v = |s| tla::variables(cfg, s);
        differing(&v(a), &v(b)).into_iter().map(String::from).collect()
    }
}

trace_fns!(CopyTxTrace, Config, State);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::validate::read_checks;

    #[test]
    fn the_model_declares_and_assigns_its_model_values() {
        let cfg = Config::design_b();
        let init = State::init(&cfg);
        let m = module(&cfg, &[init.clone(), init]).unwrap();
        assert!(
            m.contains("EXTENDS XskCopyTxTrace\n\nCONSTANTS s1, s2, f1, f2, f3\n"),
            "{m}"
        );
        assert_eq!(m.matches("[free |-> {f1, f2, f3}").count(), 2, "{m}");
        let c = cfg_text(&cfg);
        assert!(
            c.contains("    Frames = {f1, f2, f3}\n") && c.contains("    f3 = f3\n"),
            "{c}"
        );
        assert!(
            c.ends_with("Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"),
            "{c}"
        );
        assert!(matches!(module(&cfg, &[]), Err(TraceError::BadTrace(_))));
    }

    #[test]
    fn verdicts_are_read() {
        let cfg = Config::design_b();
        let want = "no step of XskCopyTx leads from state 1 to state 2 (a stutter); enabled at state 1: Sendto(s1), UserReap";
        read_checks::verdicts_are_read::<CopyTxTrace>(
            &cfg,
            &vec![State::init(&cfg); 3],
            &vec![State::init(&cfg); 4],
            2,
            r#"{"UserReap", "Sendto(s1)"}"#,
            want,
            &["Sendto(s1)", "UserReap"],
        );
    }
}
