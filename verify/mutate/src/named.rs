//! The code of ringlab's named mutants: the blocks that run only when
//! `ringlab_mutant::on("mutant-…")` is true, which no build runs unless
//! RINGLAB_MUTANT names that mutant. A cargo-mutants edit inside one is
//! equivalent by construction (the tests never reach it), so the campaign
//! leaves it out instead of spending a whole test run on a certain survivor.
//!
//! Only what is surely dead is found: the then-block of an `if` (or the
//! arm of a match guard) whose condition is `ringlab_mutant::on(..)` joined
//! by `&&` and no `||`, and the else-block of `if !ringlab_mutant::on(..)`
//! alone. A mutant switch read through a variable is not followed.

const CALL: &str = "ringlab_mutant::on(";

/// A block's inside: from the character after `{` to `}` (1-based line
/// and character column, end exclusive), as cargo-mutants gives spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: (usize, usize),
    pub end: (usize, usize),
}

impl Span {
    /// Whether `[start, end)` lies within this block.
    pub fn holds(&self, start: (usize, usize), end: (usize, usize)) -> bool {
        start >= self.start && end <= self.end
    }
}

/// The mutant-only blocks of a Rust source text.
pub fn dead_blocks(text: &str) -> Vec<Span> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = Vec::with_capacity(chars.len());
    let (mut line, mut col) = (1, 1);
    for &c in &chars {
        pos.push((line, col));
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    let call: Vec<char> = CALL.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + call.len() <= chars.len() {
        if chars[i..i + call.len()] != call[..] {
            i += 1;
            continue;
        }
        if let Some(b) = block_of(&chars, i, i + call.len() - 1) {
            out.push(Span { start: pos[b.0 + 1], end: pos[b.1] });
        }
        i += call.len();
    }
    out
}

/// The dead block (indices of its `{` and `}`) of the call at `at`,
/// whose `(` is at `open`, if it surely has one.
fn block_of(c: &[char], at: usize, open: usize) -> Option<(usize, usize)> {
    let close = matching(c, open, '(', ')')?;
    // the condition's start: the nearest `if ` before the call on its line
    let line_start = c[..at].iter().rposition(|&x| x == '\n').map_or(0, |p| p + 1);
    let before: String = c[line_start..at].iter().collect();
    let if_at = before.rfind("if ").filter(|&k| k == 0 || !before.as_bytes()[k - 1].is_ascii_alphanumeric())?;
    let head = &before[if_at + 3..];
    let negated = head.trim_end().ends_with('!');
    // the rest of the condition, up to the block
    let mut k = close + 1;
    let mut depth = 0i32;
    let mut tail = String::new();
    while k < c.len() {
        match c[k] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' if depth == 0 => break,
            ';' | '}' if depth <= 0 => return None,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
        tail.push(c[k]);
        k += 1;
    }
    if k >= c.len() {
        return None;
    }
    let cond = format!("{head}{tail}");
    if cond.contains("||") {
        return None;
    }
    let then_end = matching(c, k, '{', '}')?;
    if !negated {
        let rest = tail.trim().trim_end_matches("=>").trim();
        let joined = rest.is_empty() || rest.starts_with("&&");
        let guard_ok = !tail.contains("=>") || tail.trim().ends_with("=>");
        return (joined && guard_ok && (head.trim().is_empty() || head.trim_end().ends_with("&&"))).then_some((k, then_end));
    }
    // `if !on(..) { live } else { dead }`: only the bare negation
    if head.trim() != "!" || !tail.trim().is_empty() {
        return None;
    }
    let mut e = then_end + 1;
    while e < c.len() && c[e].is_whitespace() {
        e += 1;
    }
    let rest: String = c[e..c.len().min(e + 6)].iter().collect();
    if !rest.starts_with("else") {
        return None;
    }
    let mut b = e + 4;
    while b < c.len() && c[b].is_whitespace() {
        b += 1;
    }
    (b < c.len() && c[b] == '{').then_some(())?;
    Some((b, matching(c, b, '{', '}')?))
}

