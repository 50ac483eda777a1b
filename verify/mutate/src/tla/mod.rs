//! The TLA+ mutator: every mutant of a spec the five operators give, each
//! named `Spec.tla/Definition/operator/k` (k counts that operator's
//! mutants in that definition, so a name survives edits elsewhere).

mod ops;
pub mod reach;
pub mod source;

use serde::{Deserialize, Serialize};

use source::Source;

/// A mutation operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    /// A conjunct of an action's guard replaced by TRUE.
    DropGuard,
    /// `<` and `<=`, `>` and `>=`, `=` and `#` exchanged.
    FlipCompare,
    /// A numeric literal one more or one less.
    ShiftConst,
    /// An action's `UNCHANGED` conjunct replaced by TRUE.
    SkipUnchanged,
    /// Two state labels of one set exchanged within an action.
    SwapSteps,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::DropGuard, Op::FlipCompare, Op::ShiftConst, Op::SkipUnchanged, Op::SwapSteps];

    pub fn name(self) -> &'static str {
        match self {
            Op::DropGuard => "drop-guard",
            Op::FlipCompare => "flip-compare",
            Op::ShiftConst => "shift-const",
            Op::SkipUnchanged => "skip-unchanged",
            Op::SwapSteps => "swap-steps",
        }
    }
}

/// Bytes `from..to` of line `line` replaced by `with`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub line: usize,
    pub from: usize,
    pub to: usize,
    pub with: String,
}

#[derive(Clone, Debug)]
pub struct TlaMutant {
    /// `Spec.tla/Definition/operator/k`.
    pub id: String,
    pub spec: String,
    pub def: String,
    pub op: Op,
    /// 1-based line of the (first) change.
    pub line: usize,
    pub what: String,
    edits: Vec<Edit>,
}

impl TlaMutant {
    /// The mutated module text.
    pub fn apply(&self, original: &str) -> String {
        let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
        let mut edits = self.edits.clone();
        // Right to left, so earlier byte offsets stay valid.
        edits.sort_by(|a, b| (b.line, b.from).cmp(&(a.line, a.from)));
        for e in &edits {
            lines[e.line].replace_range(e.from..e.to, &e.with);
        }
        let mut s = lines.join("\n");
        s.push('\n');
        s
    }
}

/// Every mutant of the module `spec` (its file name) with text `text`.
pub fn mutants(spec: &str, text: &str) -> Vec<TlaMutant> {
    let src = Source::new(text);
    let sets = ops::label_sets(&src);
    let mut out = Vec::new();
    for d in src.defs() {
        let mut found = ops::conjunct_ops(&src, &d);
        found.extend(ops::flip_compare(&src, &d));
        found.extend(ops::shift_const(&src, &d));
        found.extend(ops::swap_steps(&src, &d, &sets));
        for op in Op::ALL {
            for (k, f) in found.iter().filter(|f| f.op == op).enumerate() {
                out.push(TlaMutant {
                    id: format!("{spec}/{}/{}/{k}", d.name, op.name()),
                    spec: spec.to_string(),
                    def: d.name.clone(),
                    op,
                    line: f.line + 1,
                    what: f.what.clone(),
                    edits: f.edits.clone(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
