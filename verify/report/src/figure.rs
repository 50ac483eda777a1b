//! A counterexample as one SVG figure: its states as ring diagrams in
//! rows, each captioned with the action that led to it, and the legend
//! once. The same trace gives the same bytes.

use std::fmt::Write;

use super::markup::esc;
use super::svg::{owner_colour, ring_svg, CONS_COLOUR, MONO, PEEK_COLOUR, PROD_COLOUR, SANS};
use super::view::{views, OWNERS};
use ringlab_tlc::explorer::{LoopEnd, RingTrace};

const COLUMNS: usize = 2;
const CELL_W: f64 = 560.0;
const CAPTION_H: f64 = 58.0;
const GAP: f64 = 16.0;
const MARGIN: f64 = 16.0;
const HEAD_H: f64 = 64.0;

/// How a trace ends, in words: the outcome and, for a liveness trace, the
/// loop.
pub fn ending(t: &RingTrace) -> String {
    let o = t.outcome.clone().unwrap_or_default();
    match loop_text(t) {
        Some(l) => format!("{o}, {l}"),
        None => o,
    }
}

/// How a liveness counterexample goes on after its last state.
pub fn loop_text(t: &RingTrace) -> Option<String> {
    match &t.loop_end {
        Some(LoopEnd::Stuttering) => Some("then stutters forever".into()),
        Some(LoopEnd::BackTo(n)) => Some(format!("then loops back to state {n}")),
        None => None,
    }
}

/// The figure of a trace with a ring; None without one.
pub fn figure_svg(t: &RingTrace) -> Option<String> {
    let ring = t.ring.as_ref()?;
    let v = views(t);
    let first = ring_svg(t, &v, 0);
    let (dw, dh) = extent_of(&first);
    let cell_w = dw.max(CELL_W);
    let cell_h = CAPTION_H + dh;
    let cols = COLUMNS;
    let rows = v.len().div_ceil(cols);
    let width = MARGIN * 2.0 + cols as f64 * cell_w + (cols - 1) as f64 * GAP;
    let legend_y = MARGIN + HEAD_H + rows as f64 * (cell_h + GAP);
    let (legend, legend_h) = legend(MARGIN, legend_y, width - 2.0 * MARGIN);
    let height = legend_y + legend_h + MARGIN;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"{SANS}\">\n\
         <title>{}: {}</title>\n<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>",
        esc(&t.title),
        esc(&ending(t))
    );
    let _ = writeln!(
        o,
        "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"22\" font-weight=\"700\" fill=\"#111827\">{}<tspan dx=\"14\" fill=\"#b91c1c\" font-family=\"{MONO}\" font-size=\"20\">{}</tspan></text>\n\
         <text x=\"{MARGIN}\" y=\"{}\" fill=\"#6b7280\" font-size=\"15\">{} states · producer {} → consumer {} · {} slots · counters mod {}</text>",
        MARGIN + 22.0,
        esc(&t.title),
        esc(&ending(t)),
        MARGIN + 46.0,
        t.states.len(),
        esc(&ring.prod_side),
        esc(&ring.cons_side),
        ring.size,
        ring.never
    );
    for (i, st) in v.iter().enumerate() {
        let (r, c) = (i / cols, i % cols);
        let x = MARGIN + c as f64 * (cell_w + GAP);
        let y = MARGIN + HEAD_H + r as f64 * (cell_h + GAP);
        let last = i + 1 == v.len();
        let (border, bw) = if last && t.outcome.as_deref().is_some_and(|o| o != "pass") { ("#ef4444", 2.5) } else { ("#d1d5db", 1.0) };
        let _ = writeln!(
            o,
            "<g transform=\"translate({x} {y})\" data-step=\"{}\">\n<rect x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"{}\" rx=\"8\" fill=\"#ffffff\" stroke=\"{border}\" stroke-width=\"{bw}\"/>",
            st.step.num,
            cell_w - 1.0,
            cell_h - 1.0
        );
        let what = if i == 0 { "initial state".to_string() } else { st.step.action.clone() };
        let _ = writeln!(
            o,
            "<text x=\"14\" y=\"26\" font-size=\"18\" font-weight=\"700\" fill=\"#111827\">step {}<tspan dx=\"10\" font-family=\"{MONO}\" fill=\"{}\">{}</tspan></text>",
            st.step.num,
            if i == 0 { "#6b7280" } else { "#111827" },
            esc(&what)
        );
        // scalars with their values, the rest by name
        let changed: Vec<String> = st
            .changed
            .iter()
            .map(|k| {
                let val = |s: &ringlab_tlc::explorer::Step| s.vars.get(k).filter(|x| x.is_number() || x.is_boolean()).map(|x| x.to_string().to_uppercase());
                match (i.checked_sub(1).and_then(|p| val(v[p].step)), val(st.step)) {
                    (Some(a), Some(b)) => format!("{k} {a}→{b}"),
                    _ => k.clone(),
                }
            })
            .collect();
        let note = if i == 0 {
            String::new()
        } else if changed.is_empty() {
            "changed: nothing".into()
        } else {
            format!("changed: {}", changed.join(", "))
        };
        let note = if last && t.outcome.is_some() { format!("{note}{}→ {}", if note.is_empty() { "" } else { "  " }, ending(t)) } else { note };
        let _ = writeln!(o, "<text x=\"14\" y=\"48\" font-size=\"13\" fill=\"{}\">{}</text>", if last { "#b91c1c" } else { "#6b7280" }, esc(&note));
        let diagram = ring_svg(t, &v, i);
        let _ = writeln!(o, "<g transform=\"translate({} {CAPTION_H})\">{}</g>\n</g>", (cell_w - dw) / 2.0, nested(&diagram, dw, dh));
    }
    o.push_str(&legend);
    o.push_str("</svg>\n");
    Some(o)
}

