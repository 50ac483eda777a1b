//! Devmem receive-token traces checked by TLC: a sequence of
//! `ringlab_model::devmem::State`, one per step from Init, is a behaviour
//! of specs/DevmemTokens.tla iff TLC finds it through
//! specs/DevmemTokensTrace.tla.
//!
//! The trace is written as a module defining the log
//! (`MCDevmemTokensTrace`) with its .cfg, beside copies of the two specs,
//! in a fresh directory under target/ringlab/devmem-trace/ (kept when the
//! trace is rejected, so the model can be rerun by hand). The plumbing is
//! trace_check's.
//!
//! The spec's constants are the caller's, Mutant included: a run of a
//! mutant build is checked against the correct spec by passing
//! `cfg.clone().with_mutant(Mutant::None)`.

use std::collections::BTreeMap;
use std::path::Path;

use ringlab_model::devmem::{tla, Config, State};
use crate::{Tlc, TlcResult};

use crate::trace::{is_ident, Run, TraceSpec};
pub use crate::trace::TraceError;

/// The generated module's name.
pub const MODULE: &str = "MCDevmemTokensTrace";

const SPEC: TraceSpec = TraceSpec {
    spec: "DevmemTokens",
    module: MODULE,
    runs: "devmem-trace",
};

/// TLC's verdict on a trace. Steps are numbered from 1: step k goes from
/// `states[k - 1]` to `states[k]`; step 0 stands for the first state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every step is a step of the spec or a stutter.
    Accepted { steps: usize, distinct_states: u64 },
    /// `step` is the first that is not (0: the first state is not Init).
    /// `enabled`: the action instances enabled at `states[step - 1]`, as
    /// `ringlab_model::devmem::tla::action` prints them (none for step 0).
    Rejected {
        step: usize,
        reason: String,
        enabled: Vec<String>,
    },
}

/// Whether `s` can be printed under `cfg`: the printer indexes the
/// config's bindings, sockets and net_iovs.
fn fits(cfg: &Config, s: &State) -> Result<(), String> {
    if !s.type_ok(cfg) {
        return Err("its vectors do not have the config's sizes, or it names a net_iov, piece count or token outside the config".into());
    }
    if let Some(x) = s
        .stolen
        .iter()
        .find(|x| !cfg.has_sock(x.by) || !cfg.has_sock(x.from))
    {
        return Err(format!("stolen names a socket outside the config: {x:?}"));
    }
    Ok(())
}

/// The module defining `TraceLog`, one record of the spec's variables per
/// state; it declares the bindings (model values) so that the log can name
/// them.
pub fn module(cfg: &Config, states: &[State]) -> Result<String, TraceError> {
    let bad = TraceError::BadTrace;
    if states.is_empty() {
        return Err(bad("the trace has no state".into()));
    }
    cfg.validate()
        .map_err(|e| bad(format!("the constants: {e}")))?;
    let names = tla::model_values(cfg);
    if let Some(n) = names.iter().find(|n| !is_ident(n)) {
        return Err(bad(format!("binding {n:?} is not a TLA+ identifier")));
    }
    let mut rows = Vec::with_capacity(states.len());
    for (k, s) in states.iter().enumerate() {
        fits(cfg, s).map_err(|e| bad(format!("state {k}: {e}")))?;
        rows.push(tla::state_record(cfg, s));
    }
    Ok(SPEC.module_text(&names, &rows))
}

/// The .cfg: the spec's constants, each binding as itself.
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

pub use ringlab_model::devmem::tla::changed;

/// The candidates, shortened for a message: a socket's Dontneed instances
/// as one entry with their number when every (t, c) is enabled (as it is
/// on any open socket of the correct spec), each one otherwise.
fn summary(cfg: &Config, enabled: &[String]) -> String {
    if enabled.is_empty() {
        return "none".into();
    }
    let all = cfg.toks() as usize * cfg.max_count as usize;
    let mut dontneed: BTreeMap<&str, usize> = BTreeMap::new();
    for a in enabled {
        if let Some(args) = a.strip_prefix("Dontneed(") {
            if let Some(end) = args.find(">>") {
                *dontneed.entry(&args[..end + 2]).or_default() += 1;
            }
        }
    }
    let mut out = Vec::new();
    let mut grouped = Vec::new();
    for a in enabled {
        let sock = a
            .strip_prefix("Dontneed(")
            .and_then(|args| args.find(">>").map(|end| &args[..end + 2]));
        match sock {
            Some(s) if dontneed[s] == all => {
                if !grouped.contains(&s) {
                    grouped.push(s);
                    out.push(format!("Dontneed({s}, t, c) for all {all} (t, c)"));
                }
            }
            _ => out.push(a.clone()),
        }
    }
    out.join(", ")
}

