//! Tokens of TLC's printed values, states and trace modules.

use std::fmt;

use super::ParseError;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Int(i64),
    Str(String),
    Ident(String),
    LBrack,
    RBrack,
    MapsTo,
    Comma,
    LParen,
    RParen,
    ColonGt,
    AtAt,
    LAngle,
    RAngle,
    LBrace,
    RBrace,
    And,
    Eq,
    DefEq,
    DotDot,
    /// `----` and longer
    Dashes,
    /// `====` and longer
    ModuleEnd,
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Tok::Int(i) => return write!(f, "integer {i}"),
            Tok::Str(s) => return write!(f, "string {s:?}"),
            Tok::Ident(s) => return write!(f, "`{s}`"),
            Tok::LBrack => "`[`",
            Tok::RBrack => "`]`",
            Tok::MapsTo => "`|->`",
            Tok::Comma => "`,`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::ColonGt => "`:>`",
            Tok::AtAt => "`@@`",
            Tok::LAngle => "`<<`",
            Tok::RAngle => "`>>`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::And => "`/\\`",
            Tok::Eq => "`=`",
            Tok::DefEq => "`==`",
            Tok::DotDot => "`..`",
            Tok::Dashes => "`----`",
            Tok::ModuleEnd => "`====`",
            Tok::Eof => "end of input",
        };
        f.write_str(s)
    }
}

/// A token and where it starts (1-based line and column).
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned {
    pub tok: Tok,
    pub line: usize,
    pub col: usize,
}

/// Split `text` into tokens; `first_line` is the line number of its start.
/// Skips whitespace, `\*` line comments and `(* *)` block comments.
pub fn lex(text: &str, first_line: usize) -> Result<Vec<Spanned>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut col) = (0, first_line, 1);
    let mut out = Vec::new();
    let err = |line, col, msg: String| ParseError { line, col, msg };
    let at = |i: usize| chars.get(i).copied();
    while i < chars.len() {
        let c = chars[i];
        let (tline, tcol) = (line, col);
        let run = |ch: char| chars[i..].iter().take_while(|&&x| x == ch).count();
        let (tok, len) = match c {
            '\n' => {
                i += 1;
                line += 1;
                col = 1;
                continue;
            }
            c if c.is_whitespace() => (None, 1),
            '\\' if at(i + 1) == Some('*') => {
                (None, chars[i..].iter().take_while(|&&x| x != '\n').count())
            }
            '(' if at(i + 1) == Some('*') => {
                let end = (i + 2..chars.len().saturating_sub(1))
                    .find(|&j| chars[j] == '*' && chars[j + 1] == ')')
                    .ok_or_else(|| err(tline, tcol, "unterminated comment `(*`".into()))?;
                (None, end + 2 - i)
            }
            '/' if at(i + 1) == Some('\\') => (Some(Tok::And), 2),
            '|' if at(i + 1) == Some('-') && at(i + 2) == Some('>') => (Some(Tok::MapsTo), 3),
            ':' if at(i + 1) == Some('>') => (Some(Tok::ColonGt), 2),
            '@' if at(i + 1) == Some('@') => (Some(Tok::AtAt), 2),
            '<' if at(i + 1) == Some('<') => (Some(Tok::LAngle), 2),
            '>' if at(i + 1) == Some('>') => (Some(Tok::RAngle), 2),
            '.' if at(i + 1) == Some('.') => (Some(Tok::DotDot), 2),
            '=' => match run('=') {
                1 => (Some(Tok::Eq), 1),
                2 => (Some(Tok::DefEq), 2),
                n if n >= 4 => (Some(Tok::ModuleEnd), n),
                _ => return Err(err(tline, tcol, "unexpected `===`".into())),
            },
            '-' if run('-') >= 4 => (Some(Tok::Dashes), run('-')),
            '[' => (Some(Tok::LBrack), 1),
            ']' => (Some(Tok::RBrack), 1),
            ',' => (Some(Tok::Comma), 1),
            '(' => (Some(Tok::LParen), 1),
            ')' => (Some(Tok::RParen), 1),
            '{' => (Some(Tok::LBrace), 1),
            '}' => (Some(Tok::RBrace), 1),
            '"' => {
                let (s, len) = lex_string(&chars[i..]).map_err(|m| err(tline, tcol, m))?;
                (Some(Tok::Str(s)), len)
            }
            c if c.is_ascii_digit()
                || (c == '-' && at(i + 1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let digits = 1 + chars[i + 1..]
                    .iter()
                    .take_while(|d| d.is_ascii_digit())
                    .count();
                let s: String = chars[i..i + digits].iter().collect();
                let v = s
                    .parse()
                    .map_err(|_| err(tline, tcol, format!("integer {s} out of range")))?;
                (Some(Tok::Int(v)), digits)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let n = chars[i..]
                    .iter()
                    .take_while(|d| d.is_ascii_alphanumeric() || **d == '_')
                    .count();
                (Some(Tok::Ident(chars[i..i + n].iter().collect())), n)
            }
            c => return Err(err(tline, tcol, format!("unexpected character {c:?}"))),
        };
        for &ch in &chars[i..i + len] {
            if ch == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
        }
        i += len;
        if let Some(tok) = tok {
            out.push(Spanned {
                tok,
                line: tline,
                col: tcol,
            });
        }
    }
    out.push(Spanned {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(out)
}

/// A string literal at the start of `chars`: its value and its length.
fn lex_string(chars: &[char]) -> Result<(String, usize), String> {
    let mut s = String::new();
    let mut i = 1;
    loop {
        match chars.get(i) {
            None | Some('\n') => return Err("unterminated string".into()),
            Some('"') => return Ok((s, i + 1)),
            Some('\\') => {
                let e = match chars.get(i + 1) {
                    Some('"') => '"',
                    Some('\\') => '\\',
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some('f') => '\u{c}',
                    other => {
                        return Err(format!(
                            "unknown escape \\{}",
                            other.map_or(String::new(), |c| c.to_string())
                        ))
                    }
                };
                s.push(e);
                i += 2;
            }
            Some(&c) => {
                s.push(c);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s, 1).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn punctuation_and_literals() {
        assert_eq!(
            toks(r#"/\ x = (0 :> [a |-> -1] @@ 1 :> "q\"") \* note"#),
            vec![
                Tok::And,
                Tok::Ident("x".into()),
                Tok::Eq,
                Tok::LParen,
                Tok::Int(0),
                Tok::ColonGt,
                Tok::LBrack,
                Tok::Ident("a".into()),
                Tok::MapsTo,
                Tok::Int(-1),
                Tok::RBrack,
                Tok::AtAt,
                Tok::Int(1),
                Tok::ColonGt,
                Tok::Str("q\"".into()),
                Tok::RParen,
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("S == ===="),
            vec![Tok::Ident("S".into()), Tok::DefEq, Tok::ModuleEnd, Tok::Eof]
        );
        assert_eq!(toks("(* c *) <<0..2>>").len(), 6);
    }

    #[test]
    fn positions_and_errors() {
        let t = lex("\n  x", 1).unwrap();
        assert_eq!((t[0].line, t[0].col), (2, 3));
        let e = lex("a\n b ?", 1).unwrap_err();
        assert_eq!((e.line, e.col), (2, 4));
        assert!(lex("\"abc", 1).unwrap_err().msg.contains("unterminated"));
    }
}
