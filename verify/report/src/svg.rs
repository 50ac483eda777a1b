//! One state of a ring trace as an SVG diagram, drawn as the explorer
//! draws it (assets/README.md, "The diagram"). Fonts and colours are
//! attributes, so the SVG needs no stylesheet.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

use super::layout::{triangle, Layout, Side};
use super::markup::{esc, f2};
use super::view::{int, sub, StateView};
use super::words::{owner_doc, var_doc};
use ringlab_tlc::explorer::RingTrace;

pub const PROD_COLOUR: &str = "#b45309";
pub const CONS_COLOUR: &str = "#1d4ed8";
pub const PEEK_COLOUR: &str = "#059669";
pub const CHANGED_OUTLINE: &str = "#111827";
pub const HIGHLIGHT: &str = "#fef08a";
pub const MONO: &str = "ui-monospace, 'DejaVu Sans Mono', Menlo, monospace";
pub const SANS: &str = "system-ui, 'DejaVu Sans', sans-serif";

/// Slot fill per owner.
pub fn owner_colour(own: &str) -> &'static str {
    match own {
        "free" => "#e5e7eb",
        "written" => "#fde68a",
        "published" => "#93c5fd",
        "read" => "#bbf7d0",
        "clobbered" => "#ef4444",
        _ => "#ffffff",
    }
}

/// A marker: the variable, where, how drawn, and its offset in arrow widths.
pub struct Marker {
    pub key: &'static str,
    pub side: Side,
    pub solid: bool,
    pub dashed: bool,
    pub label: &'static str,
    pub short: &'static str,
    pub colour: &'static str,
    pub offset: f64,
}

macro_rules! marker {
    ($key:literal, $side:ident, $solid:literal, $dashed:literal, $label:literal, $short:literal, $colour:expr, $offset:literal) => {
        Marker { key: $key, side: Side::$side, solid: $solid, dashed: $dashed, label: $label, short: $short, colour: $colour, offset: $offset }
    };
}

/// In the legend's order: the order labels stack in.
pub const MARKERS: [Marker; 9] = [
    marker!("prod", Out, true, false, "prod", "P", PROD_COLOUR, 0.0),
    marker!("pProd", Out, false, false, "pProd", "pP", PROD_COLOUR, -1.0),
    marker!("pWr", Out, false, false, "pWr", "pW", PROD_COLOUR, 1.0),
    marker!("pCons", Out, false, false, "pCons", "pC", CONS_COLOUR, 2.0),
    marker!("cons", In, true, false, "cons", "C", CONS_COLOUR, 0.0),
    marker!("cProd", In, false, false, "cProd", "cP", PROD_COLOUR, -1.0),
    marker!("cCons", In, false, false, "cCons", "cC", CONS_COLOUR, 1.0),
    marker!("last", In, false, true, "last load", "L", "#047857", 2.0),
    marker!("cSpec", In, false, true, "cSpec (early load)", "cS", "#7c3aed", -2.0),
];

/// A slot's position label: `–` never stored, decimal below 65536, else
/// `…` and the low 16 bits in hex.
pub fn short_pos(p: u64) -> String {
    if p >= 65536 {
        format!("…{:04x}", p % 65536)
    } else {
        p.to_string()
    }
}

/// The value a marker shows, and its slot; None if the state has none.
fn marker_value(v: &serde_json::Map<String, Value>, key: &str) -> Option<u64> {
    match key {
        "last" | "cSpec" => {
            let r = v.get(key)?;
            if r.get("some").and_then(Value::as_bool) == Some(true) {
                r.get("pos").and_then(Value::as_u64)
            } else {
                None
            }
        }
        _ => v.get(key).and_then(Value::as_u64),
    }
}