/// What TLC's result says of `states`.
pub fn verdict(r: &TlcResult, cfg: &Config, states: &[State]) -> Result<Verdict, TraceError> {
    match crate::trace::read(r)? {
        Run::Stuck { step, enabled } => {
            if step == 0 || step >= states.len() {
                return Err(TraceError::Tlc(format!(
                    "TLC stopped at log line {step} of a trace of {} states",
                    states.len()
                )));
            }
            let mut enabled = enabled.ok_or(TraceError::Tlc(
                "the deadlock state has no enabled set".into(),
            ))?;
            enabled.sort();
            let from = step - 1;
            let what = changed(cfg, &states[from], &states[step]);
            let what = if what.is_empty() {
                "a stutter".to_string()
            } else {
                format!("it changes {}", what.join(", "))
            };
            let reason = format!(
                "no step of DevmemTokens leads from state {from} to state {step} ({what}); enabled at state {from}: {}",
                summary(cfg, &enabled)
            );
            Ok(Verdict::Rejected {
                step,
                reason,
                enabled,
            })
        }
        // Each state of the log is one TLC state (it has its own i);
        // fewer means the first did not match Init.
        Run::Matched { distinct_states } if distinct_states < states.len() as u64 => {
            Ok(Verdict::Rejected {
                step: 0,
                reason: crate::trace::not_init(&changed(cfg, &State::init(cfg), &states[0])),
                enabled: Vec::new(),
            })
        }
        Run::Matched { distinct_states } => Ok(Verdict::Accepted {
            steps: states.len() - 1,
            distinct_states,
        }),
    }
}

