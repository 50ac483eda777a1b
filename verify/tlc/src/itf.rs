//! Any TLC counterexample as an Apalache ITF document
//! (https://apalache-mc.org/docs/adr/015adr-trace.html), for other TLA+
//! tools: sets as `{"#set": [...]}`, functions as `{"#map": [[k, v]]}`,
//! sequences as arrays, records as objects, integers as numbers (or
//! `{"#bigint": "..."}` past 2^53), model values as their names, the same
//! conventions as the copy-TX model's own export (model/src/copy_tx/itf.rs).

use ringlab_model::tla::{parse_value, Value};
use serde_json::{json, Map, Value as Json};

use crate::TraceState;

/// One TLA+ value, as TLC printed it, in ITF; None if it does not parse.
pub fn value(text: &str) -> Option<Json> {
    parse_value(&quote_model_values(text)).ok().map(|v| to_itf(&v))
}

fn to_itf(v: &Value) -> Json {
    match v {
        Value::Bool(b) => json!(b),
        Value::Int(n) if n.unsigned_abs() < 1 << 53 => json!(n),
        Value::Int(n) => json!({ "#bigint": n.to_string() }),
        Value::Str(s) => json!(s),
        Value::Record(r) => Json::Object(r.iter().map(|(k, x)| (k.clone(), to_itf(x))).collect()),
        Value::Func(f) => json!({ "#map": f.iter().map(|(k, x)| json!([to_itf(k), to_itf(x)])).collect::<Vec<_>>() }),
        Value::Seq(xs) => Json::Array(xs.iter().map(to_itf).collect()),
        Value::Set(xs) => json!({ "#set": xs.iter().map(to_itf).collect::<Vec<_>>() }),
    }
}

/// The trace: `#meta` names the source and the outcome; each state has
/// every variable and a `#meta` with its index and the action that led
/// to it. Err names the first value that does not parse.
pub fn trace(trace: &[TraceState], source: &str, outcome: &str) -> Result<Json, String> {
    let vars: Vec<String> = trace.first().map(|s| s.vars.iter().map(|(k, _)| k.clone()).collect()).unwrap_or_default();
    let mut states = Vec::new();
    for (i, st) in trace.iter().enumerate() {
        let mut m = Map::new();
        m.insert("#meta".into(), json!({ "index": i, "action": st.action }));
        for (k, text) in &st.vars {
            let v = value(text).ok_or_else(|| format!("state {}: variable {k}: `{text}` is not a TLA+ value ringlab reads", st.num))?;
            m.insert(k.clone(), v);
        }
        states.push(Json::Object(m));
    }
    Ok(json!({
        "#meta": { "format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html", "source": source, "description": outcome },
        "vars": vars,
        "states": states,
    }))
}

/// `{f1, f2}` -> `{"f1", "f2"}`: TLC prints model values bare; field
/// names (before `|->`), TRUE, FALSE and strings are left alone.
pub fn quote_model_values(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            let j = chars[i + 1..].iter().position(|&d| d == '"').map_or(chars.len(), |p| i + 1 + p + 1);
            out.extend(&chars[i..j.min(chars.len())]);
            i = j;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let j = chars[i..].iter().position(|d| !(d.is_ascii_alphanumeric() || *d == '_')).map_or(chars.len(), |p| i + p);
            let word: String = chars[i..j].iter().collect();
            let rest: String = chars[j..].iter().collect();
            if word == "TRUE" || word == "FALSE" || rest.trim_start().starts_with("|->") {
                out.push_str(&word);
            } else {
                out.push('"');
                out.push_str(&word);
                out.push('"');
            }
            i = j;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_itf() {
        assert_eq!(value("{f2, f3}"), Some(json!({ "#set": ["f2", "f3"] })));
        assert_eq!(value("(s1 :> <<[addr |-> f1, ok |-> TRUE]>>)"), Some(json!({ "#map": [["s1", [{ "addr": "f1", "ok": true }]]] })));
        assert_eq!(value("<<Placeholder, 9007199254740993>>"), Some(json!(["Placeholder", { "#bigint": "9007199254740993" }])));
        assert_eq!(value("[stage |-> \"idle\"]"), Some(json!({ "stage": "idle" })));
        assert_eq!(value("<<"), None);
    }

    #[test]
    fn a_trace_has_every_variable_in_every_state() {
        let st = |num: usize, action: &str, free: &str| TraceState { num, action: action.into(), vars: vec![("free".into(), free.into()), ("cq".into(), "<<>>".into())] };
        let t = trace(&[st(1, "Initial predicate", "{f1}"), st(2, "UserSubmit", "{}")], "specs/mc/X.cfg", "violation:Inv").unwrap();
        assert_eq!(t["vars"], json!(["free", "cq"]));
        assert_eq!(t["states"][1]["free"], json!({ "#set": [] }));
        assert_eq!(t["states"][1]["#meta"], json!({ "index": 1, "action": "UserSubmit" }));
        let bad = trace(&[st(1, "Init", "{f1")], "s", "o").unwrap_err();
        assert!(bad.contains("variable free") && bad.contains("{f1"), "{bad}");
    }
}
