//! The one validation path of every spec's traces: the states printed as
//! a module defining the log, the .cfg with the spec's constants, TLC run
//! on them beside copies of the spec and its trace spec, and TLC's answer
//! read back as one [`Verdict`]. What differs between specs is a small
//! description, [`SpecTrace`]: how the constants and a state print, and
//! how a rejected step is explained.

use std::path::Path;

use super::{is_ident, not_init, Run, TraceError, TraceSpec};
use crate::{Tlc, TlcResult};

/// How a spec's trace is written and explained.
pub trait SpecTrace {
    /// The spec's constants, as the run had them.
    type Config;
    /// One logged state.
    type State;
    /// The spec, its generated module and its runs' folder.
    const FILES: TraceSpec;

    /// The model values the log names: declared, and each assigned to
    /// itself in the .cfg.
    fn model_values(_: &Self::Config) -> Vec<String> {
        Vec::new()
    }
    /// The .cfg's CONSTANTS section (the spec's constants only).
    fn constants(cfg: &Self::Config) -> String;
    /// Why the constants cannot be printed, if they cannot.
    fn check_config(_: &Self::Config) -> Result<(), String> {
        Ok(())
    }
    /// One state as a TLA+ record of the log; Err why it cannot be.
    fn record(cfg: &Self::Config, s: &Self::State) -> Result<String, String>;
    /// The spec's Init under `cfg`, if it can be built.
    fn init(cfg: &Self::Config) -> Option<Self::State>;
    /// The variables in which `b` differs from `a`.
    fn changed(cfg: &Self::Config, a: &Self::State, b: &Self::State) -> Vec<String>;
    /// A comment for the generated module: what was run.
    fn comment(_: &Self::Config) -> Option<String> {
        None
    }
    /// The action the log names for the step to `s`, if it names one.
    fn logged_action(_: &Self::State) -> Option<&str> {
        None
    }
    /// The actions TLC found enabled (sorted), shortened for a message.
    fn candidates(_: &Self::Config, enabled: &[String]) -> String {
        if enabled.is_empty() {
            return "none".into();
        }
        enabled.join(", ")
    }
}

/// TLC's verdict on a trace. Steps are numbered from 1: step k goes from
/// `states[k - 1]` to `states[k]`; step 0 stands for the first state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every step is a step of the spec (or, where the trace spec allows
    /// it, a stutter).
    Accepted { steps: usize, distinct_states: u64 },
    /// `step` is the first that is not (0: the first state is not Init).
    /// `enabled`: the action instances the trace spec found enabled at
    /// `states[step - 1]` (none if it records none, and for step 0).
    Rejected {
        step: usize,
        reason: String,
        enabled: Vec<String>,
    },
}

