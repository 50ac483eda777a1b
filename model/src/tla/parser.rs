//! Recursive-descent parser of TLC's value syntax and of states written as
//! `/\ var = value` conjunction lists.

use std::collections::{BTreeMap, BTreeSet};

use super::lexer::{lex, Spanned, Tok};
use super::{ParseError, Value, Vars};

/// Intervals `lo..hi` larger than this are refused rather than expanded.
const MAX_INTERVAL: i64 = 1 << 16;

pub struct Parser {
    toks: Vec<Spanned>,
    pos: usize,
}

impl Parser {
    pub fn new(text: &str, first_line: usize) -> Result<Parser, ParseError> {
        Ok(Parser {
            toks: lex(text, first_line)?,
            pos: 0,
        })
    }

    pub fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    pub fn peek2(&self) -> &Tok {
        &self.toks[(self.pos + 1).min(self.toks.len() - 1)].tok
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// An error at the current token: "expected {what}, found {token}".
    pub fn expected(&self, what: &str) -> ParseError {
        let t = &self.toks[self.pos];
        ParseError {
            line: t.line,
            col: t.col,
            msg: format!("expected {what}, found {}", t.tok),
        }
    }

    pub fn expect(&mut self, tok: Tok) -> Result<(), ParseError> {
        if *self.peek() == tok {
            self.bump();
            Ok(())
        } else {
            Err(self.expected(&tok.to_string()))
        }
    }

    pub fn ident(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Tok::Ident(s) => {
                let s = s.clone();
                self.bump();
                Ok(s)
            }
            _ => Err(self.expected(what)),
        }
    }

    pub fn at_eof(&self) -> bool {
        *self.peek() == Tok::Eof
    }

    /// Items of `item` separated by `,` up to `close`.
    fn list<T>(
        &mut self,
        close: Tok,
        mut item: impl FnMut(&mut Parser) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        let mut out = Vec::new();
        if *self.peek() == close {
            self.bump();
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            match self.peek() {
                Tok::Comma => {
                    self.bump();
                }
                t if *t == close => {
                    self.bump();
                    return Ok(out);
                }
                _ => return Err(self.expected(&format!("`,` or {close}"))),
            }
        }
    }

    pub fn value(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        match self.bump() {
            Tok::Int(lo) if *self.peek() == Tok::DotDot => {
                self.bump();
                let hi = match *self.peek() {
                    Tok::Int(hi) => hi,
                    _ => return Err(self.expected("an integer after `..`")),
                };
                self.bump();
                if hi.saturating_sub(lo) > MAX_INTERVAL {
                    self.pos = start;
                    return Err(
                        self.expected(&format!("an interval of at most {MAX_INTERVAL} values"))
                    );
                }
                Ok(Value::Set((lo..=hi).map(Value::Int).collect()))
            }
            Tok::Int(i) => Ok(Value::Int(i)),
            Tok::Str(s) => Ok(Value::Str(s)),
            Tok::Ident(s) if s == "TRUE" => Ok(Value::Bool(true)),
            Tok::Ident(s) if s == "FALSE" => Ok(Value::Bool(false)),
            Tok::LBrack => self.record(),
            Tok::LParen => self.function_or_paren(),
            Tok::LAngle => Ok(Value::Seq(self.list(Tok::RAngle, Parser::value)?)),
            Tok::LBrace => {
                let items: BTreeSet<Value> =
                    self.list(Tok::RBrace, Parser::value)?.into_iter().collect();
                Ok(Value::Set(items))
            }
            _ => {
                self.pos = start;
                Err(self.expected("a value"))
            }
        }
    }

    fn record(&mut self) -> Result<Value, ParseError> {
        let fields = self.list(Tok::RBrack, |p| {
            let name = p.ident("a field name")?;
            p.expect(Tok::MapsTo)?;
            Ok((name, p.value()?))
        })?;
        let mut rec = BTreeMap::new();
        for (k, v) in fields {
            rec.entry(k).or_insert(v);
        }
        Ok(Value::Record(rec))
    }

    /// `(k :> v @@ ...)`, the left pair winning as in `@@`, or `(value)`.
    fn function_or_paren(&mut self) -> Result<Value, ParseError> {
        let first = self.value()?;
        if *self.peek() == Tok::RParen {
            self.bump();
            return Ok(first);
        }
        self.expect(Tok::ColonGt)
            .map_err(|_| self.expected("`:>` or `)`"))?;
        let mut f = BTreeMap::new();
        f.insert(first, self.value()?);
        loop {
            match self.peek() {
                Tok::RParen => {
                    self.bump();
                    return Ok(Value::Func(f));
                }
                Tok::AtAt => {
                    self.bump();
                    let k = self.value()?;
                    self.expect(Tok::ColonGt)?;
                    let v = self.value()?;
                    f.entry(k).or_insert(v);
                }
                _ => return Err(self.expected("`@@` or `)`")),
            }
        }
    }

