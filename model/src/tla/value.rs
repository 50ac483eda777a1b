//! TLA+ values as TLC prints them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Str(String),
    /// `[a |-> 1, b |-> "x"]`
    Record(BTreeMap<String, Value>),
    /// `(0 :> v @@ 1 :> w)`
    Func(BTreeMap<Value, Value>),
    /// `<<a, b>>`: a function with domain 1..n
    Seq(Vec<Value>),
    /// `{a, b}` or `lo..hi`
    Set(BTreeSet<Value>),
}

impl Value {
    /// A short name of the value's kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Str(_) => "a string",
            Value::Record(_) => "a record",
            Value::Func(_) => "a function",
            Value::Seq(_) => "a sequence",
            Value::Set(_) => "a set",
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_record(&self) -> Option<&BTreeMap<String, Value>> {
        match self {
            Value::Record(r) => Some(r),
            _ => None,
        }
    }

    pub fn as_set(&self) -> Option<&BTreeSet<Value>> {
        match self {
            Value::Set(s) => Some(s),
            _ => None,
        }
    }

    /// A function, a sequence (domain 1..n) or the empty set/sequence seen
    /// as a function.
    pub fn as_function(&self) -> Option<BTreeMap<Value, Value>> {
        match self {
            Value::Func(f) => Some(f.clone()),
            Value::Seq(s) => Some(
                s.iter()
                    .enumerate()
                    .map(|(i, v)| (Value::Int(i as i64 + 1), v.clone()))
                    .collect(),
            ),
            Value::Set(s) if s.is_empty() => Some(BTreeMap::new()),
            _ => None,
        }
    }
}

fn write_str_lit(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

fn write_list<'a, T: fmt::Display + 'a>(
    f: &mut fmt::Formatter<'_>,
    items: impl Iterator<Item = T>,
    sep: &str,
) -> fmt::Result {
    for (i, v) in items.enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

/// TLC's syntax, so the output parses back.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(true) => f.write_str("TRUE"),
            Value::Bool(false) => f.write_str("FALSE"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => write_str_lit(f, s),
            Value::Record(r) => {
                f.write_str("[")?;
                write_list(f, r.iter().map(|(k, v)| format!("{k} |-> {v}")), ", ")?;
                f.write_str("]")
            }
            Value::Func(m) if m.is_empty() => f.write_str("<<>>"),
            Value::Func(m) => {
                f.write_str("(")?;
                write_list(f, m.iter().map(|(k, v)| format!("{k} :> {v}")), " @@ ")?;
                f.write_str(")")
            }
            Value::Seq(s) => {
                f.write_str("<<")?;
                write_list(f, s.iter(), ", ")?;
                f.write_str(">>")
            }
            Value::Set(s) => {
                f.write_str("{")?;
                write_list(f, s.iter(), ", ")?;
                f.write_str("}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_tlc_syntax() {
        let rec = Value::Record(
            [
                ("ok".to_string(), Value::Bool(true)),
                ("idx".to_string(), Value::Int(-3)),
            ]
            .into(),
        );
        assert_eq!(rec.to_string(), "[idx |-> -3, ok |-> TRUE]");
        let f = Value::Func([(Value::Int(0), Value::Str("a\"b".into()))].into());
        assert_eq!(f.to_string(), "(0 :> \"a\\\"b\")");
        assert_eq!(
            Value::Seq(vec![Value::Int(1), Value::Int(2)]).to_string(),
            "<<1, 2>>"
        );
        assert_eq!(Value::Set(BTreeSet::new()).to_string(), "{}");
    }

    #[test]
    fn sequences_are_functions_on_1_to_n() {
        let s = Value::Seq(vec![Value::Str("x".into())]);
        let f = s.as_function().unwrap();
        assert_eq!(f.get(&Value::Int(1)), Some(&Value::Str("x".into())));
    }
}
