//! Behaviours as TLC writes them: `-simulate file=` dumps (a module of
//! `STATE_n == /\ ...` definitions) and the error traces of its output,
//! with or without `-tool`.

use super::lexer::Tok;
use super::parser::Parser;
use super::{ParseError, Vars};

/// One state of an error trace in TLC's output.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStep {
    /// TLC's number of the state in the trace (from 1).
    pub number: usize,
    /// What TLC says produced it, e.g. `<ProdReserve line 119, ...>` or
    /// `<Initial predicate>`, `Stuttering`, `Back to state: 3`.
    pub label: String,
    /// None for a label that carries no state (stuttering, back-loop).
    pub vars: Option<Vars>,
}

/// Parse a `-simulate file=` dump: `---- MODULE name ----`, then
/// `STATE_1 == /\ ...`, `STATE_2 == ...`, and a closing `====`.
pub fn parse_trace_module(text: &str) -> Result<Vec<Vars>, ParseError> {
    let skipped = text.lines().take_while(|l| l.trim().is_empty()).count();
    let header = text.lines().nth(skipped).unwrap_or("");
    if !(header.trim_start().starts_with("----") && header.contains("MODULE")) {
        return Err(ParseError {
            line: skipped + 1,
            col: 1,
            msg: "expected `---- MODULE name ----`".into(),
        });
    }
    let body_start: usize = text
        .split_inclusive('\n')
        .take(skipped + 1)
        .map(str::len)
        .sum();
    let mut p = Parser::new(&text[body_start..], skipped + 2)?;
    let mut states = Vec::new();
    loop {
        if *p.peek() == Tok::ModuleEnd {
            break;
        }
        let want = format!("STATE_{}", states.len() + 1);
        match p.peek() {
            Tok::Ident(name) if *name == want => {}
            _ => return Err(p.expected(&format!("`{want} ==` or `====`"))),
        }
        p.ident("a definition")?;
        p.expect(Tok::DefEq)?;
        states.push(p.state()?);
    }
    p.expect(Tok::ModuleEnd)?;
    p.end()?;
    Ok(states)
}

/// The header of a trace state: `3: <label>` (-tool) or `State 3: <label>`.
fn header(line: &str) -> Option<(usize, String)> {
    let rest = line.strip_prefix("State ").unwrap_or(line);
    let (num, label) = rest.split_once(": ")?;
    let number = num.parse().ok()?;
    Some((number, label.trim().to_string()))
}

/// A line that opens a state: `/\ x = ...`, or `x = ...` for one variable.
fn starts_state(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("/\\")
        || l.split_once(" = ").is_some_and(|(v, _)| {
            !v.is_empty() && v.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// A later line of the same state: a conjunct or an indented continuation.
fn continues_state(line: &str) -> bool {
    line.trim_start().starts_with("/\\")
        || (line.starts_with([' ', '\t']) && !line.trim().is_empty())
}

/// The error trace in TLC's output (plain or `-tool`), in order.
pub fn parse_tlc_trace(output: &str) -> Result<Vec<TraceStep>, ParseError> {
    let lines: Vec<&str> = output.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((number, label)) = header(lines[i]) else {
            i += 1;
            continue;
        };
        let body_first = i + 1;
        let mut end = body_first;
        if lines.get(end).is_some_and(|l| starts_state(l)) {
            end += 1;
            while end < lines.len() && continues_state(lines[end]) {
                end += 1;
            }
        }
        let vars = if end > body_first {
            let text = lines[body_first..end].join("\n");
            let mut p = Parser::new(&text, body_first + 1)?;
            let vars = p.state()?;
            p.end()?;
            Some(vars)
        } else {
            None
        };
        steps.push(TraceStep {
            number,
            label,
            vars,
        });
        i = end;
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tla::Value;

    const DUMP: &str = "---------------- MODULE /tmp/d/trace_0_0 -----------------\n\
STATE_1 == \n/\\ prod = 4\n/\\ own = (0 :> \"free\")\n\n\n\
STATE_2 == \n/\\ prod = 5\n/\\ own = (0 :> \"written\")\n\n\n\
=================================================\n";

    #[test]
    fn simulate_dump() {
        let states = parse_trace_module(DUMP).unwrap();
        assert_eq!(states.len(), 2);
        assert_eq!(states[1]["prod"], Value::Int(5));
    }

    #[test]
    fn dump_errors_name_the_line() {
        let bad = DUMP.replace("prod = 5", "prod = ");
        let e = parse_trace_module(&bad).unwrap_err();
        assert_eq!((e.line, e.col), (9, 1));
        assert_eq!(e.msg, "expected a value, found `/\\`");
        let e = parse_trace_module(&DUMP.replace("STATE_2", "STATE_3")).unwrap_err();
        assert!(e.msg.contains("STATE_2"), "{e}");
        assert!(parse_trace_module(&DUMP.replace(&"=".repeat(49), "")).is_err());
        assert!(parse_trace_module("x == 1").is_err());
    }

    #[test]
    fn tool_and_plain_traces() {
        let tool = "@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ x = 0\n/\\ y = \"a\"\n\n\
@!@!@ENDMSG 2217 @!@!@\n@!@!@STARTMSG 2217:4 @!@!@\n2: <Next line 3, col 1 to line 4, col 2 of module M>\n\
/\\ x = 1\n/\\ y = \"a\"\n\n@!@!@ENDMSG 2217 @!@!@\n@!@!@STARTMSG 2218:4 @!@!@\n3: Stuttering\n\
@!@!@ENDMSG 2218 @!@!@\n";
        let steps = parse_tlc_trace(tool).unwrap();
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[1].vars.as_ref().unwrap()["x"], Value::Int(1));
        assert!(steps[1].label.starts_with("<Next"));
        assert_eq!((steps[2].number, steps[2].vars.is_none()), (3, true));
        let plain = "Error: bad\nState 1: <Initial predicate>\n/\\ x = 0\n\nState 2: <A>\n/\\ x = [a |-> 1,\n  b |-> 2]\n\n";
        let steps = parse_tlc_trace(plain).unwrap();
        assert_eq!(
            steps[1].vars.as_ref().unwrap()["x"]
                .as_record()
                .unwrap()
                .len(),
            2
        );
        let stutter = "State 1: <I>\n/\\ x = 0\nState 2: Stuttering\nFinished checking in 00s at 2026-01-01 00:00:00\n";
        let steps = parse_tlc_trace(stutter).unwrap();
        assert_eq!((steps.len(), steps[1].vars.is_none()), (2, true));
        let e = parse_tlc_trace("State 1: <I>\n/\\ x = [a |-> ]\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 15));
    }
}
