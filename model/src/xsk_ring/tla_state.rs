//! A State to and from the spec's variables as TLA+ values.

use std::collections::BTreeMap;
use std::fmt;

use super::state::{Entry, Load, Own, State};
use crate::tla::{Value, Vars};

/// The spec's variable names, in the order of `vars`.
pub const VARIABLES: [&str; 16] = [
    "prod", "cons", "slot", "own", "pProd", "pCons", "pWr", "pAhead", "cProd", "cCons", "cRd",
    "cEnd", "cValid", "cSpec", "cExp", "last",
];

/// A TLA+ state that is not a State: which variable, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FromTlaError {
    pub var: String,
    pub msg: String,
}

impl fmt::Display for FromTlaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variable `{}`: {}", self.var, self.msg)
    }
}

impl std::error::Error for FromTlaError {}

type Res<T> = Result<T, String>;

fn nat(v: &Value) -> Res<u64> {
    match v.as_int() {
        Some(i) if i >= 0 => Ok(i as u64),
        _ => Err(format!("expected a natural number, found {v}")),
    }
}

fn boolean(v: &Value) -> Res<bool> {
    v.as_bool()
        .ok_or_else(|| format!("expected TRUE or FALSE, found {v}"))
}

/// The fields of a record with exactly these names.
fn fields<'a>(v: &'a Value, names: &[&str]) -> Res<Vec<&'a Value>> {
    let rec = v
        .as_record()
        .ok_or_else(|| format!("expected a record, found {}", v.kind()))?;
    if let Some(extra) = rec.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(format!("unexpected field `{extra}`"));
    }
    names
        .iter()
        .map(|n| rec.get(*n).ok_or_else(|| format!("missing field `{n}`")))
        .collect()
}

fn field<T>(name: &str, v: &Value, f: impl Fn(&Value) -> Res<T>) -> Res<T> {
    f(v).map_err(|e| format!("field `{name}`: {e}"))
}

fn entry(v: &Value) -> Res<Entry> {
    let f = fields(v, &["idx", "ok"])?;
    Ok(Entry {
        idx: field("idx", f[0], nat)?,
        ok: field("ok", f[1], boolean)?,
    })
}

fn own(v: &Value) -> Res<Own> {
    v.as_str()
        .and_then(Own::from_id)
        .ok_or_else(|| format!("expected a slot owner string, found {v}"))
}

fn load(v: &Value) -> Res<Load> {
    let f = fields(v, &["pos", "val", "ok", "pub", "exp", "some"])?;
    Ok(Load {
        pos: field("pos", f[0], nat)?,
        val: field("val", f[1], nat)?,
        ok: field("ok", f[2], boolean)?,
        published: field("pub", f[3], boolean)?,
        exp: field("exp", f[4], nat)?,
        some: field("some", f[5], boolean)?,
    })
}

/// A function on 0..n-1, as a vector.
fn per_slot<T>(v: &Value, item: impl Fn(&Value) -> Res<T>) -> Res<Vec<T>> {
    let f = v
        .as_function()
        .ok_or_else(|| format!("expected a function on Slots, found {}", v.kind()))?;
    f.iter()
        .enumerate()
        .map(|(i, (k, x))| {
            if *k != Value::Int(i as i64) {
                return Err(format!(
                    "expected a function on 0..{}, found key {k}",
                    f.len() - 1
                ));
            }
            item(x).map_err(|e| format!("slot {i}: {e}"))
        })
        .collect()
}

fn int(i: u64) -> Value {
    Value::Int(i as i64)
}