fn marker_tip(t: &RingTrace, m: &Marker, v: &serde_json::Map<String, Value>, value: u64) -> String {
    let ring = t.ring.as_ref().expect("a ring");
    let rec = |k: &str| v.get(m.key).and_then(|r| r.get(k)).cloned().unwrap_or(Value::Null);
    let val_text = |val: &Value| {
        if val.as_u64() == Some(ring.never) {
            "never stored".to_string()
        } else {
            val.to_string()
        }
    };
    match m.key {
        "cSpec" => format!("cSpec: position {value} loaded before ->producer (val {})", val_text(&rec("val"))),
        "last" => {
            let got = if rec("val").as_u64() == Some(ring.never) {
                "a slot never stored into".to_string()
            } else {
                format!("the entry for position {}", rec("val"))
            };
            let unpublished = if rec("pub") == Value::Bool(false) { ", not published when loaded" } else { "" };
            format!("last load: position {value}, got {got}{unpublished}")
        }
        "pCons" if ring.prod_side == "user" => format!(
            "pCons = {value}: the producer's cached consumer, kept plus the size; it caches cons = {}",
            sub(value, ring.size, t.modulus())
        ),
        k => format!("{k} = {value}: {}", var_doc(k)),
    }
}

fn marker_label(t: &RingTrace, m: &Marker, lay: &Layout) -> &'static str {
    let user_prod = t.ring.as_ref().is_some_and(|r| r.prod_side == "user");
    match (m.key, user_prod, lay.compact()) {
        ("pCons", true, true) => "pC",
        ("pCons", true, false) => "cached cons",
        (_, _, true) => m.short,
        _ => m.label,
    }
}

/// The diagram of state `i` of `t` (which must have a ring). `views` are
/// the trace's state views.
pub fn ring_svg(t: &RingTrace, views: &[StateView], i: usize) -> String {
    let ring = t.ring.as_ref().expect("ring_svg needs a ring");
    let st = &views[i];
    let size = ring.size.max(1);
    let lay = Layout::new(size);
    let (w, h) = lay.extent();
    let kind = if lay.is_circle() { "circle" } else { "bar" };
    let mut o = String::new();
    let width = if lay.is_circle() { String::new() } else { format!(" width=\"{}\"", f2(w)) };
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\"{width} class=\"ring ring-{kind}\" data-step=\"{}\" data-index=\"{i}\" role=\"img\" aria-label=\"ring of {size} slots at step {}\" font-family=\"{SANS}\">",
        f2(w),
        f2(h),
        st.step.num,
        st.step.num
    );
    slots(&mut o, t, st, &lay);
    if !lay.is_circle() {
        o.push_str("<g class=\"slot-nums\">");
        let every = if size > 64 { 8 } else { 4 };
        for s in (0..size).step_by(every) {
            let c = lay.centre(s);
            let _ = write!(o, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" fill=\"#6b7280\">{s}</text>", f2(c.x), f2(c.y + 26.0));
        }
        o.push_str("</g>");
    }
    peek(&mut o, t, st, &lay);
    markers(&mut o, t, st, &lay);
    let (out, inn) = if lay.is_circle() { ("outside", "inside") } else { ("above", "below") };
    let _ = write!(
        o,
        "<text x=\"12\" y=\"22\" font-size=\"11\" fill=\"{PROD_COLOUR}\">producer ({}): {out}</text><text x=\"12\" y=\"40\" font-size=\"11\" fill=\"{CONS_COLOUR}\">consumer ({}): {inn}</text>",
        esc(&ring.prod_side),
        esc(&ring.cons_side)
    );
    o.push_str("</svg>");
    o
}

