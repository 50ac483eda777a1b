//! traces/<title>.html: a counterexample step by step, each state a ring
//! diagram with the action that led to it and what it changed. No script.
//! This builds the page's context; templates/trace.html is its HTML.

use serde::Serialize;
use serde_json::Value;

use super::figure::{ending, loop_text};
use super::markup::url_encode;
use super::page::{legend, Legend, Stamp};
use super::svg::ring_svg;
use super::templates::render;
use super::view::{views, StateView};
use ringlab_tlc::indices;
use ringlab_tlc::lanes::{self, Lane};
use super::words::{invariant_text, var_doc};
use ringlab_tlc::explorer::RingTrace;

/// The explorer's address of state `num` of `title`, from `up`.
pub fn explorer_link(up: &str, title: &str, num: u64) -> String {
    format!("{up}explorer.html#trace={}&step={num}", url_encode(title))
}

/// The page's context (templates/trace.html).
#[derive(Serialize)]
struct TracePage<'a> {
    up: &'static str,
    stamp: String,
    t: Head<'a>,
    bad: bool,
    ending: String,
    meta: String,
    /// The explorer at the first state, when the trace is in traces.js.
    explorer: Option<String>,
    ring: bool,
    /// No ring, but the protocol's lanes (lanes.rs): where every item is.
    lanes: bool,
    /// What broke, step by step: each step's action and what it moved.
    story: Vec<String>,
    /// The ring indices and counters shown per step (indices.rs).
    index_cols: Vec<String>,
    /// The indices are derived from sequences (not XskRing's variables).
    derived: bool,
    /// Some step has an actor (the manifest's specs.<spec>.actors).
    actors: bool,
    legend: Legend,
    steps: Vec<StepPage<'a>>,
    invariant: Option<Invariant<'a>>,
    loop_text: Option<String>,
}

#[derive(Serialize)]
struct Head<'a> {
    title: &'a str,
    outcome: Option<&'a str>,
    expected: Option<&'a str>,
}

#[derive(Serialize)]
struct StepPage<'a> {
    num: u64,
    action: &'a str,
    actor: Option<&'a str>,
    /// This step's row of the index dump, each cell marked if it moved.
    indices: Vec<Cell>,
    /// What the step changed, variable by variable.
    changes: Vec<Change<'a>>,
    /// The ring diagram (SVG), or the lanes of a protocol without a ring.
    svg: String,
    /// What moved in this step, item by item (lanes only).
    moves: Vec<String>,
    explorer: Option<String>,
    vars: Vec<Var<'a>>,
}

#[derive(Serialize)]
struct Cell {
    v: String,
    changed: bool,
}

#[derive(Serialize)]
struct Change<'a> {
    name: &'a str,
    was: String,
    now: String,
}

#[derive(Serialize)]
struct Var<'a> {
    name: &'a str,
    doc: &'static str,
    value: String,
    changed: bool,
}

#[derive(Serialize)]
struct Invariant<'a> {
    name: &'a str,
    doc: String,
}

