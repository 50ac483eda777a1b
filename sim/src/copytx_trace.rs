//! Copy-mode transmit traces checked by TLC: a sequence of
//! `ringlab_model::copy_tx::State`, one per step from Init, is a behaviour
//! of specs/XskCopyTx.tla iff TLC finds it through specs/XskCopyTxTrace.tla.
//!
//! The trace is written as a module defining the log (`MCXskCopyTxTrace`)
//! with its .cfg, beside copies of the two specs, in a fresh directory
//! under target/ringlab/copytx-trace/ (kept when the trace is rejected,
//! so the model can be rerun by hand).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use ringlab_model::copy_tx::{tla, Config, State};
use ringlab_model::tla::{parse_value, Value};
use ringlab_tlc::{Outcome, RunOpts, Tlc, TlcResult};

/// The generated module's name.
pub const MODULE: &str = "MCXskCopyTxTrace";

/// TLC's verdict on a trace. Steps are numbered from 1: step k goes from
/// `states[k - 1]` to `states[k]`; step 0 stands for the first state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every step is a step of the spec or a stutter.
    Accepted { steps: usize, distinct_states: u64 },
    /// `step` is the first that is not (0: the first state is not Init).
    Rejected { step: usize, reason: String },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// java or the TLC jar cannot be found.
    NoTlc(String),
    /// The states cannot be written as the spec's values.
    BadTrace(String),
    Io(String),
    /// TLC ran but did not check the trace (a parse error, a crash).
    Tlc(String),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::NoTlc(e) => write!(f, "TLC unavailable: {e}"),
            TraceError::BadTrace(e) => write!(f, "not a copy-tx trace: {e}"),
            TraceError::Io(e) => write!(f, "{e}"),
            TraceError::Tlc(e) => write!(f, "TLC did not check the trace: {e}"),
        }
    }
}

impl std::error::Error for TraceError {}

fn is_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
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
        rows.push(format!("  {}", tla::state_record(cfg, s)));
    }
    Ok(format!(
        "---- MODULE {MODULE} ----\nEXTENDS XskCopyTxTrace\n\nCONSTANTS {}\n\nTraceLog == <<\n{}\n>>\n====\n",
        names.join(", "),
        rows.join(",\n")
    ))
}

/// The .cfg: the spec's constants, each declared model value as itself.
pub fn cfg_text(cfg: &Config) -> String {
    let mut out = tla::constants(cfg);
    for n in tla::model_values(cfg) {
        out += &format!("    {n} = {n}\n");
    }
    out + "    Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"
}

/// Write the trace model and the specs it needs into `dir`.
pub fn write_model(
    cfg: &Config,
    states: &[State],
    specs: &Path,
    dir: &Path,
) -> Result<(), TraceError> {
    let io = |what: String, e: std::io::Error| TraceError::Io(format!("{what}: {e}"));
    let text = module(cfg, states)?;
    std::fs::create_dir_all(dir).map_err(|e| io(format!("creating {}", dir.display()), e))?;
    for m in ["XskCopyTx.tla", "XskCopyTxTrace.tla"] {
        std::fs::copy(specs.join(m), dir.join(m))
            .map_err(|e| io(format!("copying {}", specs.join(m).display()), e))?;
    }
    let write = |name: String, text: String| {
        std::fs::write(dir.join(&name), text).map_err(|e| io(format!("writing {name}"), e))
    };
    write(format!("{MODULE}.tla"), text)?;
    write(format!("{MODULE}.cfg"), cfg_text(cfg))
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
    let opts = RunOpts {
        workers: 1,
        metadir: dir.join("states"),
        library: None,
        extra: Vec::new(),
    };
    let spec = dir.join(format!("{MODULE}.tla"));
    let result = ringlab_tlc::run(
        tlc,
        &spec,
        &dir.join(format!("{MODULE}.cfg")),
        &[],
        &opts,
        &mut |_| {},
    )
    .map_err(TraceError::Tlc)?;
    verdict(&result, cfg, states)
}

/// What TLC's result says of `states`.
pub fn verdict(r: &TlcResult, cfg: &Config, states: &[State]) -> Result<Verdict, TraceError> {
    match &r.outcome {
        Outcome::Deadlock => {
            let last = r
                .trace
                .last()
                .ok_or(TraceError::Tlc("a deadlock without a state".into()))?;
            let step: usize = last
                .var("i")
                .and_then(|v| v.parse().ok())
                .ok_or(TraceError::Tlc("the deadlock state has no i".into()))?;
            let enabled = last.var("enabled").and_then(|v| parse_value(v).ok());
            let names: Vec<&str> = match &enabled {
                Some(Value::Set(s)) => s.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let from = step.saturating_sub(1);
            let enabled = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            let reason = format!(
                "no step of XskCopyTx leads from state {from} to state {step}; enabled at state {from}: {enabled}"
            );
            Ok(Verdict::Rejected { step, reason })
        }
        Outcome::Pass => {
            let distinct_states = r
                .distinct_states
                .ok_or(TraceError::Tlc("no error but no state count".into()))?;
            // Each state of the log is one TLC state (it has its own i);
            // fewer means the first did not match Init.
            if distinct_states < states.len() as u64 {
                return Ok(Verdict::Rejected {
                    step: 0,
                    reason: not_init(cfg, &states[0]),
                });
            }
            Ok(Verdict::Accepted {
                steps: states.len() - 1,
                distinct_states,
            })
        }
        Outcome::Error(e) => Err(TraceError::Tlc(e.clone())),
        o => Err(TraceError::Tlc(format!("unexpected outcome {}", o.label()))),
    }
}

/// Why state 0 is not Init, by the variables that differ from the model's.
fn not_init(cfg: &Config, s: &State) -> String {
    let init = tla::variables(cfg, &State::init(cfg));
    let differ: Vec<&str> = init
        .iter()
        .zip(tla::variables(cfg, s))
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, _)| a.0)
        .collect();
    if differ.is_empty() {
        // The model's Init prints as the log's first record, so the log's
        // records and the trace spec's Observed disagree on the variables.
        return "state 0 is not Init, though it prints as the model's Init: do the log's records and Observed name the same variables?".into();
    }
    format!("state 0 is not Init (it differs in {})", differ.join(", "))
}

/// A fresh directory under the tree's target/ringlab/copytx-trace/.
fn fresh_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let specs = ringlab_tlc::specs_dir();
    let root = specs.parent().unwrap_or(&specs);
    let n = N.fetch_add(1, Ordering::SeqCst);
    root.join(format!(
        "target/ringlab/copytx-trace/{}-{n}",
        std::process::id()
    ))
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
    let dir = fresh_dir();
    let _ = std::fs::remove_dir_all(&dir);
    let kept = |s: String| format!("{s} (TLC model in {})", dir.display());
    match check(&tlc, cfg, states, &ringlab_tlc::specs_dir(), &dir) {
        Ok(v @ Verdict::Accepted { .. }) => {
            let _ = std::fs::remove_dir_all(&dir);
            Ok(v)
        }
        Ok(Verdict::Rejected { step, reason }) => Ok(Verdict::Rejected {
            step,
            reason: kept(reason),
        }),
        Err(TraceError::Tlc(e)) => Err(TraceError::Tlc(kept(e))),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(tool_output: &str) -> TlcResult {
        ringlab_tlc::Parser::parse_str(tool_output)
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