/// The index of the bracket closing the one at `open`, skipping string
/// and character literals.
fn matching(c: &[char], open: usize, o: char, cl: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut k = open;
    while k < c.len() {
        match c[k] {
            '"' => {
                k += 1;
                while k < c.len() && c[k] != '"' {
                    k += if c[k] == '\\' { 2 } else { 1 };
                }
            }
            '\'' if k + 2 < c.len() && (c[k + 2] == '\'' || c[k + 1] == '\\') => {
                k += if c[k + 1] == '\\' { 3 } else { 2 };
            }
            x if x == o => depth += 1,
            x if x == cl => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead_lines(text: &str) -> Vec<usize> {
        let b = dead_blocks(text);
        (1..=text.lines().count())
            .filter(|&l| {
                let n = text.lines().nth(l - 1).unwrap().chars().count();
                n > 0 && b.iter().any(|s| s.holds((l, 1), (l, n + 1)))
            })
            .collect()
    }

    #[test]
    fn the_then_block_of_a_mutant_switch_is_dead() {
        let t = "fn add(a: u32, b: u32) -> u32 {\n    if ringlab_mutant::on(\"mutant-x\") {\n        return a + b;\n    }\n    a.wrapping_add(b)\n}\n";
        assert_eq!(dead_lines(t), vec![3]);
        let t = "let a = if ringlab_mutant::on(\"m\") {\n    1\n} else {\n    2\n};\n";
        assert_eq!(dead_lines(t), vec![2]);
        let t = "if x {\n} else if ringlab_mutant::on(\"m\") && y > 1 {\n    z();\n}\n";
        assert_eq!(dead_lines(t), vec![3]);
        let t = "match v {\n    Some(_) if ringlab_mutant::on(\"m\") => {\n        z();\n    }\n    _ => {}\n}\n";
        assert_eq!(dead_lines(t), vec![3]);
    }

    #[test]
    fn the_else_of_a_bare_negation_is_dead() {
        let t = "if !ringlab_mutant::on(\"m\") {\n    live();\n} else {\n    dead();\n}\n";
        assert_eq!(dead_lines(t), vec![4]);
        let t = "if !ringlab_mutant::on(\"m\") {\n    live();\n}\nafter();\n";
        assert_eq!(dead_lines(t), Vec::<usize>::new());
    }

    #[test]
    fn what_may_run_is_not_dead() {
        for t in [
            "if !other || ringlab_mutant::on(\"m\") {\n    live();\n}\n",
            "if ringlab_mutant::on(\"m\") || y {\n    live();\n}\n",
            "if !ringlab_mutant::on(\"m\") && y {\n    live();\n} else {\n    live();\n}\n",
            "let n = x * ringlab_mutant::on(\"m\") as u64;\nif n > 0 {\n    live();\n}\n",
            "let m = ringlab_mutant::on(\"m\");\nif m {\n    live();\n}\n",
            "if let (Some(c), false) = (o, ringlab_mutant::on(\"m\")) {\n    live();\n}\n",
        ] {
            assert_eq!(dead_lines(t), Vec::<usize>::new(), "{t}");
        }
    }

    #[test]
    fn the_repository_s_own_switches_are_found() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let t = std::fs::read_to_string(root.join("sim/ring/src/idx.rs")).unwrap();
        let l = t.lines().position(|l| l.trim() == "return a + b;").unwrap() + 1;
        let dead = dead_lines(&t);
        assert!(dead.contains(&l), "{dead:?}");
        let live = t.lines().position(|l| l.trim() == "a.wrapping_add(b)").unwrap() + 1;
        assert!(!dead.contains(&live), "{dead:?}");
    }

    #[test]
    fn nested_blocks_and_strings_do_not_end_it_early() {
        let t = "if ringlab_mutant::on(\"m\") {\n    let s = \"}\";\n    if a { b() }\n    c('}');\n}\nlive();\n";
        assert_eq!(dead_lines(t), vec![2, 3, 4]);
    }
}
