//! TLA+ values, states and behaviours in the syntax TLC prints them.

use std::collections::BTreeMap;

mod lexer;
mod parser;
mod trace;
mod value;

pub use parser::{parse_state, parse_value};
pub use trace::parse_trace_module;
pub use value::Value;

/// A state: each variable's value.
pub type Vars = BTreeMap<String, Value>;

/// A syntax error at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {msg}")]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

/// Print a state as TLC does, one `/\ var = value` line per variable.
pub fn format_state(vars: &Vars) -> String {
    vars.iter()
        .map(|(k, v)| format!("/\\ {k} = {v}\n"))
        .collect()
}

/// A state as one record of its variables, `[var |-> value, ...]` (a line
/// of a trace log), each given as (name, printed value).
pub fn record(fields: &[(&str, String)]) -> String {
    let v: Vec<String> = fields.iter().map(|(k, v)| format!("{k} |-> {v}")).collect();
    format!("[{}]", v.join(", "))
}

/// A state as TLC prints it, one `/\ var = value` line per variable, each
/// given as (name, printed value) in the spec's order.
pub fn conjunction(fields: &[(&str, String)]) -> String {
    fields.iter().map(|(k, v)| format!("/\\ {k} = {v}\n")).collect()
}

/// The variables whose printed values differ between two states, each
/// given as (name, printed value) in the same order.
pub fn differing(a: &[(&'static str, String)], b: &[(&'static str, String)]) -> Vec<&'static str> {
    a.iter()
        .zip(b)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, _)| x.0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_state_parses_back() {
        let vars = parse_state("/\\ b = <<1>>\n/\\ a = [x |-> \"y\"]").unwrap();
        let text = format_state(&vars);
        assert_eq!(text, "/\\ a = [x |-> \"y\"]\n/\\ b = <<1>>\n");
        assert_eq!(parse_state(&text).unwrap(), vars);
    }
}