/// Check a devmem trace against specs/DevmemTokens.tla under the constants
/// `cfg`.
///
/// `states[0]` is the state before the first step (it must be Init), then
/// one state per step. The simulator records `Devmem::model_state` before
/// its first step and after each (also after a step that breaks an
/// invariant: that step may still be one of the spec's):
///
/// ```ignore
/// let mut sim = Sched::new(cfg.clone())?;
/// let mut states = vec![sim.sys.model_state()];
/// for _ in 0..steps {
///     let r = sim.step_random();
///     states.push(sim.sys.model_state());
///     if !matches!(r, Ok(Some(_))) { break; }
/// }
/// let spec = cfg.spec.clone().with_mutant(Mutant::None);
/// match devmem_trace::validate(&spec, &states)? {
///     Verdict::Accepted { .. } => {}
///     Verdict::Rejected { step, reason, .. } => panic!("step {step}: {reason}"),
/// }
/// ```
///
/// Stutters (a state repeated) are accepted. The model is removed when the
/// trace is accepted and kept, and named in the reason or error, otherwise.
/// TLC's cost grows with the token counts a step may pass: keep MaxCount
/// small (DevmemConfig::limit).
pub fn validate(cfg: &Config, states: &[State]) -> Result<Verdict, TraceError> {
    let tlc = Tlc::locate().map_err(TraceError::NoTlc)?;
    let scratch = SPEC.scratch();
    match check(&tlc, cfg, states, &crate::specs_dir(), &scratch.dir) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_model::devmem::{Action, Mode, Sock};

    fn result(tool_output: &str) -> TlcResult {
        crate::Parser::parse_str(tool_output)
    }

    #[test]
    fn the_model_declares_and_assigns_its_bindings() {
        let cfg = Config::modes();
        let init = State::init(&cfg);
        let m = module(&cfg, &[init.clone(), init]).unwrap();
        assert!(
            m.contains("EXTENDS DevmemTokensTrace\n\nCONSTANTS b1, b2\n"),
            "{m}"
        );
        assert_eq!(
            m.matches("[bst |-> (b1 :> \"idle\" @@ b2 :> \"idle\")")
                .count(),
            2,
            "{m}"
        );
        let c = cfg_text(&cfg);
        assert!(
            c.contains("    Bindings = {b1, b2}\n") && c.contains("    b2 = b2\n"),
            "{c}"
        );
        assert!(
            c.ends_with("Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"),
            "{c}"
        );
        assert!(matches!(module(&cfg, &[]), Err(TraceError::BadTrace(_))));
        // A state of another config is not printed.
        let other = State::init(&Config::xarray());
        assert!(matches!(
            module(&cfg, &[other]),
            Err(TraceError::BadTrace(_))
        ));
    }

    #[test]
    fn verdicts_are_read() {
        let cfg = Config::xarray();
        let init = State::init(&cfg);
        let bound = init
            .step(
                &cfg,
                &Action::BindRx {
                    b: 0,
                    m: Mode::Xarray,
                },
            )
            .unwrap();
        let states = vec![init.clone(), bound.clone(), bound];
        let ok = result("@!@!@STARTMSG 2193:0 @!@!@\nModel checking completed. No error has been found.\n@!@!@ENDMSG 2193 @!@!@\n\
             @!@!@STARTMSG 2199:0 @!@!@\n4 states generated, 3 distinct states found, 0 states left on queue.\n@!@!@ENDMSG 2199 @!@!@");
        assert_eq!(
            verdict(&ok, &cfg, &states),
            Ok(Verdict::Accepted {
                steps: 2,
                distinct_states: 3
            })
        );
        let four = vec![init.clone(); 4];
        assert!(matches!(
            verdict(&ok, &cfg, &four),
            Ok(Verdict::Rejected { step: 0, .. })
        ));
        let dead = result("@!@!@STARTMSG 2114:1 @!@!@\nDeadlock reached.\n@!@!@ENDMSG 2114 @!@!@\n\
             @!@!@STARTMSG 2217:4 @!@!@\n2: <TraceNext line 81>\n/\\ i = 1\n/\\ enabled = {\"BindRx(b1, \\\"xarray\\\")\", \"Close(<<b1, 0>>)\"}\n@!@!@ENDMSG 2217 @!@!@");
        let want = "no step of DevmemTokens leads from state 0 to state 1 (it changes bst, pool); enabled at state 0: BindRx(b1, \"xarray\"), Close(<<b1, 0>>)";
        assert_eq!(
            verdict(&dead, &cfg, &states),
            Ok(Verdict::Rejected {
                step: 1,
                reason: want.into(),
                enabled: vec!["BindRx(b1, \"xarray\")".into(), "Close(<<b1, 0>>)".into()],
            })
        );
        let error = result("@!@!@STARTMSG 1000:1 @!@!@\nparse error\n@!@!@ENDMSG 1000 @!@!@");
        assert!(matches!(
            verdict(&error, &cfg, &states),
            Err(TraceError::Tlc(_))
        ));
    }

    #[test]
    fn a_sockets_dontneed_instances_are_summarised_when_all_are_enabled() {
        let cfg = Config::xarray();
        let s0 = Sock { b: 0, i: 0 };
        let s1 = Sock { b: 0, i: 1 };
        let mut enabled: Vec<String> = (0..cfg.toks())
            .flat_map(|t| (1..=cfg.max_count).map(move |c| (t, c)))
            .map(|(t, c)| tla::action(&cfg, &Action::Dontneed { s: s0, t, c }))
            .collect();
        enabled.push(tla::action(&cfg, &Action::Dontneed { s: s1, t: 0, c: 1 }));
        enabled.push(tla::action(&cfg, &Action::Close { s: s0 }));
        assert_eq!(
            summary(&cfg, &enabled),
            "Dontneed(<<b1, 0>>, t, c) for all 12 (t, c), Dontneed(<<b1, 1>>, 0, 1), Close(<<b1, 0>>)"
        );
        assert_eq!(summary(&cfg, &[]), "none");
    }
}
