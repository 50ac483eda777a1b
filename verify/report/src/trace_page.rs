//! traces/<title>.html: a counterexample step by step, each state a ring
//! diagram with the action that led to it and what it changed. No script.

use std::fmt::Write;

use serde_json::Value;

use super::figure::{ending, loop_text};
use super::markup::{esc, url_encode};
use super::page::{legend_html, page, Stamp};
use super::svg::ring_svg;
use super::view::{views, StateView};
use super::words::{invariant_doc, var_doc};
use ringlab_tlc::explorer::RingTrace;

/// The explorer's address of state `num` of `title`, from `up`.
pub fn explorer_link(up: &str, title: &str, num: u64) -> String {
    format!("{up}explorer.html#trace={}&step={num}", url_encode(title))
}

/// `explorer`: the trace is in traces.js, so the explorer can open it.
pub fn trace_page(t: &RingTrace, explorer: bool, stamp: &Stamp) -> String {
    let v = views(t);
    let bad = t.outcome.as_deref().is_some_and(|o| o != "pass");
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<h1>{} <span class=\"badge {}\">{}</span></h1>\n<p class=\"meta\">{}</p>",
        esc(&t.title),
        if bad { "bad" } else { "good" },
        esc(&ending(t)),
        esc(&meta(t))
    );
    if explorer {
        let first = t.states.first().map_or(1, |s| s.num);
        let _ = writeln!(b, "<p><a href=\"{}\">open in the explorer</a> (steps through it, with the invariants on each state)</p>", esc(&explorer_link("../", &t.title, first)));
    }
    timeline(&mut b, t, &v);
    if t.ring.is_some() {
        b.push_str(&legend_html());
    } else {
        b.push_str("<p class=\"note\">This trace has no ring (its cfg is not an xsk ring's): its states are listed as variables.</p>\n");
    }
    b.push_str("<div class=\"steps\">\n");
    for (i, st) in v.iter().enumerate() {
        step(&mut b, t, &v, i, st, explorer);
    }
    b.push_str("</div>\n");
    outcome(&mut b, t);
    page(&format!("{} · ringlab report", t.title), "../", "<nav><a href=\"../index.html\">← report</a></nav>", &b, stamp)
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

fn timeline(b: &mut String, t: &RingTrace, v: &[StateView]) {
    b.push_str("<details class=\"timeline\"><summary>the steps at a glance</summary><table class=\"grid\"><thead><tr><th>#</th><th>action</th><th>changed</th></tr></thead><tbody>\n");
    for st in v {
        let _ = writeln!(
            b,
            "<tr><td class=\"num\"><a href=\"#step-{n}\">{n}</a></td><td class=\"act\">{}</td><td class=\"muted\">{}</td></tr>",
            esc(&st.step.action),
            esc(&st.changed.iter().cloned().collect::<Vec<_>>().join(", ")),
            n = st.step.num
        );
    }
    let _ = writeln!(b, "<tr><td></td><td colspan=\"2\" class=\"bad-text\">{}</td></tr></tbody></table></details>", esc(&ending(t)));
}

fn step(b: &mut String, t: &RingTrace, v: &[StateView], i: usize, st: &StateView, explorer: bool) {
    let last = i + 1 == v.len();
    let n = st.step.num;
    let _ = write!(b, "<section class=\"step{}\" id=\"step-{n}\">\n<h3>step {n} ", if last { " last" } else { "" });
    if i == 0 {
        b.push_str("<span class=\"muted\">initial state</span></h3>\n");
    } else {
        let _ = writeln!(b, "<span class=\"muted\">after</span> <code>{}</code></h3>", esc(&st.step.action));
    }
    let prev = i.checked_sub(1).map(|p| &v[p]);
    let never = t.ring.as_ref().map(|r| r.never);
    let changes: Vec<String> = st
        .changed
        .iter()
        .map(|k| {
            let was = prev.and_then(|p| p.step.vars.get(k)).map(|x| show(k, x, never)).unwrap_or_default();
            let now = st.step.vars.get(k).map(|x| show(k, x, never)).unwrap_or_default();
            format!("<code>{}</code> {} → {}", esc(k), esc(&was), esc(&now))
        })
        .collect();
    let _ = writeln!(
        b,
        "<p class=\"changed\">{}</p>",
        if i == 0 { "<span class=\"muted\">where the behaviour starts</span>".to_string() } else if changes.is_empty() { "nothing changed".into() } else { changes.join("; ") }
    );
    if t.ring.is_some() {
        b.push_str(&ring_svg(t, v, i));
        b.push('\n');
    }
    if last && t.outcome.is_some() {
        let _ = writeln!(b, "<p class=\"bad-text\">→ {}</p>", esc(&ending(t)));
    }
    if explorer {
        let _ = writeln!(b, "<p class=\"links\"><a href=\"{}\">open in the explorer</a></p>", esc(&explorer_link("../", &t.title, n)));
    }
    b.push_str("<details><summary>all variables</summary><table class=\"grid\"><tbody>\n");
    for (k, x) in &st.step.vars {
        let _ = writeln!(
            b,
            "<tr{}><th title=\"{}\">{}</th><td class=\"mono\">{}</td></tr>",
            if st.changed.contains(k) { " class=\"changed\"" } else { "" },
            esc(var_doc(k)),
            esc(k),
            esc(&show(k, x, never))
        );
    }
    b.push_str("</tbody></table></details>\n</section>\n");
}

fn outcome(b: &mut String, t: &RingTrace) {
    let Some(o) = &t.outcome else { return };
    let inv = o.split_once(':').map(|(_, n)| n).unwrap_or("");
    let _ = write!(b, "<section class=\"outcome {}\"><div class=\"main\">{}</div>", if o == "pass" { "good" } else { "bad" }, esc(o));
    if !invariant_doc(inv).is_empty() {
        let _ = write!(b, "<div>{}: {}</div>", esc(inv), esc(invariant_doc(inv)));
    }
    if let Some(l) = loop_text(t) {
        let _ = write!(b, "<div>{}</div>", esc(&l));
    }
    if let Some(e) = &t.expected {
        let _ = write!(b, "<div>expected {}{}</div>", esc(e), if e == o { " ✓" } else { " — differs" });
    }
    b.push_str("</section>\n");
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
