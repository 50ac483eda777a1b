//! Traces checked by TLC against their specs: a log of spec states
//! written as a module beside copies of the spec and its trace spec, run
//! by TLC in a directory of its own, and TLC's answer read back as one
//! [`Verdict`] (validate.rs, the one path every spec takes). Each spec's
//! file keeps what is its own ([`SpecTrace`]): how its constants and a
//! state print, and how a rejection is explained. xsk_ring.rs: the
//! simulator's ring traces (specs/XskRingTrace.tla); copy_tx.rs:
//! XskCopyTxTrace.tla; devmem.rs: DevmemTokensTrace.tla; xsk_rx.rs:
//! XskRxTrace.tla; iouring_zc.rs: IoUringZcNotifTrace.tla; napi_cache.rs:
//! NapiSkbCacheTrace.tla.

/// The path's functions for one spec `$spec` (a [`SpecTrace`] whose
/// config and state are `$cfg` and `$state`), under the names every spec
/// file offers: module, cfg_text, write_model, check, verdict, validate.
macro_rules! trace_fns {
    ($spec:ty, $cfg:ty, $state:ty) => {
        /// The module defining `TraceLog`, one record per state.
        pub fn module(cfg: &$cfg, states: &[$state]) -> Result<String, TraceError> {
            $crate::trace::module::<$spec>(cfg, states)
        }

        /// The .cfg: the spec's constants, each model value as itself.
        pub fn cfg_text(cfg: &$cfg) -> String {
            $crate::trace::cfg_text::<$spec>(cfg)
        }

        /// Write the trace model and the specs it needs into `dir`.
        pub fn write_model(
            cfg: &$cfg,
            states: &[$state],
            specs: &std::path::Path,
            dir: &std::path::Path,
        ) -> Result<(), TraceError> {
            $crate::trace::write_model::<$spec>(cfg, states, specs, dir)
        }

        /// Check `states` with TLC, the model written into `dir`.
        pub fn check(
            tlc: &$crate::Tlc,
            cfg: &$cfg,
            states: &[$state],
            specs: &std::path::Path,
            dir: &std::path::Path,
        ) -> Result<Verdict, TraceError> {
            $crate::trace::check::<$spec>(tlc, cfg, states, specs, dir)
        }

        /// What TLC's result says of `states`.
        pub fn verdict(
            r: &$crate::TlcResult,
            cfg: &$cfg,
            states: &[$state],
        ) -> Result<Verdict, TraceError> {
            $crate::trace::verdict::<$spec>(r, cfg, states)
        }

        /// Check `states` (`states[0]` the state before the first step,
        /// which must be Init) in a fresh directory under the tree's
        /// target/ringlab/, with the TLC found on this machine. Stutters
        /// are accepted where the trace spec allows them; the model is
        /// removed when the trace is accepted and kept, and named in the
        /// reason or error, otherwise.
        pub fn validate(cfg: &$cfg, states: &[$state]) -> Result<Verdict, TraceError> {
            $crate::trace::validate::<$spec>(cfg, states)
        }
    };
}

pub mod copy_tx;
pub mod devmem;
pub mod iouring_zc;
pub mod kernel_chain;
pub mod napi_cache;
pub mod rx_chain;
mod validate;
pub mod xsk_ring;
pub mod xsk_rx;

pub use validate::{check, cfg_text, module, validate, verdict, write_model, SpecTrace, Verdict};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub use ringlab_model::cfg::is_ident;
use ringlab_model::tla::{parse_value, Value};
use crate::{Outcome, RunOpts, Tlc, TlcResult};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    /// java or the TLC jar cannot be found.
    #[error("TLC unavailable: {0}")]
    NoTlc(String),
    /// The states cannot be written as the spec's values.
    #[error("not a trace of the spec: {0}")]
    BadTrace(String),
    #[error("{0}")]
    Io(String),
    /// TLC ran but did not check the trace (a parse error, a crash).
    #[error("TLC did not check the trace: {0}")]
    Tlc(String),
}

/// A trace spec: `spec`.tla, its `spec`Trace.tla, and the generated
/// module `module` that defines the log.
#[derive(Clone, Copy, Debug)]
pub struct TraceSpec {
    pub spec: &'static str,
    pub module: &'static str,
    /// The folder under target/ringlab/ that holds the runs.
    pub runs: &'static str,
}