fn slots(o: &mut String, t: &RingTrace, st: &StateView, lay: &Layout) {
    let ring = t.ring.as_ref().expect("a ring");
    let m = t.modulus();
    o.push_str("<g class=\"slots\">");
    // changed slots last, so their outline is not painted over
    let mut order: Vec<u64> = (0..lay.size()).collect();
    order.sort_by_key(|s| st.slot_changed.contains(&(*s as usize)));
    for s in order {
        let e = st.step.vars.get("slot").and_then(|a| a.get(s as usize));
        let idx = e.and_then(|e| e.get("idx")).and_then(Value::as_u64);
        let never = match idx {
            Some(p) => p == ring.never || p == m,
            None => true,
        };
        let invalid = e.and_then(|e| e.get("ok")) == Some(&Value::Bool(false));
        let own = st.own.get(s as usize).map_or("free", String::as_str);
        let changed = st.slot_changed.contains(&(s as usize));
        let pos = if never { "–".to_string() } else { short_pos(idx.unwrap_or(0)) };
        let text = format!("{pos}{}", if invalid { "!" } else { "" });
        let tip = format!(
            "slot {s}: {}{}; {}{}",
            if never { "never stored".to_string() } else { format!("entry for position {}", idx.unwrap_or(0)) },
            if invalid { " (invalid descriptor)" } else { "" },
            owner_doc(own),
            if t.states.iter().all(|x| x.vars.contains_key("own")) { "" } else { " (derived from the counters)" }
        );
        let (stroke, sw) = if changed { (CHANGED_OUTLINE, "2.5") } else { ("#ffffff", "2") };
        let _ = write!(
            o,
            "<g class=\"slot own-{own}{}\" data-slot=\"{s}\" data-own=\"{own}\"><title>{}</title><path class=\"sector\" d=\"{}\" fill=\"{}\" stroke=\"{stroke}\" stroke-width=\"{sw}\"/>",
            if changed { " changed" } else { "" },
            esc(&tip),
            lay.slot_path(s),
            owner_colour(own)
        );
        let c = lay.centre(s);
        let clob = own == "clobbered";
        let fg = if clob { "#ffffff" } else { "#111827" };
        if !lay.compact() {
            let _ = write!(
                o,
                "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" class=\"slot-index\" font-size=\"10\" fill=\"{}\">slot {s}</text>\
                 <text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" class=\"slot-pos\" font-family=\"{MONO}\" font-size=\"16\" font-weight=\"700\" fill=\"{fg}\">{}</text>\
                 <text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" class=\"slot-own\" font-size=\"10\" fill=\"{}\">{own}</text>",
                f2(c.y - 14.0),
                if clob { "#fee2e2" } else { "#6b7280" },
                f2(c.y + 5.0),
                esc(&text),
                f2(c.y + 19.0),
                if clob { "#fee2e2" } else { "#4b5563" },
                x = f2(c.x),
            );
        } else {
            // narrow slots: the value reads along the radius
            let deg = lay.angle(s).to_degrees();
            let rot = if !lay.is_circle() {
                -90.0
            } else if deg > 180.0 {
                deg + 90.0
            } else {
                deg - 90.0
            };
            let _ = write!(
                o,
                "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" class=\"slot-pos small\" font-family=\"{MONO}\" font-size=\"10\" font-weight=\"700\" fill=\"{fg}\" transform=\"rotate({:.1} {x} {})\">{}</text>",
                f2(c.y + 4.0),
                rot,
                f2(c.y),
                esc(&text),
                x = f2(c.x),
            );
        }
        o.push_str("</g>");
    }
    o.push_str("</g>");
}

/// The peeked, not yet loaded range [cRd, cEnd).
fn peek(o: &mut String, t: &RingTrace, st: &StateView, lay: &Layout) {
    let (Some(rd), Some(end)) = (int(st.step, "cRd"), int(st.step, "cEnd")) else { return };
    let n = sub(end, rd, t.modulus());
    if n == 0 {
        return;
    }
    let s0 = rd % lay.size();
    let changed = st.changed.contains("cRd") || st.changed.contains("cEnd");
    let _ = write!(
        o,
        "<g class=\"marker peek{}\" data-marker=\"peek\" data-slot=\"{s0}\" data-len=\"{n}\"><title>peeked, not yet loaded: positions {rd} .. {end} (cRd .. cEnd), {n} {}</title><path class=\"peek-arc\" d=\"{}\" fill=\"none\" stroke=\"{PEEK_COLOUR}\" stroke-width=\"6\" stroke-linecap=\"round\" opacity=\"0.9\"/></g>",
        if changed { " changed" } else { "" },
        if n == 1 { "entry" } else { "entries" },
        lay.peek_path(s0, n)
    );
}