/// The module defining `TraceLog`, one record per state.
pub fn module<S: SpecTrace>(cfg: &S::Config, states: &[S::State]) -> Result<String, TraceError> {
    let bad = TraceError::BadTrace;
    if states.is_empty() {
        return Err(bad("the trace has no state".into()));
    }
    S::check_config(cfg).map_err(|e| bad(format!("the constants: {e}")))?;
    let names = S::model_values(cfg);
    if let Some(n) = names.iter().find(|n| !is_ident(n)) {
        return Err(bad(format!("model value {n:?} is not a TLA+ identifier")));
    }
    let mut rows = Vec::with_capacity(states.len());
    for (k, s) in states.iter().enumerate() {
        rows.push(S::record(cfg, s).map_err(|e| bad(format!("state {k}: {e}")))?);
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(S::FILES.module_text(S::comment(cfg).as_deref(), &names, &rows))
}

/// The .cfg: the spec's constants, each model value as itself, the log.
pub fn cfg_text<S: SpecTrace>(cfg: &S::Config) -> String {
    let names = S::model_values(cfg);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    S::FILES.cfg_text(S::constants(cfg), &names)
}

/// Write the trace model and the specs it needs into `dir`.
pub fn write_model<S: SpecTrace>(
    cfg: &S::Config,
    states: &[S::State],
    specs: &Path,
    dir: &Path,
) -> Result<(), TraceError> {
    S::FILES.write_model(specs, dir, module::<S>(cfg, states)?, cfg_text::<S>(cfg))
}

/// Check `states` with TLC, the model written into `dir`.
pub fn check<S: SpecTrace>(
    tlc: &Tlc,
    cfg: &S::Config,
    states: &[S::State],
    specs: &Path,
    dir: &Path,
) -> Result<Verdict, TraceError> {
    write_model::<S>(cfg, states, specs, dir)?;
    verdict::<S>(&S::FILES.run(tlc, dir)?, cfg, states)
}

/// What TLC's result says of `states`.
pub fn verdict<S: SpecTrace>(
    r: &TlcResult,
    cfg: &S::Config,
    states: &[S::State],
) -> Result<Verdict, TraceError> {
    let spec = S::FILES.spec;
    match super::read(r)? {
        Run::Stuck { step, enabled } => {
            if step == 0 || step >= states.len() {
                return Err(TraceError::Tlc(format!(
                    "TLC stopped at log line {step} of a trace of {} states",
                    states.len()
                )));
            }
            let from = step - 1;
            let what = S::changed(cfg, &states[from], &states[step]);
            let what = if what.is_empty() {
                "a stutter".to_string()
            } else {
                format!("it changes {}", what.join(", "))
            };
            let logged = S::logged_action(&states[step]).map_or(String::new(), |a| format!("{a}: "));
            let mut reason = format!(
                "no step of {spec} leads from state {from} to state {step} ({logged}{what})"
            );
            let enabled = match enabled {
                Some(mut names) => {
                    names.sort();
                    let shown = S::candidates(cfg, &names);
                    reason += &format!("; enabled at state {from}: {shown}");
                    names
                }
                None => Vec::new(),
            };
            Ok(Verdict::Rejected {
                step,
                reason,
                enabled,
            })
        }
        // Each state of the log is one TLC state (it has its own i);
        // fewer means the first did not match Init.
        Run::Matched { distinct_states } if distinct_states < states.len() as u64 => {
            let reason = match S::init(cfg) {
                Some(init) => not_init(&S::changed(cfg, &init, &states[0])),
                None => "state 0 is not Init".into(),
            };
            Ok(Verdict::Rejected {
                step: 0,
                reason,
                enabled: Vec::new(),
            })
        }
        Run::Matched { distinct_states } => Ok(Verdict::Accepted {
            steps: states.len() - 1,
            distinct_states,
        }),
    }
}

/// Check a trace against its spec in a fresh directory under the tree's
/// target/ringlab/, with the TLC found on this machine.
///
/// `states[0]` is the state before the first step (it must be Init), then
/// one state per step. The model is removed when the trace is accepted
/// and kept, and named in the reason or error, otherwise.
pub fn validate<S: SpecTrace>(cfg: &S::Config, states: &[S::State]) -> Result<Verdict, TraceError> {
    let tlc = Tlc::locate().map_err(TraceError::NoTlc)?;
    let scratch = S::FILES.scratch();
    match check::<S>(&tlc, cfg, states, &crate::specs_dir(), &scratch.dir) {
        Ok(v @ Verdict::Accepted { .. }) => {
            scratch.remove();
            Ok(v)
        }
        Ok(Verdict::Rejected {
            step,
            reason,
            enabled,
        }) => Ok(Verdict::Rejected {
            step,
            reason: scratch.kept(reason),
            enabled,
        }),
        Err(e) => Err(scratch.kept_err(e)),
    }
}

/// What every spec's `verdicts_are_read` test asks of `verdict`.
#[cfg(test)]
pub(crate) mod read_checks {
    use super::*;
    use crate::Parser;

    /// TLC's answers read for `states` (three, from Init) and `four` (four
    /// states, the first not Init): "No error" with 3 distinct states
    /// accepts the three and rejects the four; a deadlock at `i = at`
    /// with the set `enabled_set` (as TLC prints it) rejects step `at`
    /// with `reason` and the candidates `enabled`; a parse error is an
    /// error.
    pub fn verdicts_are_read<S: SpecTrace>(
        cfg: &S::Config,
        states: &[S::State],
        four: &[S::State],
        at: usize,
        enabled_set: &str,
        reason: &str,
        enabled: &[&str],
    ) {
        let ok = Parser::parse_str(
            "@!@!@STARTMSG 2193:0 @!@!@\nModel checking completed. No error has been found.\n@!@!@ENDMSG 2193 @!@!@\n\
             @!@!@STARTMSG 2199:0 @!@!@\n4 states generated, 3 distinct states found, 0 states left on queue.\n@!@!@ENDMSG 2199 @!@!@",
        );
        assert_eq!(verdict::<S>(&ok, cfg, states), Ok(Verdict::Accepted { steps: 2, distinct_states: 3 }));
        assert!(matches!(verdict::<S>(&ok, cfg, four), Ok(Verdict::Rejected { step: 0, .. })));
        let dead = Parser::parse_str(&format!(
            "@!@!@STARTMSG 2114:1 @!@!@\nDeadlock reached.\n@!@!@ENDMSG 2114 @!@!@\n\
             @!@!@STARTMSG 2217:4 @!@!@\n{}: <TraceNext line 81>\n/\\ i = {at}\n/\\ enabled = {enabled_set}\n@!@!@ENDMSG 2217 @!@!@",
            at + 1
        ));
        let want = Verdict::Rejected { step: at, reason: reason.into(), enabled: enabled.iter().map(|e| e.to_string()).collect() };
        assert_eq!(verdict::<S>(&dead, cfg, states), Ok(want));
        let error = Parser::parse_str("@!@!@STARTMSG 1000:1 @!@!@\nparse error\n@!@!@ENDMSG 1000 @!@!@");
        assert!(matches!(verdict::<S>(&error, cfg, states), Err(TraceError::Tlc(_))));
    }
}
