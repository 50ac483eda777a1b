//! The five mutation operators, each over one definition: drop a
//! conjunct of a guard, flip a comparison, shift a constant by one, skip
//! an UNCHANGED, swap two steps (the state labels an action moves
//! between).

use super::source::{Def, Source};
use super::{Edit, Op};

/// A candidate: its operator, what it changes, and the edits.
pub struct Found {
    pub op: Op,
    pub line: usize,
    pub what: String,
    pub edits: Vec<Edit>,
}

/// Operator tokens that contain `<`, `>`, `=` or `#` and are not
/// comparisons, longest first.
const NOT_COMPARE: [&str; 14] = [
    "<=>", "|->", "-+->", "==", "=>", "->", "<-", "<<", ">>", "<>", "~>", ":>", "=|", "|=",
];

/// Comparison operators and what each flips to.
const FLIP: [(&str, &str); 8] = [
    ("<=", "<"),
    ("=<", "<"),
    (">=", ">"),
    ("/=", "="),
    ("<", "<="),
    (">", ">="),
    ("=", "#"),
    ("#", "="),
];

/// A conjunct of a junction list: its bullet's line and column, and the
/// lines it spans.
struct Conjunct {
    line: usize,
    col: usize,
    end: usize,
}

/// Lines that name the spec's mutant switch are the campaign's
/// harness, not the protocol: nothing on them is mutated.
fn harness(src: &Source, n: usize) -> bool {
    src.code(n).contains("Mutant")
}

fn conjuncts(src: &Source, d: &Def) -> Vec<Conjunct> {
    let mut out = Vec::new();
    for n in d.start..d.end {
        let code = src.code(n);
        let Some(col) = src.indent(n) else { continue };
        if !code[col..].starts_with("/\\") {
            continue;
        }
        let mut end = n + 1;
        while end < d.end {
            match src.indent(end) {
                None => end += 1,
                Some(c) if c > col => end += 1,
                Some(_) => break,
            }
        }
        // Trailing comment-only lines belong to nobody.
        while end > n + 1 && src.indent(end - 1).is_none() {
            end -= 1;
        }
        out.push(Conjunct { line: n, col, end });
    }
    out
}

/// The code of a conjunct after its bullet, lines joined.
fn body(src: &Source, c: &Conjunct) -> String {
    let mut s = src.code(c.line)[c.col + 2..].to_string();
    for n in c.line + 1..c.end {
        s.push(' ');
        s.push_str(&src.code(n));
    }
    s
}

fn primed(code: &str) -> bool {
    code.contains('\'')
}

/// What dropping a conjunct of an action is: skipping its frame
/// condition, dropping a guard (no prime), or nothing (it assigns).
fn conjunct_op(code: &str) -> Option<Op> {
    if code.starts_with("UNCHANGED") {
        Some(Op::SkipUnchanged)
    } else if !primed(code) {
        Some(Op::DropGuard)
    } else {
        None
    }
}

/// Replaces a whole conjunct by `TRUE`, its continuation lines blanked.
fn replace_conjunct(src: &Source, c: &Conjunct) -> Vec<Edit> {
    let first = &src.lines[c.line];
    let from = c.col + 2;
    let mut edits = vec![Edit {
        line: c.line,
        from,
        to: first.len(),
        with: " TRUE".into(),
    }];
    for n in c.line + 1..c.end {
        edits.push(Edit {
            line: n,
            from: 0,
            to: src.lines[n].len(),
            with: String::new(),
        });
    }
    edits
}

