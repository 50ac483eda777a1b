//! The JSON-lines trace of a deterministic run: a header, then the spec's
//! observed variables after each step (step 0, "Init", is the start).

use std::fmt;
use std::io::{self, BufRead, Write};

use serde::{Deserialize, Serialize};

/// The spec variables a step changes that the simulator can observe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub prod: u32,
    pub cons: u32,
    pub p_prod: u32,
    pub p_cons: u32,
    pub p_wr: u32,
    pub c_prod: u32,
    pub c_cons: u32,
    pub c_rd: u32,
    pub c_end: u32,
    /// slot[s].idx: the position last stored in slot s (`None`: never).
    pub slot: Vec<Option<u32>>,
    /// slot[s].ok: whether that entry is valid (true if never stored).
    pub slot_ok: Vec<bool>,
}

impl State {
    /// The counters, under their spec names, in the spec's order.
    pub fn counters(&self) -> [(&'static str, u32); 9] {
        [
            ("prod", self.prod),
            ("cons", self.cons),
            ("pProd", self.p_prod),
            ("pCons", self.p_cons),
            ("pWr", self.p_wr),
            ("cProd", self.c_prod),
            ("cCons", self.c_cons),
            ("cRd", self.c_rd),
            ("cEnd", self.c_end),
        ]
    }
}

/// The first line: what was run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub ring: String,
    pub size: u32,
    pub start: u32,
    pub max_batch: u32,
    pub seed: u64,
    pub prod_side: String,
    pub cons_side: String,
    pub invalid_descs: bool,
    /// The mutant features of the build that recorded it.
    #[serde(default)]
    pub mutants: Vec<String>,
}

/// One line per step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub step: u64,
    /// A spec action name, or "Init" for step 0.
    pub action: String,
    #[serde(flatten)]
    pub state: State,
}

/// A whole trace, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub header: Header,
    pub lines: Vec<Line>,
}

/// A trace file that cannot be read.
#[derive(Debug)]
pub enum TraceError {
    Io(io::Error),
    Json { line: usize, err: serde_json::Error },
    Empty,
    NoInit,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Io(e) => write!(f, "reading the trace: {e}"),
            TraceError::Json { line, err } => write!(f, "trace line {line}: {err}"),
            TraceError::Empty => f.write_str("the trace is empty"),
            TraceError::NoInit => f.write_str("the trace has no Init line after its header"),
        }
    }
}

impl std::error::Error for TraceError {}

impl Trace {
    pub fn parse(r: impl BufRead) -> Result<Trace, TraceError> {
        let mut rows = r
            .lines()
            .enumerate()
            .filter(|(_, l)| !matches!(l, Ok(l) if l.trim().is_empty()));
        let json = |(n, l): (usize, io::Result<String>)| -> Result<(usize, String), TraceError> {
            Ok((n + 1, l.map_err(TraceError::Io)?))
        };
        let (n, first) = json(rows.next().ok_or(TraceError::Empty)?)?;
        let header =
            serde_json::from_str(&first).map_err(|err| TraceError::Json { line: n, err })?;
        let mut lines = Vec::new();
        for row in rows {
            let (n, l) = json(row)?;
            lines.push(
                serde_json::from_str::<Line>(&l)
                    .map_err(|err| TraceError::Json { line: n, err })?,
            );
        }
        if lines.first().map(|l| l.action.as_str()) != Some("Init") {
            return Err(TraceError::NoInit);
        }
        Ok(Trace { header, lines })
    }
}

/// Writes a trace as the run goes.
pub struct TraceWriter {
    out: Box<dyn Write + Send>,
}

impl TraceWriter {
    pub fn new(out: Box<dyn Write + Send>, header: &Header) -> io::Result<Self> {
        let mut w = TraceWriter { out };
        w.put(header)?;
        Ok(w)
    }

    pub fn line(&mut self, step: u64, action: &str, state: &State) -> io::Result<()> {
        let line = Line {
            step,
            action: action.to_string(),
            state: state.clone(),
        };
        self.put(&line)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn put(&mut self, v: &impl Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, v)?;
        self.out.write_all(b"\n")
    }
}

impl fmt::Debug for TraceWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TraceWriter")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer tests can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().write(b)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_have_the_documented_shape_and_read_back() {
        let header = Header {
            ring: "fill".into(),
            size: 2,
            start: 7,
            max_batch: 2,
            seed: 9,
            prod_side: "user".into(),
            cons_side: "kernel".into(),
            invalid_descs: false,
            mutants: vec![],
        };
        let state = State {
            prod: 7,
            cons: 7,
            p_prod: 7,
            p_cons: 9,
            p_wr: 7,
            c_prod: 7,
            c_cons: 7,
            c_rd: 7,
            c_end: 7,
            slot: vec![None, Some(7)],
            slot_ok: vec![true, true],
        };
        let buf = Shared::default();
        let mut w = TraceWriter::new(Box::new(buf.clone()), &header).unwrap();
        w.line(0, "Init", &state).unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let second = text.lines().nth(1).unwrap();
        assert!(second.starts_with(r#"{"step":0,"action":"Init","prod":7,"cons":7,"pProd":7,"pCons":9,"pWr":7,"cProd":7,"cCons":7,"cRd":7,"cEnd":7,"slot":[null,7]"#), "{second}");
        let t = Trace::parse(text.as_bytes()).unwrap();
        assert_eq!(t.header, header);
        assert_eq!(t.lines[0].state, state);
    }

    #[test]
    fn bad_traces_are_errors() {
        assert!(matches!(Trace::parse(&b""[..]), Err(TraceError::Empty)));
        assert!(matches!(
            Trace::parse(&b"{}\n"[..]),
            Err(TraceError::Json { line: 1, .. })
        ));
    }
}
