//! A table as an SVG bar chart: one group of horizontal bars per row, one
//! bar per charted column, on a linear scale from zero, the value printed
//! beside each bar. Fonts and colours are attributes (no stylesheet), as
//! the report's figures are; the same table gives the same bytes.

use std::fmt::Write;

use super::table::{fmt_num, Table, Val};
use ringlab_report::markup::{esc, f2};
use ringlab_report::svg::SANS;

const COLOURS: [&str; 6] = ["#1d4ed8", "#b45309", "#059669", "#7c3aed", "#dc2626", "#0891b2"];
const WIDTH: f64 = 820.0;
const MARGIN: f64 = 16.0;
const LABEL_W: f64 = 230.0;
const VALUE_W: f64 = 70.0;
const BAR_H: f64 = 13.0;
const GROUP_GAP: f64 = 10.0;
const HEAD_H: f64 = 52.0;
const LEGEND_ROW: f64 = 18.0;

/// The chart of `t`, if it has a chart and something to draw.
pub fn chart_svg(t: &Table) -> Option<String> {
    let spec = t.chart.as_ref()?;
    let label = t.index(spec.label)?;
    let series: Vec<usize> = spec.series.iter().filter_map(|k| t.index(k)).collect();
    let rows: Vec<&Vec<Val>> = t
        .rows
        .iter()
        .filter(|r| match (&r[label], spec.skip_prefix) {
            (Val::Text(s), Some(p)) => !s.starts_with(p),
            _ => true,
        })
        .collect();
    if series.is_empty() || rows.is_empty() {
        return None;
    }
    let num = |v: &Val| match v {
        Val::Num(x) if x.is_finite() && *x >= 0.0 => Some(*x),
        _ => None,
    };
    let max = rows.iter().flat_map(|r| series.iter().filter_map(|&i| num(&r[i]))).fold(0.0, f64::max);
    if max <= 0.0 {
        return None;
    }
    let bar_w = WIDTH - 2.0 * MARGIN - LABEL_W - VALUE_W;
    let group_h = series.len() as f64 * BAR_H + GROUP_GAP;
    let legend_y = MARGIN + HEAD_H + rows.len() as f64 * group_h + 8.0;
    let height = legend_y + series.len() as f64 * LEGEND_ROW + MARGIN;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{h}\" viewBox=\"0 0 {WIDTH} {h}\" font-family=\"{SANS}\" font-size=\"11\">\n\
         <title>{title}</title>\n<rect width=\"{WIDTH}\" height=\"{h}\" fill=\"#ffffff\"/>\n\
         <text x=\"{MARGIN}\" y=\"{ty}\" font-size=\"15\" font-weight=\"bold\">{title}</text>\n\
         <text x=\"{MARGIN}\" y=\"{uy}\" fill=\"#4b5563\">{unit}</text>",
        h = f2(height),
        title = esc(&t.title),
        ty = MARGIN + 14.0,
        uy = MARGIN + 32.0,
        unit = esc(&spec.unit),
    );
    let x0 = MARGIN + LABEL_W;
    let _ = writeln!(
        o,
        "<line x1=\"{x}\" y1=\"{y1}\" x2=\"{x}\" y2=\"{y2}\" stroke=\"#9ca3af\"/>",
        x = f2(x0),
        y1 = f2(MARGIN + HEAD_H - 4.0),
        y2 = f2(legend_y - 8.0)
    );
    for (r, row) in rows.iter().enumerate() {
        let gy = MARGIN + HEAD_H + r as f64 * group_h;
        let text = match &row[label] {
            Val::Text(s) => s.clone(),
            Val::Num(x) => fmt_num(*x, t.columns[label].fmt),
            Val::None => "-".into(),
        };
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            f2(x0 - 6.0),
            f2(gy + series.len() as f64 * BAR_H / 2.0 + 4.0),
            esc(&text)
        );
        for (s, &i) in series.iter().enumerate() {
            let y = gy + s as f64 * BAR_H;
            let colour = COLOURS[s % COLOURS.len()];
            match num(&row[i]) {
                Some(v) => {
                    let w = (v / max * bar_w).max(0.5);
                    let _ = writeln!(
                        o,
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{colour}\"><title>{}: {}</title></rect>\n\
                         <text x=\"{}\" y=\"{}\" fill=\"#111827\">{}</text>",
                        f2(x0),
                        f2(y + 1.0),
                        f2(w),
                        f2(BAR_H - 2.0),
                        esc(t.columns[i].head),
                        esc(&fmt_num(v, t.columns[i].fmt)),
                        f2(x0 + w + 4.0),
                        f2(y + BAR_H - 3.0),
                        esc(&fmt_num(v, t.columns[i].fmt))
                    );
                }
                None => {
                    let _ = writeln!(o, "<text x=\"{}\" y=\"{}\" fill=\"#6b7280\">-</text>", f2(x0 + 4.0), f2(y + BAR_H - 3.0));
                }
            }
        }
    }
    for (s, &i) in series.iter().enumerate() {
        let y = legend_y + s as f64 * LEGEND_ROW;
        let _ = writeln!(
            o,
            "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            f2(x0),
            f2(y),
            COLOURS[s % COLOURS.len()],
            f2(x0 + 18.0),
            f2(y + 10.0),
            esc(t.columns[i].head)
        );
    }
    o.push_str("</svg>\n");
    Some(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{col, ChartSpec, Fmt};

    fn table() -> Table {
        let mut t = Table::new("t", "ring <x>", vec![col("n", "name", Fmt::Text), col("a", "ringlab", Fmt::Rate), col("b", "peer", Fmt::Rate)]);
        t.push(vec!["one".into(), 2e6.into(), 1e6.into()]);
        t.push(vec!["two".into(), 4e6.into(), Val::None]);
        t.chart = Some(ChartSpec { label: "n", series: vec!["a", "b"], unit: "entries/s".into(), skip_prefix: None });
        t
    }

    #[test]
    fn one_bar_per_value_longest_for_the_maximum() {
        let svg = chart_svg(&table()).unwrap();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("<title>ring &lt;x&gt;</title>"));
        // three values drawn (one missing), plus two legend swatches
        assert_eq!(svg.matches("<rect x=").count(), 5);
        let full = f2(WIDTH - 2.0 * MARGIN - LABEL_W - VALUE_W);
        assert!(svg.contains(&format!("width=\"{full}\"")));
        assert_eq!(svg, chart_svg(&table()).unwrap());
    }

    #[test]
    fn nothing_to_draw_gives_none() {
        let mut t = table();
        t.chart = None;
        assert!(chart_svg(&t).is_none());
        let mut t = table();
        t.rows.clear();
        assert!(chart_svg(&t).is_none());
        let mut t = table();
        t.chart.as_mut().unwrap().skip_prefix = Some("t");
        assert_eq!(chart_svg(&t).unwrap().matches("<rect x=").count(), 4);
    }
}
