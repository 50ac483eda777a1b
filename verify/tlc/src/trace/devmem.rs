//! Devmem receive-token traces checked by TLC: a sequence of
//! `ringlab_model::devmem::State`, one per step from Init, is a behaviour
//! of specs/DevmemTokens.tla iff TLC finds it through
//! specs/DevmemTokensTrace.tla.
//!
//! The trace is written as a module defining the log
//! (`MCDevmemTokensTrace`) with its .cfg, beside copies of the two specs,
//! in a fresh directory under target/ringlab/devmem-trace/ (kept when the
//! trace is rejected, so the model can be rerun by hand). The path is
//! validate.rs's; what is this spec's own is below.
//!
//! The spec's constants are the caller's, Mutant included: a run of a
//! mutant build is checked against the correct spec by passing
//! `cfg.clone().with_mutant(Mutant::None)`. TLC's cost grows with the
//! token counts a step may pass: keep MaxCount small
//! (DevmemConfig::limit).
//!
//! `states[0]` is the state before the first step (it must be Init), then
//! one state per step: the simulator's trace has them (`ringlab sim
//! devmem --trace FILE`, or the harness's `Sched::record`), a step that
//! breaks an invariant included (it may still be one of the spec's):
//!
//! ```ignore
//! let t = Trace::<DevmemConfig, State>::parse_of(file, "devmem")?;
//! let states: Vec<State> = t.lines.into_iter().map(|l| l.state).collect();
//! let spec = t.header.config.spec.with_mutant(Mutant::None);
//! match devmem::validate(&spec, &states)? {
//!     Verdict::Accepted { .. } => {}
//!     Verdict::Rejected { step, reason, .. } => panic!("step {step}: {reason}"),
//! }
//! ```

use std::collections::BTreeMap;

use ringlab_model::devmem::{tla, Config, State};

use crate::trace::{SpecTrace, TraceSpec};
pub use crate::trace::{TraceError, Verdict};

/// The generated module's name.
pub const MODULE: &str = "MCDevmemTokensTrace";

/// DevmemTokens' traces: every variable of the spec per state; bindings
/// are model values.
pub struct DevmemTrace;

impl SpecTrace for DevmemTrace {
    type Config = Config;
    type State = State;
    const FILES: TraceSpec = TraceSpec {
        spec: "DevmemTokens",
        module: MODULE,
        runs: "devmem-trace",
    };

    fn model_values(cfg: &Config) -> Vec<String> {
        tla::model_values(cfg).into_iter().map(String::from).collect()
    }
    fn constants(cfg: &Config) -> String {
        tla::constants(cfg)
    }
    fn check_config(cfg: &Config) -> Result<(), String> {
        cfg.validate().map_err(|e| e.to_string())
    }
    fn record(cfg: &Config, s: &State) -> Result<String, String> {
        fits(cfg, s)?;
        Ok(tla::state_record(cfg, s))
    }
    fn init(cfg: &Config) -> Option<State> {
        Some(State::init(cfg))
    }
    fn changed(cfg: &Config, a: &State, b: &State) -> Vec<String> {
        changed(cfg, a, b).into_iter().map(String::from).collect()
    }
    fn candidates(cfg: &Config, enabled: &[String]) -> String {
        summary(cfg, enabled)
    }
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

trace_fns!(DevmemTrace, Config, State);

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::validate::read_checks;
    use ringlab_model::devmem::{Action, Mode, Sock};

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
        let bound = init.step(&cfg, &Action::BindRx { b: 0, m: Mode::Xarray }).unwrap();
        let want = "no step of DevmemTokens leads from state 0 to state 1 (it changes bst, pool); enabled at state 0: BindRx(b1, \"xarray\"), Close(<<b1, 0>>)";
        read_checks::verdicts_are_read::<DevmemTrace>(
            &cfg,
            &[init.clone(), bound.clone(), bound],
            &vec![init; 4],
            1,
            r#"{"BindRx(b1, \"xarray\")", "Close(<<b1, 0>>)"}"#,
            want,
            &["BindRx(b1, \"xarray\")", "Close(<<b1, 0>>)"],
        );
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