/// `explorer`: the trace is in traces.js, so the explorer can open it.
pub fn trace_page(t: &RingTrace, explorer: bool, stamp: &Stamp) -> Result<String, String> {
    let v = views(t);
    let never = t.ring.as_ref().map(|r| r.never);
    let lanes: Option<Vec<Vec<Lane>>> = if t.ring.is_some() { None } else { v.iter().map(|st| lanes::lanes(&st.step.vars)).collect() };
    let moves = |i: usize| -> Vec<String> {
        match (&lanes, i.checked_sub(1)) {
            (Some(l), Some(p)) => lanes::moves(&l[p], &l[i]),
            _ => vec![],
        }
    };
    let link = |num: u64| explorer.then(|| explorer_link("../", &t.title, num));
    let dump = indices::dump(&v.iter().map(|st| (st.step.action.as_str(), st.step.vars.clone())).collect::<Vec<_>>());
    let cells = |i: usize| -> Vec<Cell> {
        dump.as_ref().map_or_else(Vec::new, |d| {
            d.rows[i]
                .iter()
                .enumerate()
                .map(|(k, c)| Cell { v: c.clone(), changed: i > 0 && d.rows[i - 1][k] != *c })
                .collect()
        })
    };
    let steps = v
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let prev = i.checked_sub(1).map(|p| &v[p]);
            let shown = |s: Option<&StateView>, k: &str| s.and_then(|s| s.step.vars.get(k)).map(|x| show(k, x, never)).unwrap_or_default();
            StepPage {
                num: st.step.num,
                action: &st.step.action,
                actor: st.step.actor.as_deref(),
                indices: cells(i),
                changes: st.changed.iter().map(|k| Change { name: k, was: shown(prev, k), now: shown(Some(st), k) }).collect(),
                svg: match &lanes {
                    _ if t.ring.is_some() => ring_svg(t, &v, i),
                    Some(l) => lanes::svg(&l[i], i.checked_sub(1).map(|p| l[p].as_slice()), st.step.num),
                    None => String::new(),
                },
                moves: moves(i),
                explorer: link(st.step.num),
                vars: st
                    .step
                    .vars
                    .iter()
                    .map(|(k, x)| Var { name: k, doc: var_doc(k), value: show(k, x, never), changed: st.changed.contains(k) })
                    .collect(),
            }
        })
        .collect();
    let outcome = t.outcome.as_deref();
    let inv = outcome.and_then(|o| o.split_once(':')).map(|(_, n)| n).unwrap_or("");
    let inv_text = invariant_text(inv);
    let story: Vec<String> = match &lanes {
        Some(_) => v
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, st)| {
                let m = moves(i);
                let said = if m.is_empty() { format!("nothing moved; it changed {}", st.changed.iter().cloned().collect::<Vec<_>>().join(", ")) } else { m.join("; ") };
                format!("{}. {}: {said}", st.step.num, st.step.action)
            })
            .collect(),
        None => vec![],
    };
    let page = TracePage {
        up: "../",
        stamp: stamp.line(),
        t: Head { title: &t.title, outcome, expected: t.expected.as_deref() },
        bad: outcome.is_some_and(|o| o != "pass"),
        ending: ending(t),
        meta: meta(t),
        explorer: link(t.states.first().map_or(1, |s| s.num)),
        ring: t.ring.is_some(),
        lanes: lanes.is_some(),
        story,
        derived: dump.as_ref().is_some_and(|d| d.columns.iter().any(|c| c.ends_with(".prod"))),
        index_cols: dump.map(|d| d.columns).unwrap_or_default(),
        actors: t.states.iter().any(|s| s.actor.is_some()),
        legend: legend(),
        steps,
        invariant: (!inv_text.is_empty()).then(|| Invariant { name: inv, doc: inv_text.clone() }),
        loop_text: loop_text(t),
    };
    render("trace.html", &page)
}

fn meta(t: &RingTrace) -> String {
    let mut m = vec![t.kind.clone()];
    if !t.source.is_empty() {
        m.push(t.source.clone());
    }
    m.push(format!("{} states", t.states.len()));
    if let Some(r) = &t.ring {
        m.push(format!("producer {} → consumer {}, {} slots, counters mod {}", r.prod_side, r.cons_side, r.size, r.never));
    }
    if let (Some(e), Some(o)) = (&t.expected, &t.outcome) {
        m.push(if e == o { format!("expected {e} ✓") } else { format!("expected {e} — differs") });
    }
    m.join(" · ")
}

/// A variable's value in short: slots as positions (`–` never, `!`
/// invalid), records as `k=v`, the rest as JSON.
pub fn show(name: &str, v: &Value, never: Option<u64>) -> String {
    match v {
        Value::Bool(true) => "TRUE".into(),
        Value::Bool(false) => "FALSE".into(),
        Value::String(s) => s.clone(),
        Value::Array(a) if name == "slot" => {
            let cells: Vec<String> = a
                .iter()
                .map(|e| {
                    let idx = e.get("idx").and_then(Value::as_u64);
                    let p = match idx {
                        Some(p) if Some(p) != never => p.to_string(),
                        _ => "–".into(),
                    };
                    let bad = if e.get("ok") == Some(&Value::Bool(false)) { "!" } else { "" };
                    format!("{p}{bad}")
                })
                .collect();
            format!("[{}]", cells.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(|x| show("", x, never)).collect::<Vec<_>>().join(", ")),
        Value::Object(r) => format!("[{}]", r.iter().map(|(k, x)| format!("{k}={}", show("", x, never))).collect::<Vec<_>>().join(", ")),
        x => x.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_in_short() {
        assert_eq!(show("slot", &json!([{"idx": 8, "ok": true}, {"idx": 3, "ok": false}]), Some(8)), "[–, 3!]");
        assert_eq!(show("own", &json!(["free", "read"]), Some(8)), "[free, read]");
        assert_eq!(show("last", &json!({"pos": 1, "pub": false}), Some(8)), "[pos=1, pub=FALSE]");
        assert_eq!(explorer_link("../", "a b", 3), "../explorer.html#trace=a%20b&step=3");
    }
}