fn markers(o: &mut String, t: &RingTrace, st: &StateView, lay: &Layout) {
    let v = &st.step.vars;
    let lh = if lay.compact() { 12.0 } else { 15.0 };
    // the markers at each (side, slot), in legend order
    let mut blocks: BTreeMap<(bool, u64), Vec<&Marker>> = BTreeMap::new();
    let mut placed = Vec::new();
    for m in &MARKERS {
        let Some(value) = marker_value(v, m.key) else { continue };
        let s = value % lay.size();
        let line = blocks.entry((m.side == Side::Out, s)).or_default();
        placed.push((m, value, s, line.len()));
        line.push(m);
    }
    o.push_str("<g class=\"markers\">");
    for (m, value, s, line) in placed {
        let changed = st.changed.contains(m.key);
        let (tip, dir) = lay.arrow(s, m.side, m.offset);
        let (half, len) = match (lay.tiny(), m.solid) {
            (true, true) => (5.0, 11.0),
            (true, false) => (4.0, 9.0),
            (false, true) => (7.0, 16.0),
            (false, false) => (5.5, 13.0),
        };
        let b = lay.block(s, m.side);
        let count = blocks[&(m.side == Side::Out, s)].len() as f64;
        let y = if b.sideways {
            b.y + line as f64 * lh - (count - 1.0) * lh / 2.0
        } else {
            b.y + b.dy * line as f64 * lh
        };
        let (size, weight) = match (lay.compact(), m.solid) {
            (true, true) => ("10", "800"),
            (true, false) => ("10", "600"),
            (false, true) => ("13", "800"),
            (false, false) => ("12", "600"),
        };
        let hl = if changed {
            format!(" stroke=\"{HIGHLIGHT}\" stroke-width=\"5\" stroke-linejoin=\"round\" paint-order=\"stroke\"")
        } else {
            String::new()
        };
        let _ = write!(
            o,
            "<g class=\"marker {}{}\" data-marker=\"{}\" data-slot=\"{s}\" data-value=\"{value}\"><title>{}</title>\
             <path class=\"arrow\" d=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"{}\" dominant-baseline=\"middle\" fill=\"{}\" class=\"marker-label{}\" font-family=\"{MONO}\" font-size=\"{size}\" font-weight=\"{weight}\"{hl}>{}</text></g>",
            if m.solid { "shared" } else { "cache" },
            if changed { " changed" } else { "" },
            m.key,
            esc(&marker_tip(t, m, v, value)),
            triangle(tip, dir, half, len),
            if m.solid { m.colour } else { "#ffffff" },
            m.colour,
            if changed { "2.5" } else { "1.6" },
            if m.dashed { " stroke-dasharray=\"2 2\"" } else { "" },
            f2(b.x),
            f2(y),
            b.anchor,
            m.colour,
            if m.solid { " shared" } else { "" },
            esc(marker_label(t, m, lay)),
        );
    }
    o.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::views;
    use ringlab_tlc::explorer::{Ring, Step, FORMAT};
    use serde_json::{json, Map};

    fn trace(size: u64, vars: Vec<Value>) -> RingTrace {
        RingTrace {
            format: FORMAT.into(),
            kind: "tlc-counterexample".into(),
            title: "hand-made".into(),
            source: String::new(),
            outcome: Some("violation:NoOverwrite".into()),
            expected: None,
            ring: Some(Ring { size, never: 8, prod_side: "user".into(), cons_side: "kernel".into(), extra: Map::new() }),
            loop_end: None,
            states: vars
                .into_iter()
                .enumerate()
                .map(|(i, v)| Step { num: i as u64 + 1, action: "A".into(), vars: v.as_object().unwrap().clone(), actor: None })
                .collect(),
        }
    }

    /// `<g data-marker="key" ...>`'s attribute `attr`.
    fn marker_attr(svg: &str, key: &str, attr: &str) -> Option<String> {
        let start = svg.find(&format!("data-marker=\"{key}\""))?;
        let g = &svg[svg[..start].rfind("<g ")?..];
        let g = &g[..g.find('>')?];
        let a = g.find(&format!("{attr}=\""))? + attr.len() + 2;
        Some(g[a..a + g[a..].find('"')?].to_string())
    }

    fn slot_fill(svg: &str, s: u64) -> String {
        let g = &svg[svg.find(&format!("data-slot=\"{s}\" data-own")).unwrap()..];
        let p = &g[g.find("<path").unwrap()..];
        let a = p.find("fill=\"").unwrap() + 6;
        p[a..a + 7].to_string()
    }

    fn state() -> Value {
        json!({
            "prod": 6, "cons": 4, "pProd": 7, "pCons": 6, "pWr": 7,
            "cProd": 6, "cCons": 5, "cRd": 5, "cEnd": 6,
            "slot": [{"idx": 4, "ok": true}, {"idx": 5, "ok": true}, {"idx": 6, "ok": false}, {"idx": 8, "ok": true}],
            "own": ["read", "published", "written", "free"],
            "last": {"pos": 4, "val": 4, "ok": true, "pub": true, "exp": 4, "some": true},
            "cSpec": {"pos": 0, "val": 0, "ok": true, "pub": true, "exp": 0, "some": false},
        })
    }

    #[test]
    fn markers_point_at_value_mod_size() {
        let t = trace(4, vec![state()]);
        let svg = ring_svg(&t, &views(&t), 0);
        for (key, slot) in [("prod", "2"), ("cons", "0"), ("pProd", "3"), ("pWr", "3"), ("pCons", "2"), ("cProd", "2"), ("cCons", "1"), ("last", "0")] {
            assert_eq!(marker_attr(&svg, key, "data-slot").as_deref(), Some(slot), "{key}");
        }
        assert_eq!(marker_attr(&svg, "prod", "data-value").as_deref(), Some("6"));
        assert_eq!(marker_attr(&svg, "cSpec", "data-slot"), None, "cSpec.some is FALSE");
        assert_eq!(marker_attr(&svg, "peek", "data-slot").as_deref(), Some("1"));
        assert_eq!(marker_attr(&svg, "peek", "data-len").as_deref(), Some("1"));
        // labels of a user producer's cached consumer
        assert!(svg.contains(">cached cons</text>"));
        assert!(svg.contains(">–</text>"), "slot 3 never stored");
        assert!(svg.contains(">6!</text>"), "slot 2 invalid");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 560.00 520.00\""));
    }

    #[test]
    fn solid_shared_and_hollow_cached_markers_in_side_colours() {
        let t = trace(4, vec![state()]);
        let svg = ring_svg(&t, &views(&t), 0);
        let arrow = |key: &str| {
            let g = &svg[svg.find(&format!("data-marker=\"{key}\"")).unwrap()..];
            let p = &g[g.find("<path").unwrap()..g.find("/>").unwrap()];
            p.to_string()
        };
        assert!(arrow("prod").contains(&format!("fill=\"{PROD_COLOUR}\" stroke=\"{PROD_COLOUR}\"")));
        assert!(arrow("cons").contains(&format!("fill=\"{CONS_COLOUR}\" stroke=\"{CONS_COLOUR}\"")));
        assert!(arrow("cProd").contains(&format!("fill=\"#ffffff\" stroke=\"{PROD_COLOUR}\"")));
        assert!(arrow("pCons").contains(&format!("fill=\"#ffffff\" stroke=\"{CONS_COLOUR}\"")));
        assert!(arrow("last").contains("stroke-dasharray=\"2 2\""));
    }

    #[test]
    fn slots_are_filled_by_owner_and_changes_outlined() {
        let mut next = state();
        next["own"] = json!(["read", "published", "written", "clobbered"]);
        next["slot"][3] = json!({"idx": 7, "ok": true});
        next["prod"] = json!(7);
        let t = trace(4, vec![state(), next]);
        let v = views(&t);
        let svg = ring_svg(&t, &v, 1);
        assert_eq!(slot_fill(&svg, 0), "#bbf7d0");
        assert_eq!(slot_fill(&svg, 1), "#93c5fd");
        assert_eq!(slot_fill(&svg, 2), "#fde68a");
        assert_eq!(slot_fill(&svg, 3), "#ef4444");
        assert!(svg.contains(&format!("fill=\"#ef4444\" stroke=\"{CHANGED_OUTLINE}\" stroke-width=\"2.5\"")));
        assert_eq!(svg.matches("stroke-width=\"2.5\"").count(), 2, "slot 3 and the prod arrow");
        assert!(svg.contains(&format!("stroke=\"{HIGHLIGHT}\"")), "prod's label highlighted");
        let e = json!({"idx": 8, "ok": true});
        let free = trace(4, vec![json!({"slot": [e, e, e, e], "own": ["free", "free", "free", "free"]})]);
        assert_eq!(slot_fill(&ring_svg(&free, &views(&free), 0), 0), "#e5e7eb");
    }

    #[test]
    fn is_deterministic_and_handles_big_rings() {
        let t = trace(4, vec![state()]);
        assert_eq!(ring_svg(&t, &views(&t), 0), ring_svg(&t, &views(&t), 0));
        let big = trace(64, vec![json!({"prod": 65, "cons": 3})]);
        let svg = ring_svg(&big, &views(&big), 0);
        assert!(svg.contains("ring-bar"));
        assert_eq!(marker_attr(&svg, "prod", "data-slot").as_deref(), Some("1"));
        assert!(svg.contains(">P</text>"));
    }
}
