//! A counterexample as a table: one row per step, the action that led to
//! it, the ring's counters, and every other variable that changed.

use std::fmt::Write;

use crate::{LoopEnd, TraceState};

/// The xsk ring's counters, shown as columns when the trace has them.
const RING_COLUMNS: &[&str] = &["prod", "cons", "pProd", "pCons", "pWr", "cProd", "cCons", "cRd", "cEnd"];

/// `never` is the entry value of a slot never stored into (the spec's
/// `Never`, 2^IdxBits), shown as `-`.
pub fn render(trace: &[TraceState], loop_end: Option<&LoopEnd>, never: Option<u64>) -> String {
    let mut out = String::new();
    let ring = trace.first().is_some_and(|s| value(s, "slot").is_some() && value(s, "own").is_some());
    let has = |v: &str| trace.first().is_some_and(|s| s.vars.iter().any(|(n, _)| n == v));
    let cols: Vec<&str> = RING_COLUMNS.iter().copied().filter(|c| has(c)).collect();
    let _ = write!(out, "{:>3}  {:<18}", "#", "action");
    for c in &cols {
        let _ = write!(out, " {c:>5}");
    }
    if ring {
        let _ = write!(out, "  {:<14}", "slots");
    }
    let _ = writeln!(out, "  changed");
    let mut prev: Option<&TraceState> = None;
    for s in trace {
        let _ = write!(out, "{:>3}  {:<18}", s.num, short_action(&s.action));
        for c in &cols {
            let v = value(s, c).unwrap_or("?");
            let changed = prev.and_then(|p| value(p, c)).is_some_and(|pv| pv != v);
            let cell = if changed { format!("{v}*") } else { v.to_string() };
            let _ = write!(out, " {cell:>5}");
        }
        if ring {
            let _ = write!(out, "  {:<14}", slots(s, never));
        }
        let mut changed = Vec::new();
        for (name, v) in &s.vars {
            if cols.contains(&name.as_str()) || (ring && (name == "slot" || name == "own")) {
                continue;
            }
            match prev.and_then(|p| value(p, name)) {
                Some(pv) if pv == v => {}
                _ if prev.is_none() => {}
                _ => changed.push(format!("{name} = {}", compact(v))),
            }
        }
        let _ = writeln!(out, "  {}", changed.join("; "));
        prev = Some(s);
    }
    match loop_end {
        Some(LoopEnd::Stuttering) => {
            let _ = writeln!(out, "  ... then stutters forever (no step the fairness assumption forces)");
        }
        Some(LoopEnd::BackTo(n)) => {
            let _ = writeln!(out, "  ... then loops back to state {n}");
        }
        None => {}
    }
    if prev.is_some() {
        let _ = writeln!(out, "  (* = changed by that step)");
    }
    if ring {
        let _ = writeln!(
            out,
            "  slots: position stored in each slot, then its owner: f free, w written, p published, r read, X clobbered; - never stored"
        );
    }
    out
}

/// The xsk ring's slots as `[pos+owner ...]`, e.g. `[5p 2r]`.
fn slots(s: &TraceState, never: Option<u64>) -> String {
    let (Some(slot), Some(own)) = (value(s, "slot"), value(s, "own")) else {
        return String::new();
    };
    let entries = fun_values(slot);
    let owners = fun_values(own);
    let cells: Vec<String> = entries
        .iter()
        .zip(owners.iter())
        .map(|(e, o)| {
            let o = o.trim_matches('"');
            let letter = match o {
                "free" => "f",
                "written" => "w",
                "published" => "p",
                "read" => "r",
                "clobbered" => "X",
                _ => "?",
            };
            let idx = e
                .split("idx |-> ")
                .nth(1)
                .and_then(|r| r.split([',', ']']).next())
                .unwrap_or("?");
            let invalid = e.contains("ok |-> FALSE");
            let shown = if idx.parse::<u64>().ok() == never { "-".to_string() } else { idx.to_string() };
            format!("{shown}{letter}{}", if invalid { "!" } else { "" })
        })
        .collect();
    format!("[{}]", cells.join(" "))
}

/// The values of a TLC function `(0 :> a @@ 1 :> b)`, in order.
fn fun_values(v: &str) -> Vec<String> {
    let inner = v.trim().trim_start_matches('(').trim_end_matches(')');
    inner
        .split(" @@ ")
        .map(|kv| kv.split_once(" :> ").map(|(_, x)| x.trim().to_string()).unwrap_or_default())
        .collect()
}

fn value<'a>(s: &'a TraceState, name: &str) -> Option<&'a str> {
    s.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

fn short_action(a: &str) -> &str {
    if a == "Initial predicate" {
        "Init"
    } else {
        a
    }
}

/// TLC's function syntax, shortened: `(0 :> x @@ 1 :> y)` -> `[0: x, 1: y]`.
fn compact(v: &str) -> String {
    let s = v.replace(" @@ ", ", ").replace(" :> ", ": ").replace(" |-> ", "=");
    if s.starts_with('(') && s.ends_with(')') {
        format!("[{}]", &s[1..s.len() - 1])
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(num: usize, action: &str, vars: &[(&str, &str)]) -> TraceState {
        TraceState {
            num,
            action: action.into(),
            vars: vars.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
        }
    }

    #[test]
    fn marks_changes_and_lists_other_variables() {
        let t = vec![
            st(1, "Initial predicate", &[("prod", "0"), ("cons", "0"), ("own", "(0 :> \"free\")")]),
            st(2, "ProdSubmit", &[("prod", "1"), ("cons", "0"), ("own", "(0 :> \"published\")")]),
        ];
        let s = render(&t, Some(&LoopEnd::Stuttering), None);
        assert!(s.contains("ProdSubmit"), "{s}");
        assert!(s.contains("1*"), "{s}");
        assert!(s.contains("own = [0: \"published\"]"), "{s}");
        assert!(s.contains("stutters forever"), "{s}");
    }
}