impl TraceSpec {
    /// The module defining `TraceLog` from one printed record per state;
    /// it declares the model values (if any) so that the log can name
    /// them, after a comment saying what was run (if given).
    pub fn module_text(&self, comment: Option<&str>, model_values: &[&str], rows: &[String]) -> String {
        let mut out = format!("---- MODULE {} ----\n", self.module);
        if let Some(c) = comment {
            let _ = writeln!(out, "\\* {c}");
        }
        let _ = writeln!(out, "EXTENDS {}Trace\n", self.spec);
        if !model_values.is_empty() {
            let _ = writeln!(out, "CONSTANTS {}\n", model_values.join(", "));
        }
        let rows: Vec<String> = rows.iter().map(|r| format!("  {r}")).collect();
        out + &format!("TraceLog == <<\n{}\n>>\n====\n", rows.join(",\n"))
    }

    /// The .cfg: the spec's constants, each model value as itself.
    pub fn cfg_text(&self, constants: String, model_values: &[&str]) -> String {
        let mut out = constants;
        for n in model_values {
            out += &format!("    {n} = {n}\n");
        }
        out + "    Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"
    }

    /// Write the generated module and .cfg, and copies of the two specs,
    /// into `dir`.
    pub fn write_model(
        &self,
        specs: &Path,
        dir: &Path,
        module: String,
        cfg: String,
    ) -> Result<(), TraceError> {
        let io = |what: String, e: std::io::Error| TraceError::Io(format!("{what}: {e}"));
        std::fs::create_dir_all(dir).map_err(|e| io(format!("creating {}", dir.display()), e))?;
        for m in [format!("{}.tla", self.spec), format!("{}Trace.tla", self.spec)] {
            std::fs::copy(specs.join(&m), dir.join(&m))
                .map_err(|e| io(format!("copying {}", specs.join(&m).display()), e))?;
        }
        let write = |name: String, text: String| {
            std::fs::write(dir.join(&name), text).map_err(|e| io(format!("writing {name}"), e))
        };
        write(format!("{}.tla", self.module), module)?;
        write(format!("{}.cfg", self.module), cfg)
    }

    /// Run TLC on the model written into `dir`.
    pub fn run(&self, tlc: &Tlc, dir: &Path) -> Result<TlcResult, TraceError> {
        let opts = RunOpts {
            workers: 1,
            metadir: dir.join("states"),
            library: None,
            extra: Vec::new(),
        };
        crate::run(
            tlc,
            &dir.join(format!("{}.tla", self.module)),
            &dir.join(format!("{}.cfg", self.module)),
            &[],
            &opts,
            &mut |_| {},
        )
        .map_err(TraceError::Tlc)
    }

    /// A fresh directory under the tree's target/ringlab/`runs`/.
    pub fn scratch(&self) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let specs = crate::specs_dir();
        let root = specs.parent().unwrap_or(&specs);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = root.join(format!(
            "target/ringlab/{}/{}-{n}",
            self.runs,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch { dir }
    }
}

/// Where one trace is checked: removed once the trace is accepted, kept
/// (and named in the message) otherwise, so the model can be rerun.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    pub fn kept(&self, s: String) -> String {
        format!("{s} (TLC model in {})", self.dir.display())
    }

    pub fn kept_err(&self, e: TraceError) -> TraceError {
        match e {
            TraceError::Tlc(e) => TraceError::Tlc(self.kept(e)),
            e => e,
        }
    }
}

/// What TLC's run of a trace spec says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Run {
    /// No step leads from log line `step - 1` to log line `step`; the
    /// actions the trace spec recorded as enabled there (None: it recorded
    /// no `enabled` set).
    Stuck {
        step: usize,
        enabled: Option<Vec<String>>,
    },
    /// TLC found no error and this many distinct states: one per log line
    /// if the first is Init, fewer if it is not.
    Matched { distinct_states: u64 },
}

pub fn read(r: &TlcResult) -> Result<Run, TraceError> {
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
            let enabled = match last.var("enabled").map(parse_value) {
                Some(Ok(Value::Set(s))) => Some(
                    s.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                ),
                _ => None,
            };
            Ok(Run::Stuck { step, enabled })
        }
        Outcome::Pass => {
            let distinct_states = r
                .distinct_states
                .ok_or(TraceError::Tlc("no error but no state count".into()))?;
            Ok(Run::Matched { distinct_states })
        }
        Outcome::Error(e) => Err(TraceError::Tlc(e.clone())),
        o => Err(TraceError::Tlc(format!("unexpected outcome {}", o.label()))),
    }
}

pub use ringlab_model::tla::differing;

/// Why state 0 is not Init, given the variables that differ from Init.
pub fn not_init<T: AsRef<str>>(differ: &[T]) -> String {
    if differ.is_empty() {
        // Init prints as the log's first record, so the log's records and
        // the trace spec's Observed disagree on the variables.
        return "state 0 is not Init, though it prints as the model's Init: do the log's records and Observed name the same variables?".into();
    }
    let differ: Vec<&str> = differ.iter().map(AsRef::as_ref).collect();
    format!("state 0 is not Init (it differs in {})", differ.join(", "))
}
