//! AF_XDP receive traces checked by TLC: a sequence of
//! `ringlab_model::xsk_rx::State`, one per step from Init, is a behaviour
//! of specs/XskRx.tla iff TLC finds it through specs/XskRxTrace.tla.
//! Every mode of the spec is checked: Path "driver" or "generic",
//! Redirect "map" or "xsk" (XskRedirectXsk's FastSpec takes Next's steps),
//! LateBind, Batch.
//!
//! The trace is written as a module defining the log (`MCXskRxTrace`)
//! with its .cfg, beside copies of the two specs, in a fresh directory
//! under target/ringlab/xsk-rx-trace/ (kept when the trace is rejected,
//! so the model can be rerun by hand). The path is validate.rs's; what is
//! this spec's own is below.
//!
//! The spec's constants are the caller's, Mutant included: a run of a
//! mutant build is checked against the correct spec by passing
//! `cfg.clone().with_mutant(Mutant::None)`.
//!
//! `states[0]` is the state before the first step (it must be Init), then
//! one state per step, a step that breaks an invariant included (it may
//! still be one of the spec's):
//!
//! ```ignore
//! match xsk_rx::validate(&cfg, &states)? {
//!     Verdict::Accepted { .. } => {}
//!     Verdict::Rejected { step, reason, .. } => panic!("step {step}: {reason}"),
//! }
//! ```

use ringlab_model::xsk_rx::{tla, Config, State};

use crate::trace::{SpecTrace, TraceSpec};
pub use crate::trace::{TraceError, Verdict};

/// The generated module's name.
pub const MODULE: &str = "MCXskRxTrace";

/// XskRx's traces: every variable of the spec per state; CPUs are model
/// values.
pub struct XskRxTrace;

impl SpecTrace for XskRxTrace {
    type Config = Config;
    type State = State;
    const FILES: TraceSpec = TraceSpec {
        spec: "XskRx",
        module: MODULE,
        runs: "xsk-rx-trace",
    };

    fn model_values(cfg: &Config) -> Vec<String> {
        tla::model_values(cfg)
            .into_iter()
            .map(String::from)
            .collect()
    }
    fn constants(cfg: &Config) -> String {
        tla::constants(cfg)
    }
    fn check_config(cfg: &Config) -> Result<(), String> {
        cfg.validate()
    }
    fn record(cfg: &Config, s: &State) -> Result<String, String> {
        fits(cfg, s)?;
        Ok(tla::state_record(cfg, s))
    }
    fn init(cfg: &Config) -> Option<State> {
        Some(State::init(cfg))
    }
    fn changed(cfg: &Config, a: &State, b: &State) -> Vec<String> {
        tla::changed(cfg, a, b)
            .into_iter()
            .map(String::from)
            .collect()
    }
}

/// Whether `s` can be printed under `cfg`: the printer names the config's
/// CPUs by index, and each per-socket, per-packet and per-CPU vector must
/// have the config's length for the log to be the spec's functions.
fn fits(cfg: &Config, s: &State) -> Result<(), String> {
    let (ns, nc) = (usize::from(cfg.n_sockets), cfg.cpus.len());
    let lens = [
        ("rx", s.rx.len(), ns),
        ("rxPub", s.rx_pub.len(), ns),
        ("st", s.st.len(), ns),
        ("map", s.map.len(), ns),
        ("lock", s.lock.len(), ns),
        ("cnt", s.cnt.len(), ns),
        ("fate", s.fate.len(), usize::from(cfg.max_pkts)),
        ("cpu", s.cpu.len(), nc),
        ("flush", s.flush.len(), nc),
        ("fastXs", s.fast_xs.len(), nc),
        ("pend", s.pend.len(), nc),
    ];
    if let Some((v, got, want)) = lens.iter().find(|(_, got, want)| got != want) {
        return Err(format!("{v} has {got} entries, the config {want}"));
    }
    let cpu_ok = |c: &Option<u8>| c.is_none_or(|c| usize::from(c) < nc);
    if !cpu_ok(&s.poller) || !s.lock.iter().all(cpu_ok) {
        return Err("poller or lock names a CPU outside the config".into());
    }
    Ok(())
}

trace_fns!(XskRxTrace, Config, State);

pub use ringlab_model::xsk_rx::tla::changed;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::validate::read_checks;
    use ringlab_model::xsk_rx::Action;

    #[test]
    fn the_model_declares_and_assigns_its_cpus() {
        let cfg = Config::fast();
        let init = State::init(&cfg);
        let m = module(&cfg, &[init.clone(), init]).unwrap();
        assert!(
            m.contains("EXTENDS XskRxTrace\n\nCONSTANTS c1, c2\n"),
            "{m}"
        );
        assert_eq!(
            m.matches("fastXs |-> (c1 :> 0 @@ c2 :> 0),").count(),
            2,
            "{m}"
        );
        assert_eq!(m.matches("rxqXsk |-> 1,").count(), 2, "{m}");
        assert_eq!(
            m.matches("pend |-> (c1 :> <<>> @@ c2 :> <<>>)]").count(),
            2,
            "{m}"
        );
        let c = cfg_text(&cfg);
        assert!(
            c.contains("    Cpus = {c1, c2}\n")
                && c.contains("    Redirect = \"xsk\"\n")
                && c.contains("    LateBind = {2}\n")
                && c.contains("    Batch = 1\n")
                && c.contains("    c2 = c2\n"),
            "{c}"
        );
        assert!(
            c.ends_with("Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"),
            "{c}"
        );
        assert!(matches!(module(&cfg, &[]), Err(TraceError::BadTrace(_))));
        // A state of another config is not printed.
        let mut other = State::init(&cfg);
        other.cpu.pop();
        assert!(matches!(
            module(&cfg, &[other]),
            Err(TraceError::BadTrace(_))
        ));
        let mut other = State::init(&cfg);
        other.poller = Some(2);
        assert!(matches!(
            module(&cfg, &[other]),
            Err(TraceError::BadTrace(_))
        ));
    }

    #[test]
    fn verdicts_are_read() {
        let cfg = Config::driver();
        let init = State::init(&cfg);
        let polled = init.step(&cfg, &Action::NapiPoll { c: 0 }).unwrap();
        let want = "no step of XskRx leads from state 0 to state 1 (it changes poller); enabled at state 0: NapiPoll(c1), UserFill";
        read_checks::verdicts_are_read::<XskRxTrace>(
            &cfg,
            &[init.clone(), polled.clone(), polled],
            &vec![init; 4],
            1,
            r#"{"NapiPoll(c1)", "UserFill"}"#,
            want,
            &["NapiPoll(c1)", "UserFill"],
        );
    }
}