/// The diagram's viewBox size.
fn extent_of(svg: &str) -> (f64, f64) {
    let vb = svg.split("viewBox=\"0 0 ").nth(1).and_then(|r| r.split('"').next()).unwrap_or("560 520");
    let mut it = vb.split(' ').map(|x| x.parse::<f64>().unwrap_or(0.0));
    (it.next().unwrap_or(560.0), it.next().unwrap_or(520.0))
}

/// The diagram as a nested <svg> of its natural size.
fn nested(svg: &str, w: f64, h: f64) -> String {
    svg.replacen("<svg xmlns=\"http://www.w3.org/2000/svg\" ", &format!("<svg x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" "), 1)
}

/// Rough width of `text` at the legend's 14 px, for laying it out.
fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 7.8
}

/// Owner colours, marker styles, the peek arc, and what the outlines mean,
/// in lines no wider than `width`; returns the SVG and its height.
fn legend(x0: f64, y0: f64, width: f64) -> (String, f64) {
    let tri = |x: f64, fill: &str, stroke: &str, dashed: bool| {
        format!(
            "<path d=\"M{},15 L{},2 L{},2 Z\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.6\"{}/>",
            x + 7.0,
            x + 1.0,
            x + 13.0,
            if dashed { " stroke-dasharray=\"2 2\"" } else { "" }
        )
    };
    let mut items: Vec<(String, f64, String)> = OWNERS
        .iter()
        .map(|own| {
            (format!("<rect x=\"0\" y=\"0\" width=\"16\" height=\"16\" rx=\"3\" fill=\"{}\" stroke=\"#9ca3af\"/>", owner_colour(own)), 22.0, own.to_string())
        })
        .collect();
    items.push((tri(0.0, PROD_COLOUR, PROD_COLOUR, false) + &tri(18.0, CONS_COLOUR, CONS_COLOUR, false), 40.0, "prod, cons: the shared counters".into()));
    items.push((tri(0.0, "#ffffff", PROD_COLOUR, false) + &tri(18.0, "#ffffff", CONS_COLOUR, false), 40.0, "a side's own copy of a counter".into()));
    items.push((tri(0.0, "#ffffff", "#047857", true), 22.0, "last load".into()));
    items.push((tri(0.0, "#ffffff", "#7c3aed", true), 22.0, "cSpec: early load (no barrier C)".into()));
    items.push((format!("<path d=\"M2,8 h22\" stroke=\"{PEEK_COLOUR}\" stroke-width=\"6\" stroke-linecap=\"round\"/>"), 34.0, "cRd..cEnd: peeked, not yet loaded".into()));
    let mut o = String::from("<g class=\"legend\" font-size=\"14\" fill=\"#374151\">\n");
    let (mut x, mut y) = (x0, y0);
    for (icon, pad, text) in items {
        let w = pad + text_width(&text);
        if x > x0 && x + w > x0 + width {
            x = x0;
            y += 26.0;
        }
        let _ = writeln!(o, "<g transform=\"translate({x} {y})\">{icon}<text x=\"{pad}\" y=\"13\">{}</text></g>", esc(&text));
        x += w + 28.0;
    }
    let notes = [
        "Outside the ring: the producer's variables; inside: the consumer's.".to_string(),
        format!(
            "<tspan fill=\"{PROD_COLOUR}\" font-weight=\"700\">Amber</tspan>: producer positions (prod, pProd, pWr, cProd); \
             <tspan fill=\"{CONS_COLOUR}\" font-weight=\"700\">blue</tspan>: consumer positions (cons, pCons, cCons)."
        ),
        esc("Slot label: the position whose entry the slot holds (– never stored, ! invalid descriptor)."),
        "Black outline, highlighted label: changed by this step.".to_string(),
    ];
    y += 30.0;
    for n in notes {
        y += 20.0;
        let _ = writeln!(o, "<text x=\"{x0}\" y=\"{y}\" fill=\"#6b7280\">{n}</text>");
    }
    o.push_str("</g>\n");
    (o, y - y0 + 12.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_tlc::explorer::{Ring, Step, FORMAT};
    use serde_json::{json, Map};

    fn trace(n: u64) -> RingTrace {
        let e = json!({"idx": 8, "ok": true});
        RingTrace {
            format: FORMAT.into(),
            kind: "tlc-counterexample".into(),
            title: "hand-made".into(),
            source: String::new(),
            outcome: Some("violation:FifoOrder".into()),
            expected: None,
            ring: Some(Ring { size: 2, never: 8, prod_side: "kernel".into(), cons_side: "user".into(), extra: Map::new() }),
            loop_end: None,
            states: (1..=n)
                .map(|k| Step {
                    num: k,
                    action: if k == 1 { "Init".into() } else { "ProdReserve".into() },
                    vars: json!({"prod": 0, "cons": 0, "pProd": k - 1, "slot": [e, e], "own": ["free", "free"]}).as_object().unwrap().clone(),
                    actor: None,
                })
                .collect(),
        }
    }

    #[test]
    fn one_cell_per_state_with_its_action() {
        let svg = figure_svg(&trace(6)).unwrap();
        assert_eq!(svg.matches("<g transform=\"translate(").count() - 10 - 6, 6, "a cell and a diagram per state, 10 legend items");
        assert_eq!(svg.matches("ProdReserve</tspan>").count(), 5);
        assert!(svg.contains(">initial state</tspan>"));
        assert!(svg.contains("changed: pProd 0→1"), "{svg}");
        assert!(svg.contains("→ violation:FifoOrder"));
        assert_eq!(svg.matches("class=\"legend\"").count(), 1);
        assert_eq!(svg, figure_svg(&trace(6)).unwrap(), "deterministic");
    }

    #[test]
    fn no_ring_no_figure() {
        let mut t = trace(1);
        t.ring = None;
        assert!(figure_svg(&t).is_none());
    }
}
