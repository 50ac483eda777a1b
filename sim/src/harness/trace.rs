//! The trace of a deterministic run, for every protocol, as JSON lines:
//! a header naming the protocol, its config, the seed, the random steps
//! asked for and the mutant features of the build; then one line per
//! step, `{"step", "action", "state"}`, the state projected onto the
//! spec's variables. Step 0, action "Init", is the state the run started
//! in. TLC validates a trace (ringlab_tlc::trace), `ringlab sim replay`
//! replays one, the report's explorer draws the xsk ring's.

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The first line: what was run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header<C> {
    /// The protocol's name (`Protocol::NAME`).
    pub protocol: String,
    pub seed: u64,
    /// Random steps the run was asked for, before its drain: replay
    /// asks for as many.
    pub steps: u64,
    /// The mutant features of the build that recorded it.
    #[serde(default)]
    pub mutants: Vec<String>,
    pub config: C,
}

/// One line per step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line<S> {
    pub step: u64,
    /// The action as the spec names it, or "Init" for step 0.
    pub action: String,
    pub state: S,
}

/// A whole trace, as read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace<C, S> {
    pub header: Header<C>,
    pub lines: Vec<Line<S>>,
}

/// A trace of any protocol, its config and states as JSON.
pub type RawTrace = Trace<Value, Value>;

/// A trace file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("reading the trace: {0}")]
    Io(#[from] io::Error),
    #[error("trace line {line}: {err}")]
    Json { line: usize, err: serde_json::Error },
    #[error("the trace is empty")]
    Empty,
    #[error("the trace has no Init line after its header")]
    NoInit,
    #[error("this is a trace of {found}, not of {want}")]
    Protocol { found: String, want: String },
    #[error("trace line 1: its config: {0}")]
    Config(String),
}

impl<C: DeserializeOwned, S: DeserializeOwned> Trace<C, S> {
    /// A trace of `protocol`; an error names the line that is wrong.
    pub fn parse_of(r: impl BufRead, protocol: &str) -> Result<Self, TraceError> {
        Self::read(r, Some(protocol))
    }

    /// A trace of whatever protocol its header names.
    pub fn parse(r: impl BufRead) -> Result<Self, TraceError> {
        Self::read(r, None)
    }

    fn read(r: impl BufRead, want: Option<&str>) -> Result<Self, TraceError> {
        let mut rows = r
            .lines()
            .enumerate()
            .filter(|(_, l)| !matches!(l, Ok(l) if l.trim().is_empty()));
        let (n, first) = numbered(rows.next().ok_or(TraceError::Empty)?)?;
        let raw: Header<Value> =
            serde_json::from_str(&first).map_err(|err| TraceError::Json { line: n, err })?;
        if let Some(want) = want.filter(|w| *w != raw.protocol) {
            return Err(TraceError::Protocol {
                found: raw.protocol,
                want: want.into(),
            });
        }
        let config =
            serde_json::from_value(raw.config).map_err(|e| TraceError::Config(e.to_string()))?;
        let header = Header {
            protocol: raw.protocol,
            seed: raw.seed,
            steps: raw.steps,
            mutants: raw.mutants,
            config,
        };
        let mut lines = Vec::new();
        for row in rows {
            let (n, l) = numbered(row)?;
            lines.push(serde_json::from_str(&l).map_err(|err| TraceError::Json { line: n, err })?);
        }
        if lines.first().map(|l: &Line<S>| l.action.as_str()) != Some("Init") {
            return Err(TraceError::NoInit);
        }
        Ok(Trace { header, lines })
    }
}

fn numbered((n, l): (usize, io::Result<String>)) -> Result<(usize, String), TraceError> {
    Ok((n + 1, l?))
}

/// Writes a trace as the run goes.
pub struct TraceWriter {
    out: Box<dyn Write + Send>,
}

#[derive(Serialize)]
struct LineRef<'a, S> {
    step: u64,
    action: &'a str,
    state: &'a S,
}

impl TraceWriter {
    pub fn new<C: Serialize>(out: Box<dyn Write + Send>, header: &Header<C>) -> io::Result<Self> {
        let mut w = TraceWriter { out };
        w.put(header)?;
        Ok(w)
    }

    pub fn line<S: Serialize>(&mut self, step: u64, action: &str, state: &S) -> io::Result<()> {
        self.put(&LineRef {
            step,
            action,
            state,
        })
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn put<T: Serialize>(&mut self, v: &T) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, v)?;
        self.out.write_all(b"\n")
    }
}

/// An in-memory trace sink that can be read back while it is shared.
#[derive(Clone, Default)]
pub struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    /// What was written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).write(b)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Cfg {
        size: u32,
    }

    #[test]
    fn lines_have_the_documented_shape_and_read_back() {
        let header = Header {
            protocol: "p".into(),
            seed: 9,
            steps: 5,
            mutants: vec![],
            config: Cfg { size: 2 },
        };
        let buf = SharedBuf::default();
        let mut w = TraceWriter::new(Box::new(buf.clone()), &header).unwrap();
        w.line(0, "Init", &vec![1, 2]).unwrap();
        let text = String::from_utf8(buf.bytes()).unwrap();
        let mut rows = text.lines();
        assert_eq!(
            rows.next(),
            Some(r#"{"protocol":"p","seed":9,"steps":5,"mutants":[],"config":{"size":2}}"#)
        );
        assert_eq!(rows.next(), Some(r#"{"step":0,"action":"Init","state":[1,2]}"#));
        let t = Trace::<Cfg, Vec<u32>>::parse_of(text.as_bytes(), "p").unwrap();
        assert_eq!(t.header, header);
        assert_eq!(t.lines[0].state, vec![1, 2]);
    }

    #[test]
    fn bad_traces_are_errors_naming_what_is_wrong() {
        type T = RawTrace;
        assert!(matches!(T::parse(&b""[..]), Err(TraceError::Empty)));
        assert!(matches!(
            T::parse(&b"{}\n"[..]),
            Err(TraceError::Json { line: 1, .. })
        ));
        let header = r#"{"protocol":"p","seed":1,"steps":0,"config":{"size":"x"}}"#;
        let e = Trace::<Cfg, Value>::parse_of(header.as_bytes(), "q").unwrap_err();
        assert_eq!(e.to_string(), "this is a trace of p, not of q");
        let e = Trace::<Cfg, Value>::parse(header.as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("trace line 1: its config: "), "{e}");
        let no_init = format!("{}\n\n{}\n", header.replace("\"x\"", "2"), r#"{"step":1,"action":"A","state":0}"#);
        assert!(matches!(T::parse(no_init.as_bytes()), Err(TraceError::NoInit)));
        let bad = format!("{}\n{}\n", header, r#"{"step":0,"action":"Init"}"#);
        assert!(matches!(T::parse(bad.as_bytes()), Err(TraceError::Json { line: 2, .. })));
    }
}
