//! A TLA+ module as the mutator reads it: which bytes are code (not
//! comment, not string), and the top-level definitions with their lines.

/// Column-0 words that end a definition.
const BOUNDARY: [&str; 10] = [
    "VARIABLE", "VARIABLES", "CONSTANT", "CONSTANTS", "ASSUME", "EXTENDS", "INSTANCE", "THEOREM",
    "----", "====",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Code,
    Comment,
    /// Inside a string literal, quotes included.
    Str,
}

pub struct Source {
    pub lines: Vec<String>,
    /// Per line, per byte.
    pub class: Vec<Vec<Class>>,
}

/// A top-level definition `Name(..) == body`: lines `start..end`.
#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    pub start: usize,
    pub end: usize,
    /// Its body primes a variable: an action.
    pub action: bool,
}

impl Source {
    pub fn new(text: &str) -> Source {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut class = Vec::with_capacity(lines.len());
        let mut block = 0usize;
        for l in &lines {
            let b = l.as_bytes();
            let mut c = vec![Class::Code; b.len()];
            let mut i = 0;
            let mut in_str = false;
            while i < b.len() {
                if block > 0 {
                    c[i] = Class::Comment;
                    if b[i..].starts_with(b"*)") {
                        c[i + 1] = Class::Comment;
                        block -= 1;
                        i += 2;
                        continue;
                    }
                    if b[i..].starts_with(b"(*") {
                        c[i + 1] = Class::Comment;
                        block += 1;
                        i += 2;
                        continue;
                    }
                    i += 1;
                } else if in_str {
                    c[i] = Class::Str;
                    if b[i] == b'\\' && i + 1 < b.len() {
                        c[i + 1] = Class::Str;
                        i += 2;
                        continue;
                    }
                    if b[i] == b'"' {
                        in_str = false;
                    }
                    i += 1;
                } else if b[i..].starts_with(b"\\*") {
                    c[i..].iter_mut().for_each(|x| *x = Class::Comment);
                    break;
                } else if b[i..].starts_with(b"(*") {
                    c[i] = Class::Comment;
                    c[i + 1] = Class::Comment;
                    block += 1;
                    i += 2;
                } else if b[i] == b'"' {
                    c[i] = Class::Str;
                    in_str = true;
                    i += 1;
                } else {
                    i += 1;
                }
            }
            class.push(c);
        }
        Source { lines, class }
    }

    /// Line `n` with comments blanked (strings kept).
    pub fn code(&self, n: usize) -> String {
        self.lines[n]
            .bytes()
            .zip(&self.class[n])
            .map(|(b, c)| if *c == Class::Comment { ' ' } else { b as char })
            .collect()
    }

    /// Whether byte `i` of line `n` is code.
    pub fn is_code(&self, n: usize, i: usize) -> bool {
        self.class[n].get(i) == Some(&Class::Code)
    }

    /// Column of the first code byte of line `n`, if it has code.
    pub fn indent(&self, n: usize) -> Option<usize> {
        let code = self.code(n);
        code.bytes().position(|b| b != b' ' && b != b'\t')
    }

    pub fn defs(&self) -> Vec<Def> {
        let mut defs: Vec<Def> = Vec::new();
        let mut open: Option<Def> = None;
        for n in 0..self.lines.len() {
            if self.indent(n) != Some(0) {
                continue;
            }
            let code = self.code(n);
            let word: String = code
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-' || *c == '=')
                .collect();
            let name = word.trim_end_matches(['-', '=']).to_string();
            let is_def = !name.is_empty()
                && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && !BOUNDARY.contains(&name.as_str())
                && code.contains("==");
            let is_boundary = BOUNDARY.iter().any(|w| code.starts_with(w)) || !is_def;
            if is_def || is_boundary {
                if let Some(mut d) = open.take() {
                    d.end = n;
                    defs.push(d);
                }
            }
            if is_def {
                open = Some(Def {
                    name,
                    start: n,
                    end: n + 1,
                    action: false,
                });
            }
        }
        if let Some(mut d) = open.take() {
            d.end = self.lines.len();
            defs.push(d);
        }
        for d in &mut defs {
            d.action = (d.start..d.end).any(|n| {
                let code = self.code(n);
                code.bytes()
                    .enumerate()
                    .any(|(i, b)| b == b'\'' && self.is_code(n, i))
            });
        }
        defs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "---- MODULE M ----\n\
EXTENDS Naturals\n\
VARIABLES x, y \\* two\n\
Init == x = 0 /\\ y = \"a\"\n\
(* a comment with x' = 1 *)\n\
Inc ==\n    /\\ x < 3 \\* guard x'\n    /\\ x' = x + 1\n    /\\ UNCHANGED y\n\
Inv == x <= 3\n\
====\n";

    #[test]
    fn definitions_and_actions() {
        let s = Source::new(M);
        let d = s.defs();
        let names: Vec<_> = d.iter().map(|d| (d.name.as_str(), d.start, d.end, d.action)).collect();
        assert_eq!(names, [("Init", 3, 5, false), ("Inc", 5, 9, true), ("Inv", 9, 10, false)]);
    }

    #[test]
    fn comments_and_strings_are_not_code() {
        let s = Source::new(M);
        assert!(!s.code(4).contains('\''));
        assert!(s.code(6).trim_end().ends_with("x < 3"));
        let i = s.lines[3].find('"').unwrap();
        assert!(!s.is_code(3, i) && !s.is_code(3, i + 1));
    }
}
