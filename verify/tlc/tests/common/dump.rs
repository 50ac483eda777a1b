//! TLC's -dump file read as states, each a map from variable to its value
//! as TLC prints it, for tests that hold a model's reachable states to
//! TLC's one for one.

use std::collections::BTreeMap;

/// A state as variable -> value, whitespace removed (TLC breaks long
/// values over lines; no string value of the specs has a space inside).
pub type Printed = BTreeMap<String, String>;

pub fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The states of a TLC -dump file.
pub fn dump_states(text: &str) -> Vec<Printed> {
    let mut out = Vec::new();
    let mut cur: Option<Printed> = None;
    let mut var: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("State ") && line.ends_with(':') {
            out.extend(cur.take());
            cur = Some(Printed::new());
            var = None;
        } else if let Some(rest) = line.strip_prefix("/\\ ") {
            let (name, value) = rest.split_once(" = ").expect("`/\\ var = value`");
            cur.as_mut().expect("a state").insert(name.to_string(), squash(value));
            var = Some(name.to_string());
        } else if let (Some(c), Some(v)) = (cur.as_mut(), var.as_ref()) {
            c.get_mut(v).unwrap().push_str(&squash(line));
        }
    }
    out.extend(cur);
    out
}
