//! Parsing `ringlab-sim`'s arguments, by hand: few flags, no dependency.

use std::fmt;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::config::{RingKind, SimConfig};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Help,
    Run {
        cfg: SimConfig,
        steps: u64,
        trace: Option<PathBuf>,
        threads: bool,
    },
    Tla {
        trace: PathBuf,
        out: PathBuf,
    },
    Check {
        trace: PathBuf,
        work: Option<PathBuf>,
    },
}

/// Input the command line cannot take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn err<T>(m: impl Into<String>) -> Result<T, UsageError> {
    Err(UsageError(m.into()))
}

fn number<T: std::str::FromStr>(flag: &str, v: &str, what: &str) -> Result<T, UsageError> {
    v.parse()
        .or_else(|_| err(format!("{flag}: expected {what}, got {v:?}")))
}

fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

pub fn parse(argv: &[String]) -> Result<Command, UsageError> {
    let Some((sub, rest)) = argv.split_first() else {
        return err("no command given");
    };
    if rest.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(Command::Help);
    }
    let mut flags = Flags::new(rest)?;
    let cmd = match sub.as_str() {
        "help" | "-h" | "--help" => Command::Help,
        "run" => {
            let kind = match flags.value("--ring") {
                Some(r) => r.parse::<RingKind>().or_else(|e| err(e.to_string()))?,
                None => RingKind::Fill,
            };
            let size = flags.value("--size").map_or(Ok(4), |v| {
                number("--size", &v, "a ring size (a power of two)")
            })?;
            let start = flags.value("--start").map_or(Ok(0), |v| {
                number("--start", &v, "a u32 position (0..=4294967295)")
            })?;
            let steps = flags
                .value("--steps")
                .map_or(Ok(500), |v| number("--steps", &v, "a step count"))?;
            let seed = flags
                .value("--seed")
                .map_or_else(|| Ok(clock_seed()), |v| number("--seed", &v, "a u64 seed"))?;
            let mut cfg = SimConfig::new(kind, size, start, seed);
            if let Some(v) = flags.value("--max-batch") {
                cfg.max_batch = number("--max-batch", &v, "a batch size")?;
            }
            let trace = flags.value("--trace").map(PathBuf::from);
            let threads = flags.switch("--threads");
            if threads && trace.is_some() {
                return err("--trace records the deterministic mode; it cannot go with --threads");
            }
            Command::Run {
                cfg,
                steps,
                trace,
                threads,
            }
        }
        "tla" => {
            let trace = flags
                .value("--trace")
                .map(PathBuf::from)
                .ok_or_else(|| UsageError("tla: --trace FILE is required".into()))?;
            Command::Tla {
                trace,
                out: flags
                    .value("--out")
                    .map_or_else(|| PathBuf::from("."), PathBuf::from),
            }
        }
        "check" => {
            let trace = flags
                .value("--trace")
                .map(PathBuf::from)
                .ok_or_else(|| UsageError("check: --trace FILE is required".into()))?;
            Command::Check {
                trace,
                work: flags.value("--work").map(PathBuf::from),
            }
        }
        other => return err(format!("unknown command {other:?}")),
    };
    flags.finish()?;
    Ok(cmd)
}

/// `--flag value` and `--switch` arguments, each taken at most once.
struct Flags(Vec<(String, Option<String>)>);

const SWITCHES: [&str; 1] = ["--threads"];

impl Flags {
    fn new(args: &[String]) -> Result<Self, UsageError> {
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let (flag, inline) = match a.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (a.clone(), None),
            };
            if !flag.starts_with("--") {
                return err(format!("unexpected argument {a:?}"));
            }
            if out.iter().any(|(f, _)| *f == flag) {
                return err(format!("{flag} given twice"));
            }
            let value = if SWITCHES.contains(&flag.as_str()) {
                None
            } else {
                Some(match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| UsageError(format!("{flag} needs a value")))?,
                })
            };
            out.push((flag, value));
        }
        Ok(Flags(out))
    }

    fn value(&mut self, flag: &str) -> Option<String> {
        let i = self.0.iter().position(|(f, _)| f == flag)?;
        self.0.remove(i).1
    }

    fn switch(&mut self, flag: &str) -> bool {
        let i = self.0.iter().position(|(f, _)| f == flag);
        i.map(|i| self.0.remove(i)).is_some()
    }

    fn finish(self) -> Result<(), UsageError> {
        match self.0.first() {
            Some((f, _)) => err(format!("unknown flag {f}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn run_takes_the_documented_flags() {
        let c = parse(&args(
            "run --ring tx --size 8 --start 4294967290 --steps 20 --seed 3 --trace t.jsonl",
        ))
        .unwrap();
        let Command::Run {
            cfg,
            steps,
            trace,
            threads,
        } = c
        else {
            panic!()
        };
        assert_eq!(
            (cfg.kind, cfg.size, cfg.start, cfg.seed, cfg.max_batch),
            (RingKind::Tx, 8, 4294967290, 3, 4)
        );
        assert_eq!(
            (steps, trace, threads),
            (20, Some(PathBuf::from("t.jsonl")), false)
        );
        let Command::Run { threads, .. } = parse(&args("run --threads --seed=1")).unwrap() else {
            panic!()
        };
        assert!(threads);
    }

    #[test]
    fn help_after_a_command_is_help() {
        for line in ["run --help", "check -h", "run --ring tx --help"] {
            let argv: Vec<String> = line.split_whitespace().map(String::from).collect();
            assert!(matches!(parse(&argv), Ok(Command::Help)), "{line}");
        }
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        for (line, msg) in [
            ("", "no command"),
            ("fly", "unknown command"),
            ("run --ring ftx", "unknown ring kind \"ftx\""),
            ("run --size x", "--size: expected a ring size"),
            ("run --start 4294967296", "--start: expected a u32 position"),
            ("run --seed", "--seed needs a value"),
            ("run --bogus 1", "unknown flag --bogus"),
            ("run --size 2 --size 4", "--size given twice"),
            ("run --threads --trace f", "cannot go with --threads"),
            ("tla", "--trace FILE is required"),
        ] {
            let e = parse(&args(line)).unwrap_err().to_string();
            assert!(e.contains(msg), "{line:?}: {e}");
        }
    }
}
