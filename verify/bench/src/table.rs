//! A benchmark's result: named columns, rows of values, notes, and how to
//! print it (aligned text) or hand it on (`TableDoc` in bench.json, where
//! every number stays a number).

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// How a column's numbers are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    Text,
    /// Events per second, with an SI prefix (`12.3M`).
    Rate,
    /// A plain count.
    Count,
    /// Seconds, one decimal.
    Secs,
    /// A ratio, `1.23x`.
    Ratio,
    /// A relative difference, `-23.6%` (the value is the fraction).
    Pct,
}

#[derive(Clone, Debug)]
pub struct Column {
    /// The JSON key.
    pub key: &'static str,
    /// The printed heading.
    pub head: &'static str,
    pub fmt: Fmt,
}

pub const fn col(key: &'static str, head: &'static str, fmt: Fmt) -> Column {
    Column { key, head, fmt }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Text(String),
    Num(f64),
    /// Not measured (a peer without that mode, a skipped part).
    None,
}

impl From<&str> for Val {
    fn from(s: &str) -> Val {
        Val::Text(s.to_string())
    }
}
impl From<String> for Val {
    fn from(s: String) -> Val {
        Val::Text(s)
    }
}
impl From<f64> for Val {
    fn from(x: f64) -> Val {
        Val::Num(x)
    }
}
impl From<u64> for Val {
    fn from(x: u64) -> Val {
        Val::Num(x as f64)
    }
}
impl From<Option<f64>> for Val {
    fn from(x: Option<f64>) -> Val {
        x.map_or(Val::None, Val::Num)
    }
}

/// Which columns the table's chart draws: bars of `series` for each row,
/// labelled by the row's `label` column.
#[derive(Clone, Debug)]
pub struct ChartSpec {
    pub label: &'static str,
    pub series: Vec<&'static str>,
    /// What the bars measure, under the title.
    pub unit: String,
    /// Rows whose label starts with this are left out (totals).
    pub skip_prefix: Option<&'static str>,
}

#[derive(Clone, Debug)]
pub struct Table {
    /// Short name: the chart's file name and the JSON key.
    pub id: &'static str,
    pub title: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Val>>,
    pub notes: Vec<String>,
    /// Why the benchmark did not run, if it did not.
    pub skip: Option<String>,
    pub chart: Option<ChartSpec>,
}

impl Table {
    pub fn new(id: &'static str, title: impl Into<String>, columns: Vec<Column>) -> Table {
        Table { id, title: title.into(), columns, rows: Vec::new(), notes: Vec::new(), skip: None, chart: None }
    }

    /// A table that says why it is empty.
    pub fn skipped(id: &'static str, title: impl Into<String>, why: impl Into<String>) -> Table {
        Table { skip: Some(why.into()), ..Table::new(id, title, Vec::new()) }
    }

    pub fn push(&mut self, row: Vec<Val>) {
        assert_eq!(row.len(), self.columns.len(), "{}: a row of {} values for {} columns", self.id, row.len(), self.columns.len());
        self.rows.push(row);
    }

    pub fn note(&mut self, n: impl Into<String>) {
        self.notes.push(n.into());
    }

    pub fn index(&self, key: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.key == key)
    }

    /// The aligned text, title first, then the rows, then the notes.
    pub fn render(&self) -> String {
        let mut out = format!("== {}\n", self.title);
        if let Some(why) = &self.skip {
            out.push_str(&format!("SKIP: {why}\n"));
            for n in &self.notes {
                out.push_str(&format!("  {n}\n"));
            }
            return out;
        }
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().zip(&self.columns).map(|(v, c)| cell(v, c.fmt)).collect())
            .collect();
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| cells.iter().map(|r| r[i].chars().count()).chain([c.head.len()]).max().unwrap_or(0))
            .collect();
        let line = |texts: &[String]| {
            let parts: Vec<String> = texts
                .iter()
                .zip(&self.columns)
                .zip(&widths)
                .map(|((t, c), w)| if c.fmt == Fmt::Text { format!("{t:<w$}") } else { format!("{t:>w$}") })
                .collect();
            parts.join("  ").trim_end().to_string() + "\n"
        };
        let heads: Vec<String> = self.columns.iter().map(|c| c.head.to_string()).collect();
        out.push_str(&line(&heads));
        for r in &cells {
            out.push_str(&line(r));
        }
        for n in &self.notes {
            out.push_str(&format!("  {n}\n"));
        }
        out
    }

    /// The table as bench.json holds it: every number stays a number (a
    /// count an integer), a missing figure is null.
    pub fn to_doc(&self) -> TableDoc {
        let rows = self
            .rows
            .iter()
            .map(|r| {
                let mut m = Map::new();
                for (v, c) in r.iter().zip(&self.columns) {
                    let x = match v {
                        Val::Text(s) => json!(s),
                        Val::Num(x) if c.fmt == Fmt::Count && x.fract() == 0.0 && x.abs() < 9e15 => json!(*x as i64),
                        Val::Num(x) if x.is_finite() => json!(x),
                        Val::Num(_) | Val::None => Value::Null,
                    };
                    m.insert(c.key.to_string(), x);
                }
                m
            })
            .collect();
        TableDoc {
            id: self.id.to_string(),
            title: self.title.clone(),
            columns: self.columns.iter().map(|c| ColumnDoc { key: c.key.to_string(), head: c.head.to_string() }).collect(),
            rows,
            notes: self.notes.clone(),
            skip: self.skip.clone(),
        }
    }
}

