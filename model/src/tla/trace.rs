//! Behaviours as TLC writes them to a file: `-simulate file=` dumps (a
//! module of `STATE_n == /\ ...` definitions). TLC's own output, error
//! traces included, is read in one place only: ringlab-tlc's parser.

use super::lexer::Tok;
use super::parser::Parser;
use super::{ParseError, Vars};

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
}
