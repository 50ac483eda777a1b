//! Copy-mode transmit traces checked by TLC: a sequence of
//! `ringlab_model::copy_tx::State`, one per step from Init, is a behaviour
//! of specs/XskCopyTx.tla iff TLC finds it through specs/XskCopyTxTrace.tla.
//!
//! The trace is written as a module defining the log (`MCXskCopyTxTrace`)
//! with its .cfg, beside copies of the two specs, in a fresh directory
//! under target/ringlab/copytx-trace/ (kept when the trace is rejected,
//! so the model can be rerun by hand). The plumbing is trace_check's.

use std::path::Path;

use ringlab_model::copy_tx::{tla, Config, State};
use crate::{Tlc, TlcResult};

use crate::trace::{is_ident, Run, TraceSpec};
pub use crate::trace::TraceError;

/// The generated module's name.
pub const MODULE: &str = "MCXskCopyTxTrace";

const SPEC: TraceSpec = TraceSpec {
    spec: "XskCopyTx",
    module: MODULE,
    runs: "copytx-trace",
};

/// TLC's verdict on a trace. Steps are numbered from 1: step k goes from
/// `states[k - 1]` to `states[k]`; step 0 stands for the first state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every step is a step of the spec or a stutter.
    Accepted { steps: usize, distinct_states: u64 },
    /// `step` is the first that is not (0: the first state is not Init).
    Rejected { step: usize, reason: String },
}

/// The module defining `TraceLog`, one record of the spec's variables per
/// state; it declares the model values so that the log can name them.
pub fn module(cfg: &Config, states: &[State]) -> Result<String, TraceError> {
    let bad = TraceError::BadTrace;
    if states.is_empty() {
        return Err(bad("the trace has no state".into()));
    }
    let names = tla::model_values(cfg);
    if let Some(n) = names.iter().find(|n| !is_ident(n)) {
        return Err(bad(format!("model value {n:?} is not a TLA+ identifier")));
    }
    let mut rows = Vec::with_capacity(states.len());
    for (k, s) in states.iter().enumerate() {
        tla::check_names(cfg, s).map_err(|e| bad(format!("state {k}: {e}")))?;
        rows.push(tla::state_record(cfg, s));
    }
    Ok(SPEC.module_text(&names, &rows))
}

/// The .cfg: the spec's constants, each declared model value as itself.
pub fn cfg_text(cfg: &Config) -> String {
    SPEC.cfg_text(tla::constants(cfg), &tla::model_values(cfg))
}

/// Write the trace model and the specs it needs into `dir`.
pub fn write_model(
    cfg: &Config,
    states: &[State],
    specs: &Path,
    dir: &Path,
) -> Result<(), TraceError> {
    SPEC.write_model(specs, dir, module(cfg, states)?, cfg_text(cfg))
}

/// Check `states` with TLC, the model written into `dir`.
pub fn check(
    tlc: &Tlc,
    cfg: &Config,
    states: &[State],
    specs: &Path,
    dir: &Path,
) -> Result<Verdict, TraceError> {
    write_model(cfg, states, specs, dir)?;
    verdict(&SPEC.run(tlc, dir)?, cfg, states)
}

/// What TLC's result says of `states`.
pub fn verdict(r: &TlcResult, cfg: &Config, states: &[State]) -> Result<Verdict, TraceError> {
    match crate::trace::read(r)? {
        Run::Stuck { step, enabled } => {
            let from = step.saturating_sub(1);
            let enabled = match enabled {
                Some(names) if !names.is_empty() => names.join(", "),
                _ => "none".to_string(),
            };
            let reason = format!(
                "no step of XskCopyTx leads from state {from} to state {step}; enabled at state {from}: {enabled}"
            );
            Ok(Verdict::Rejected { step, reason })
        }
        // Each state of the log is one TLC state (it has its own i);
        // fewer means the first did not match Init.
        Run::Matched { distinct_states } if distinct_states < states.len() as u64 => {
            let differ = crate::trace::differing(
                &tla::variables(cfg, &State::init(cfg)),
                &tla::variables(cfg, &states[0]),
            );
            Ok(Verdict::Rejected {
                step: 0,
                reason: crate::trace::not_init(&differ),
            })
        }
        Run::Matched { distinct_states } => Ok(Verdict::Accepted {
            steps: states.len() - 1,
            distinct_states,
        }),
    }
}

