//! A counterexample as a table: one row per step, the action that led to
//! it, the rings' indices (XskRing's counters, or those indices.rs derives
//! for the other protocols) and counters, and every other variable that
//! changed. Projected on one actor, only that actor's steps are rows; the
//! steps of the others between two rows are one line naming them.

use std::fmt::Write;

use crate::indices;
use crate::{LoopEnd, TraceState};

/// The steps of one actor (`ringlab check --actor`): its name and its
/// actions, as the manifest's `specs.<spec>.actors` lists them.
pub struct Actor<'a> {
    pub name: &'a str,
    pub actions: &'a [String],
}

/// `never` is the entry value of a slot never stored into (the spec's
/// `Never`, 2^IdxBits), shown as `-`.
pub fn render(trace: &[TraceState], loop_end: Option<&LoopEnd>, never: Option<u64>) -> String {
    render_for(trace, loop_end, never, None)
}

/// The table, with only `actor`'s steps as rows when one is given.
pub fn render_for(trace: &[TraceState], loop_end: Option<&LoopEnd>, never: Option<u64>, actor: Option<&Actor>) -> String {
    let mut out = String::new();
    let dump = indices::from_trace(trace);
    let ring = trace.first().is_some_and(|s| value(s, "slot").is_some() && value(s, "own").is_some());
    let cols: Vec<String> = dump.as_ref().map_or_else(Vec::new, |d| d.columns.clone());
    let _ = write!(out, "{:>3}  {:<18}", "#", "action");
    let widths: Vec<usize> = dump.as_ref().map_or_else(Vec::new, |d| d.columns.iter().map(|c| c.len().max(5)).collect());
    for (c, w) in dump.iter().flat_map(|d| d.columns.iter()).zip(&widths) {
        let _ = write!(out, " {c:>w$}");
    }
    if ring {
        let _ = write!(out, "  {:<14}", "slots");
    }
    let _ = writeln!(out, "  changed");
    let mut prev: Option<&TraceState> = None;
    let mut elided: Vec<&str> = Vec::new();
    for (i, s) in trace.iter().enumerate() {
        let shown = i == 0 || actor.map_or(true, |a| a.actions.iter().any(|x| *x == s.action));
        if !shown {
            elided.push(short_action(&s.action));
            prev = Some(s);
            continue;
        }
        if !elided.is_empty() {
            let _ = writeln!(out, "       ... {} by others: {}", steps(elided.len()), elided.join(", "));
            elided.clear();
        }
        let _ = write!(out, "{:>3}  {:<18}", s.num, short_action(&s.action));
        if let Some(d) = &dump {
            for (k, w) in widths.iter().enumerate() {
                let v = &d.rows[i][k];
                let changed = i > 0 && d.rows[i - 1][k] != *v;
                let cell = if changed { format!("{v}*") } else { v.clone() };
                let _ = write!(out, " {cell:>w$}");
            }
        }
        if ring {
            let _ = write!(out, "  {:<14}", slots(s, never));
        }
        let mut changed = Vec::new();
        for (name, v) in &s.vars {
            if cols.contains(name) || (ring && (name == "slot" || name == "own")) {
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
    if !elided.is_empty() {
        let _ = writeln!(out, "       ... {} by others: {}", steps(elided.len()), elided.join(", "));
    }
    if let Some(a) = actor {
        let _ = writeln!(out, "  (only the steps of {}; each row shows what its own step changed)", a.name);
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
    if dump.as_ref().is_some_and(|d| d.columns.iter().any(|c| c.ends_with(".prod"))) {
        let _ = writeln!(
            out,
            "  ring.prod/.cons: entries ever produced into / consumed from the ring; .cprod: produced and reserved (cached_prod); .ccons: taken, not yet released (cached_cons); ? = the step is not a move at the ring's ends"
        );
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

fn steps(n: usize) -> String {
    if n == 1 {
        "1 step".to_string()
    } else {
        format!("{n} steps")
    }
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

    #[test]
    fn an_actor_projection_keeps_its_steps_and_names_the_others() {
        fn v<'a>(tx: &'a str, cq: &'a str) -> Vec<(&'a str, &'a str)> {
            vec![("free", "{}"), ("tx", tx), ("cq", cq), ("resv", "<<>>"), ("flight", "{}"), ("part", "(s1 :> <<>>)")]
        }
        let t = vec![
            st(1, "Initial predicate", &v("(s1 :> <<>>)", "<<>>")),
            st(2, "UserSubmit", &v("(s1 :> <<f1>>)", "<<>>")),
            st(3, "Sendto", &v("(s1 :> <<f1>>)", "<<>>")),
            st(4, "XmitSend", &v("(s1 :> <<>>)", "<<f1>>")),
            st(5, "UserReap", &v("(s1 :> <<>>)", "<<>>")),
        ];
        let all = render(&t, None, None);
        assert!(all.contains("tx.s1.prod") && all.contains("cq.cprod"), "{all}");
        let user = ["UserSubmit".to_string(), "UserReap".to_string()];
        let s = render_for(&t, None, None, Some(&Actor { name: "user", actions: &user }));
        assert!(s.contains("... 2 steps by others: Sendto, XmitSend"), "{s}");
        assert!(!s.lines().any(|l| l.trim_start().starts_with("4 ")), "{s}");
        // the reap's row: cq consumed by one, its own change only
        let reap = s.lines().find(|l| l.contains("UserReap")).unwrap();
        assert!(reap.contains("1*") && reap.contains("cq = <<>>"), "{s}");
        assert!(s.contains("only the steps of user"), "{s}");
    }
}