/// Byte ranges of the top-level `/\`-separated pieces of a one-line
/// conjunct body starting at byte `from` of line `n`.
fn pieces(src: &Source, n: usize, from: usize) -> Vec<(usize, usize)> {
    let code = src.code(n);
    let b = code.as_bytes();
    let mut depth = 0i32;
    let mut out = Vec::new();
    let mut start = from;
    let mut i = from;
    while i < b.len() {
        let rest = &code[i..];
        if rest.starts_with("<<") {
            depth += 1;
            i += 2;
            continue;
        }
        if rest.starts_with(">>") {
            depth -= 1;
            i += 2;
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'/' if depth == 0 && rest.starts_with("/\\") && src.is_code(n, i) => {
                out.push((start, i));
                start = i + 2;
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((start, code.trim_end().len().max(start)));
    out.into_iter()
        .map(|(a, z)| {
            let s = &code[a..z];
            let lead = s.len() - s.trim_start().len();
            (a + lead, a + s.trim_end().len())
        })
        .filter(|(a, z)| z > a)
        .collect()
}

/// Drop a conjunct of a guard, and skip an UNCHANGED: a conjunct of an
/// action without primes is a guard; `UNCHANGED v` is a frame condition.
pub fn conjunct_ops(src: &Source, d: &Def) -> Vec<Found> {
    let mut out = Vec::new();
    if !d.action {
        return out;
    }
    for c in conjuncts(src, d) {
        if (c.line..c.end).any(|n| harness(src, n)) {
            continue;
        }
        let text = body(src, &c);
        let single = c.end == c.line + 1;
        let parts = if single {
            pieces(src, c.line, c.col + 2)
        } else {
            Vec::new()
        };
        if single && parts.len() > 1 {
            let code = src.code(c.line);
            for (a, z) in parts {
                let piece = code[a..z].to_string();
                let Some(op) = conjunct_op(&piece) else { continue };
                out.push(Found {
                    op,
                    line: c.line,
                    what: format!("`{piece}` -> TRUE"),
                    edits: vec![Edit {
                        line: c.line,
                        from: a,
                        to: z,
                        with: "TRUE".into(),
                    }],
                });
            }
            continue;
        }
        let trimmed = text.trim();
        let Some(op) = conjunct_op(trimmed) else { continue };
        out.push(Found {
            op,
            line: c.line,
            what: format!("`{}` -> TRUE", shorten(trimmed)),
            edits: replace_conjunct(src, &c),
        });
    }
    out
}

fn shorten(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// Whether the `=` at byte `i` of `code` defines a primed variable or an
/// EXCEPT path: syntax, not a comparison.
#[allow(clippy::needless_return)]
fn assigns(code: &str, i: usize) -> bool {
    let before = code[..i].trim_end();
    if before.ends_with('\'') {
        return true;
    }
    // `![e] =`, `!.f =`, `![a].f[b] =`: an EXCEPT path, a run of `[..]`
    // and `.field` after the last `!`.
    if let Some(bang) = before.rfind('!') {
        let mut path = before[bang + 1..].trim_end();
        let mut segments = 0;
        while !path.is_empty() {
            if let Some(rest) = path.strip_prefix('.') {
                let n = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                if n == 0 {
                    return false;
                }
                path = &rest[n..];
            } else if path.starts_with('[') {
                let mut depth = 0i32;
                let mut end = None;
                for (i, ch) in path.char_indices() {
                    match ch {
                        '[' => depth += 1,
                        ']' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(i);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let Some(e) = end else { return false };
                path = &path[e + 1..];
            } else {
                return false;
            }
            segments += 1;
        }
        return segments > 0;
    }
    false
}

/// Flip a comparison: every comparison in the definition's code but
/// Init's (whose `=` define the initial state) and primed definitions.
pub fn flip_compare(src: &Source, d: &Def) -> Vec<Found> {
    let mut out = Vec::new();
    if d.name == "Init" {
        return out;
    }
    for n in d.start..d.end {
        if harness(src, n) {
            continue;
        }
        let code = src.code(n);
        let mut i = if n == d.start {
            code.find("==").map_or(0, |k| k + 2)
        } else {
            0
        };
        while i < code.len() {
            if !src.is_code(n, i) {
                i += 1;
                continue;
            }
            let rest = &code[i..];
            if let Some(t) = NOT_COMPARE.iter().find(|t| rest.starts_with(**t)) {
                i += t.len();
                continue;
            }
            // `\/` and `/\` are junctions; `\#`-free.
            if rest.starts_with("\\/") || rest.starts_with("/\\") {
                i += 2;
                continue;
            }
            if let Some((t, to)) = FLIP.iter().find(|(t, _)| rest.starts_with(*t)) {
                if !(*t == "=" && assigns(&code, i)) {
                    out.push(Found {
                        op: Op::FlipCompare,
                        line: n,
                        what: format!("`{}` -> `{}` in `{}`", t, to, shorten(code.trim())),
                        edits: vec![Edit {
                            line: n,
                            from: i,
                            to: i + t.len(),
                            with: (*to).into(),
                        }],
                    });
                }
                i += t.len();
                continue;
            }
            i += 1;
        }
    }
    out
}

/// Shift a constant by one: every numeric literal, up and (if positive)
/// down.
pub fn shift_const(src: &Source, d: &Def) -> Vec<Found> {
    let mut out = Vec::new();
    for n in d.start..d.end {
        if harness(src, n) {
            continue;
        }
        let code = src.code(n);
        let b = code.as_bytes();
        let mut i = if n == d.start {
            code.find("==").map_or(0, |k| k + 2)
        } else {
            0
        };
        while i < b.len() {
            let word = |k: usize| b[k].is_ascii_alphanumeric() || b[k] == b'_';
            if b[i].is_ascii_digit() && src.is_code(n, i) && (i == 0 || !word(i - 1)) {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                if j < b.len() && word(j) {
                    i = j;
                    continue;
                }
                let lit = &code[i..j];
                if let Ok(v) = lit.parse::<u64>() {
                    let mut shifted = vec![v + 1];
                    if v > 0 {
                        shifted.push(v - 1);
                    }
                    for w in shifted {
                        out.push(Found {
                            op: Op::ShiftConst,
                            line: n,
                            what: format!("`{v}` -> `{w}` in `{}`", shorten(code.trim())),
                            edits: vec![Edit {
                                line: n,
                                from: i,
                                to: j,
                                with: w.to_string(),
                            }],
                        });
                    }
                }
                i = j;
                continue;
            }
            i += 1;
        }
    }
    out
}

/// The string labels of the spec that form a set literal `{"a", "b", ..}`
/// (a stage, an owner, an outcome), but the mutant switch's.
pub fn label_sets(src: &Source) -> Vec<Vec<String>> {
    let mut text = String::new();
    for n in 0..src.lines.len() {
        if harness(src, n) {
            text.push('\n');
            continue;
        }
        text.push_str(&src.code(n));
        text.push('\n');
    }
    let mut sets = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let inner = &after[..close];
        let items: Vec<&str> = inner.split(',').map(str::trim).collect();
        let labels = items.len() >= 2
            && items
                .iter()
                .all(|s| s.len() >= 2 && s.starts_with('"') && s.ends_with('"') && !s[1..s.len() - 1].contains('"'));
        if labels {
            let mut set: Vec<String> = items.iter().map(|s| s[1..s.len() - 1].to_string()).collect();
            set.sort();
            set.dedup();
            if !sets.contains(&set) {
                sets.push(set);
            }
        }
        rest = &after[close + 1..];
    }
    sets
}

/// Swap two steps: in an action, two labels of one set exchanged
/// everywhere in the action, so that it moves between its states in the
/// other order (or takes the other's branch).
pub fn swap_steps(src: &Source, d: &Def, sets: &[Vec<String>]) -> Vec<Found> {
    let mut out = Vec::new();
    if !d.action {
        return out;
    }
    // Every code occurrence of each label in the action.
    let mut at: Vec<(String, usize, usize)> = Vec::new();
    for n in d.start..d.end {
        if harness(src, n) {
            continue;
        }
        let line = &src.lines[n];
        let mut i = 0;
        while let Some(k) = line[i..].find('"') {
            let s = i + k;
            let Some(e) = line[s + 1..].find('"').map(|e| s + 1 + e) else { break };
            if src.class[n][s] == super::source::Class::Str {
                at.push((line[s + 1..e].to_string(), n, s));
            }
            i = e + 1;
        }
    }
    for set in sets {
        let here: Vec<&String> = set.iter().filter(|l| at.iter().any(|(a, ..)| a == *l)).collect();
        for x in 0..here.len() {
            for y in x + 1..here.len() {
                let (a, b) = (here[x], here[y]);
                let edits: Vec<Edit> = at
                    .iter()
                    .filter(|(l, ..)| l == a || l == b)
                    .map(|(l, n, s)| Edit {
                        line: *n,
                        from: *s,
                        to: s + l.len() + 2,
                        with: format!("\"{}\"", if l == a { b } else { a }),
                    })
                    .collect();
                let line = edits[0].line;
                out.push(Found {
                    op: Op::SwapSteps,
                    line,
                    what: format!("\"{a}\" <-> \"{b}\""),
                    edits,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::assigns;

    #[test]
    fn except_paths_and_primes_are_not_comparisons() {
        for (code, at) in [
            ("x' = 1", "x' ".len()),
            ("[c EXCEPT ![s].stage = 1, ![s].pend = 0]", "[c EXCEPT ![s].stage = 1, ![s].pend ".len()),
            ("[c EXCEPT ![s].stage = 1]", "[c EXCEPT ![s].stage ".len()),
            ("[c EXCEPT !.f[1] = 2]", "[c EXCEPT !.f[1] ".len()),
            ("[c EXCEPT ![a][b] = 2]", "[c EXCEPT ![a][b] ".len()),
        ] {
            assert_eq!(&code[at..at + 1], "=");
            assert!(assigns(code, at), "{code}");
        }
        let cmp = "IF ~ok THEN x = 1 ELSE y";
        assert!(!assigns(cmp, cmp.find('=').unwrap()));
        let after = "[c EXCEPT ![s] = 1] /\\ y = 2";
        assert!(!assigns(after, after.rfind('=').unwrap()));
    }
}