/// Check a copy-mode transmit trace against specs/XskCopyTx.tla.
///
/// `states[0]` is the state before the first step (it must be Init), then
/// one state per step. The simulator records `CopyTx::model_state` before
/// its first step and after each (also after a step that breaks an
/// invariant: that step is still one of the spec's), then passes the
/// spec's constants it ran under:
///
/// ```ignore
/// let mut sim = Sched::new(cfg.clone())?;
/// let mut states = vec![sim.sys.model_state()];
/// for _ in 0..steps {
///     let r = sim.step_random();
///     states.push(sim.sys.model_state());
///     if r.is_err() { break; }
/// }
/// match copytx_trace::validate(&cfg.spec, &states)? {
///     Verdict::Accepted { .. } => {}
///     Verdict::Rejected { step, reason } => panic!("step {step}: {reason}"),
/// }
/// ```
///
/// Stutters (a state repeated) are accepted. The model is removed when the
/// trace is accepted and kept, and named in the reason or error, otherwise.
pub fn validate(cfg: &Config, states: &[State]) -> Result<Verdict, TraceError> {
    let tlc = Tlc::locate().map_err(TraceError::NoTlc)?;
    let scratch = SPEC.scratch();
    match check(&tlc, cfg, states, &crate::specs_dir(), &scratch.dir) {
        Ok(v @ Verdict::Accepted { .. }) => {
            scratch.remove();
            Ok(v)
        }
        Ok(Verdict::Rejected { step, reason }) => Ok(Verdict::Rejected {
            step,
            reason: scratch.kept(reason),
        }),
        Err(e) => Err(scratch.kept_err(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(tool_output: &str) -> TlcResult {
        crate::Parser::parse_str(tool_output)
    }

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
        let states = vec![State::init(&cfg); 3];
        let ok = result("@!@!@STARTMSG 2193:0 @!@!@\nModel checking completed. No error has been found.\n@!@!@ENDMSG 2193 @!@!@\n\
             @!@!@STARTMSG 2199:0 @!@!@\n4 states generated, 3 distinct states found, 0 states left on queue.\n@!@!@ENDMSG 2199 @!@!@");
        assert_eq!(
            verdict(&ok, &cfg, &states),
            Ok(Verdict::Accepted {
                steps: 2,
                distinct_states: 3
            })
        );
        let four = vec![State::init(&cfg); 4];
        assert!(matches!(
            verdict(&ok, &cfg, &four),
            Ok(Verdict::Rejected { step: 0, .. })
        ));
        let dead = result("@!@!@STARTMSG 2114:1 @!@!@\nDeadlock reached.\n@!@!@ENDMSG 2114 @!@!@\n\
             @!@!@STARTMSG 2217:4 @!@!@\n3: <TraceNext line 81>\n/\\ i = 2\n/\\ enabled = {\"UserReap\", \"Sendto(s1)\"}\n@!@!@ENDMSG 2217 @!@!@");
        let want = "no step of XskCopyTx leads from state 1 to state 2; enabled at state 1: Sendto(s1), UserReap";
        assert_eq!(
            verdict(&dead, &cfg, &states),
            Ok(Verdict::Rejected {
                step: 2,
                reason: want.into()
            })
        );
        let error = result("@!@!@STARTMSG 1000:1 @!@!@\nparse error\n@!@!@ENDMSG 1000 @!@!@");
        assert!(matches!(
            verdict(&error, &cfg, &states),
            Err(TraceError::Tlc(_))
        ));
    }
}