    /// True if the next tokens start a conjunct `/\ x =` or `x =`.
    pub fn at_conjunct(&self) -> bool {
        matches!(self.peek(), Tok::And)
            || matches!((self.peek(), self.peek2()), (Tok::Ident(_), Tok::Eq))
    }

    /// `/\ var = value` conjuncts while they continue (the first `/\` may be
    /// missing when there is a single variable).
    pub fn state(&mut self) -> Result<Vars, ParseError> {
        let mut vars = Vars::new();
        if !self.at_conjunct() {
            return Err(self.expected("`/\\ variable = value`"));
        }
        while self.at_conjunct() {
            if *self.peek() == Tok::And {
                self.bump();
            }
            let at = self.pos;
            let name = self.ident("a variable name")?;
            self.expect(Tok::Eq)?;
            let v = self.value()?;
            if vars.insert(name.clone(), v).is_some() {
                self.pos = at;
                return Err(self.expected(&format!("a variable other than `{name}` (given twice)")));
            }
        }
        Ok(vars)
    }

    pub fn end(&self) -> Result<(), ParseError> {
        if self.at_eof() {
            Ok(())
        } else {
            Err(self.expected("end of input"))
        }
    }
}

/// Parse one value, e.g. `[a |-> 1, b |-> (0 :> "x")]`.
pub fn parse_value(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser::new(text, 1)?;
    let v = p.value()?;
    p.end()?;
    Ok(v)
}

/// Parse a state printed as `/\ var = value` lines.
pub fn parse_state(text: &str) -> Result<Vars, ParseError> {
    let mut p = Parser::new(text, 1)?;
    let s = p.state()?;
    p.end()?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> Value {
        Value::Int(i)
    }

    #[test]
    fn scalars() {
        assert_eq!(parse_value("-12").unwrap(), int(-12));
        assert_eq!(parse_value(" TRUE ").unwrap(), Value::Bool(true));
        assert_eq!(
            parse_value("\"kernel\"").unwrap(),
            Value::Str("kernel".into())
        );
        assert_eq!(parse_value("(3)").unwrap(), int(3));
    }

    #[test]
    fn composites() {
        let r = parse_value("[ok |-> TRUE, pos |-> 0]").unwrap();
        assert_eq!(r.as_record().unwrap()["pos"], int(0));
        let f = parse_value("(0 :> \"free\" @@ 1 :> \"read\" @@ 0 :> \"x\")").unwrap();
        let f = f.as_function().unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[&int(0)], Value::Str("free".into()), "left of @@ wins");
        assert_eq!(
            parse_value("<<1, <<>>, {}>>")
                .unwrap()
                .as_function()
                .unwrap()
                .len(),
            3
        );
        let s = parse_value("{\"B\", \"A\", \"B\"}").unwrap();
        assert_eq!(s.as_set().unwrap().len(), 2);
        assert_eq!(parse_value("0..3").unwrap().as_set().unwrap().len(), 4);
    }

    #[test]
    fn round_trips_display() {
        let text = "[a |-> (0 :> <<1, -2>> @@ 1 :> {FALSE, TRUE}), b |-> \"x\\\\y\"]";
        let v = parse_value(text).unwrap();
        assert_eq!(parse_value(&v.to_string()).unwrap(), v);
        assert_eq!(v.to_string(), text);
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = parse_value("[a |-> 1,\n b 2]").unwrap_err();
        assert_eq!((e.line, e.col), (2, 4));
        assert_eq!(e.msg, "expected `|->`, found integer 2");
        let e = parse_value("(0 :> 1 1)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1, column 9: expected `@@` or `)`, found integer 1"
        );
        assert!(parse_value("<<1, 2")
            .unwrap_err()
            .msg
            .contains("end of input"));
        assert!(parse_value("1 2")
            .unwrap_err()
            .msg
            .starts_with("expected end of input"));
        assert!(parse_value("foo")
            .unwrap_err()
            .msg
            .starts_with("expected a value"));
    }

    #[test]
    fn states() {
        let s = parse_state(
            "/\\ prod = 4\n/\\ own = (0 :> \"free\")\n/\\ last = [pos |-> 0,\n   some |-> FALSE]\n",
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s["prod"], int(4));
        assert_eq!(parse_state("x = 1").unwrap()["x"], int(1));
        let e = parse_state("/\\ x = 1\n/\\ x = 2").unwrap_err();
        assert_eq!((e.line, e.col), (2, 4));
        assert!(parse_state("/\\ x 1")
            .unwrap_err()
            .msg
            .contains("expected `=`"));
    }
}