/// A table in bench.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableDoc {
    pub id: String,
    pub title: String,
    pub columns: Vec<ColumnDoc>,
    /// A row: each column's key to its value (a number, a string, or null
    /// where nothing was measured).
    pub rows: Vec<Map<String, Value>>,
    pub notes: Vec<String>,
    /// Why the benchmark did not run.
    pub skip: Option<String>,
}

/// A column: its key in the rows, and its printed heading.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColumnDoc {
    pub key: String,
    pub head: String,
}

fn cell(v: &Val, fmt: Fmt) -> String {
    match v {
        Val::Text(s) => s.clone(),
        Val::None => "-".into(),
        Val::Num(x) => fmt_num(*x, fmt),
    }
}

pub fn fmt_num(x: f64, fmt: Fmt) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    match fmt {
        Fmt::Text | Fmt::Count => format!("{}", x.round() as i64),
        Fmt::Rate => si(x),
        Fmt::Secs => format!("{x:.1}"),
        Fmt::Ratio if x != 0.0 && x.abs() < 0.01 => format!("{x:.2e}x"),
        Fmt::Ratio => format!("{x:.2}x"),
        Fmt::Pct => format!("{:+.1}%", x * 100.0),
    }
}

/// `x` with three significant digits and k/M/G.
pub fn si(x: f64) -> String {
    let (v, p) = if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$}{p}")
}

/// `a / b`, None unless both are positive and finite.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() && a > 0.0 && b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// The median of `xs` (None when empty).
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// The median of the ratios `a[i] / b[i]` of runs made side by side (the
/// i-th of each in the same round): a drift in the machine's load between
/// rounds then cancels out, where a ratio of the two medians would mix it
/// in. None without a pair of positive figures.
pub fn paired_ratio(a: &[f64], b: &[f64]) -> Option<f64> {
    let r: Vec<f64> = a.iter().zip(b).filter_map(|(x, y)| ratio(Some(*x), Some(*y))).collect();
    median(&r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_aligned_with_units_and_dashes() {
        let mut t = Table::new("x", "a table", vec![col("name", "name", Fmt::Text), col("rate", "rate/s", Fmt::Rate), col("r", "ratio", Fmt::Ratio)]);
        t.push(vec!["long name".into(), 12_345_678.0.into(), Val::Num(1.5)]);
        t.push(vec!["b".into(), 950.0.into(), Val::None]);
        t.note("a note");
        let s = t.render();
        assert_eq!(
            s,
            "== a table\nname       rate/s  ratio\nlong name   12.3M  1.50x\nb             950      -\n  a note\n"
        );
        let j = serde_json::to_value(t.to_doc()).unwrap();
        assert_eq!(j["rows"][0]["rate"], 12_345_678.0);
        let mut c = Table::new("c", "counts", vec![col("n", "n", Fmt::Count)]);
        c.push(vec![64.0.into()]);
        assert_eq!(c.to_doc().rows[0]["n"].as_u64(), Some(64));
        assert!(j["rows"][1]["r"].is_null());
    }

    #[test]
    fn skipped_table_says_why() {
        let t = Table::skipped("live", "live", "needs root");
        assert_eq!(t.render(), "== live\nSKIP: needs root\n");
        assert_eq!(t.to_doc().skip.as_deref(), Some("needs root"));
    }

    #[test]
    fn ratios_and_medians() {
        assert_eq!(ratio(Some(3.0), Some(2.0)), Some(1.5));
        assert_eq!(ratio(Some(3.0), Some(0.0)), None);
        assert_eq!(ratio(None, Some(1.0)), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        // round 2 ran slower for both: the pairs say 2x throughout
        assert_eq!(paired_ratio(&[4.0, 2.0, 8.0], &[2.0, 1.0, 4.0]), Some(2.0));
        assert_eq!(paired_ratio(&[4.0], &[0.0]), None);
        assert_eq!(fmt_num(-0.236, Fmt::Pct), "-23.6%");
        assert_eq!(si(1_801_007.0), "1.80M");
        assert_eq!(fmt_num(0.0047, Fmt::Ratio), "4.70e-3x");
        assert_eq!(fmt_num(12.345, Fmt::Ratio), "12.35x");
    }
}