fn record(pairs: &[(&str, Value)]) -> Value {
    Value::Record(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn load_value(l: &Load) -> Value {
    record(&[
        ("pos", int(l.pos)),
        ("val", int(l.val)),
        ("ok", Value::Bool(l.ok)),
        ("pub", Value::Bool(l.published)),
        ("exp", int(l.exp)),
        ("some", Value::Bool(l.some)),
    ])
}

fn slots<T>(items: &[T], f: impl Fn(&T) -> Value) -> Value {
    Value::Func(
        items
            .iter()
            .enumerate()
            .map(|(i, x)| (int(i as u64), f(x)))
            .collect(),
    )
}

impl State {
    /// The State a parsed TLA+ state describes.
    pub fn from_tla(vars: &Vars) -> Result<State, FromTlaError> {
        if let Some(extra) = vars.keys().find(|k| !VARIABLES.contains(&k.as_str())) {
            return Err(FromTlaError {
                var: extra.clone(),
                msg: "not a variable of XskRing".into(),
            });
        }
        let get = |name: &str| {
            vars.get(name).ok_or_else(|| FromTlaError {
                var: name.into(),
                msg: "missing".into(),
            })
        };
        fn conv<T>(name: &str, v: &Value, f: impl Fn(&Value) -> Res<T>) -> Result<T, FromTlaError> {
            f(v).map_err(|msg| FromTlaError {
                var: name.into(),
                msg,
            })
        }
        let n = |name: &str| conv(name, get(name)?, nat);
        let s = State {
            prod: n("prod")?,
            cons: n("cons")?,
            slot: conv("slot", get("slot")?, |v| per_slot(v, entry))?,
            own: conv("own", get("own")?, |v| per_slot(v, own))?,
            p_prod: n("pProd")?,
            p_cons: n("pCons")?,
            p_wr: n("pWr")?,
            p_ahead: conv("pAhead", get("pAhead")?, boolean)?,
            c_prod: n("cProd")?,
            c_cons: n("cCons")?,
            c_rd: n("cRd")?,
            c_end: n("cEnd")?,
            c_valid: n("cValid")?,
            c_spec: conv("cSpec", get("cSpec")?, load)?,
            c_exp: n("cExp")?,
            last: conv("last", get("last")?, load)?,
        };
        if s.own.len() != s.slot.len() {
            return Err(FromTlaError {
                var: "own".into(),
                msg: format!("has {} slots but slot has {}", s.own.len(), s.slot.len()),
            });
        }
        Ok(s)
    }

    /// The spec's variables as TLA+ values.
    pub fn to_tla(&self) -> Vars {
        let entries = slots(&self.slot, |e| {
            record(&[("idx", int(e.idx)), ("ok", Value::Bool(e.ok))])
        });
        let pairs = [
            ("prod", int(self.prod)),
            ("cons", int(self.cons)),
            ("slot", entries),
            ("own", slots(&self.own, |o| Value::Str(o.id().into()))),
            ("pProd", int(self.p_prod)),
            ("pCons", int(self.p_cons)),
            ("pWr", int(self.p_wr)),
            ("pAhead", Value::Bool(self.p_ahead)),
            ("cProd", int(self.c_prod)),
            ("cCons", int(self.c_cons)),
            ("cRd", int(self.c_rd)),
            ("cEnd", int(self.c_end)),
            ("cValid", int(self.c_valid)),
            ("cSpec", load_value(&self.c_spec)),
            ("cExp", int(self.c_exp)),
            ("last", load_value(&self.last)),
        ];
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<BTreeMap<_, _>>()
    }

    /// The variables whose values differ, with both values in TLC syntax.
    pub fn diff(&self, other: &State) -> Vec<(&'static str, String, String)> {
        let (a, b) = (self.to_tla(), other.to_tla());
        VARIABLES
            .iter()
            .filter(|v| a[**v] != b[**v])
            .map(|v| (*v, a[*v].to_string(), b[*v].to_string()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tla::{parse_state, parse_trace_module};
    use crate::xsk_ring::config::Config;

    const TLC_STATE: &str = r#"/\ prod = 1
/\ cCons = 0
/\ cons = 0
/\ cRd = 0
/\ slot = (0 :> [idx |-> 0, ok |-> FALSE] @@ 1 :> [idx |-> 8, ok |-> TRUE])
/\ pWr = 1
/\ cSpec = [ok |-> TRUE, pos |-> 0, val |-> 0, pub |-> TRUE, exp |-> 0, some |-> FALSE]
/\ own = (0 :> "published" @@ 1 :> "free")
/\ pAhead = FALSE
/\ cValid = 0
/\ pProd = 1
/\ last = [ok |-> TRUE, pos |-> 0, val |-> 0, pub |-> TRUE, exp |-> 0, some |-> FALSE]
/\ cExp = 0
/\ pCons = 2
/\ cEnd = 0
/\ cProd = 0
"#;

    #[test]
    fn tlc_state_converts_and_round_trips() {
        let vars = parse_state(TLC_STATE).unwrap();
        let s = State::from_tla(&vars).unwrap();
        assert_eq!(s.slot[0], Entry { idx: 0, ok: false });
        assert_eq!(s.own, vec![Own::Published, Own::Free]);
        assert_eq!(s.c_spec, Load::NONE);
        assert_eq!(s.to_tla(), vars);
        let dump = format!("---- MODULE t ----\nSTATE_1 ==\n{TLC_STATE}\n====\n");
        assert_eq!(
            State::from_tla(&parse_trace_module(&dump).unwrap()[0]).unwrap(),
            s
        );
    }

    #[test]
    fn errors_name_the_variable() {
        let vars = parse_state(TLC_STATE).unwrap();
        let with = |name: &str, text: &str| {
            let mut v = vars.clone();
            v.insert(name.into(), crate::tla::parse_value(text).unwrap());
            State::from_tla(&v).unwrap_err().to_string()
        };
        assert_eq!(
            with("pWr", "-1"),
            "variable `pWr`: expected a natural number, found -1"
        );
        assert_eq!(
            with("pAhead", "1"),
            "variable `pAhead`: expected TRUE or FALSE, found 1"
        );
        assert_eq!(
            with("own", "(0 :> \"lost\" @@ 1 :> \"free\")"),
            "variable `own`: slot 0: expected a slot owner string, found \"lost\""
        );
        assert_eq!(
            with("last", "[pos |-> 0]"),
            "variable `last`: missing field `val`"
        );
        assert_eq!(
            with("slot", "(1 :> [idx |-> 0, ok |-> TRUE])"),
            "variable `slot`: expected a function on 0..0, found key 1"
        );
        assert_eq!(
            with("own", "(0 :> \"free\")"),
            "variable `own`: has 1 slots but slot has 2"
        );
        assert_eq!(
            with("extra", "1"),
            "variable `extra`: not a variable of XskRing"
        );
        let mut v = vars.clone();
        v.remove("cExp");
        assert_eq!(
            State::from_tla(&v).unwrap_err().to_string(),
            "variable `cExp`: missing"
        );
    }

    #[test]
    fn diff_lists_changed_variables() {
        let cfg = Config::fill();
        let a = State::init(&cfg, 0);
        let b = a.prod_reserve(&cfg, 1).unwrap();
        assert_eq!(
            a.diff(&b),
            vec![("pProd", "0".to_string(), "1".to_string())]
        );
    }
}
