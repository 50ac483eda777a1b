//! A trace of specs/XskCopyTx.tla as an Apalache ITF document
//! (https://apalache-mc.org/docs/adr/015adr-trace.html): sets as
//! `{"#set": [...]}`, functions as `{"#map": [[k, v], ...]}`, sequences
//! as arrays, records as objects, integers as numbers (`{"#bigint": ...}`
//! past 2^53), model values (frames, sockets, Placeholder) as strings.

use serde_json::{json, Map, Value};

use super::config::Config;
use super::state::{Call, Desc, Frame, Skb, State};
use super::tla::Names;

/// The spec's variables, in the order of its `vars`.
pub const VARS: [&str; 10] = ["free", "tx", "cq", "resv", "flight", "call", "part", "drain", "pubd", "rewound"];

/// An integer: a number, or `{"#bigint": "..."}` where JSON numbers lose
/// precision.
pub fn int(n: i64) -> Value {
    if n.unsigned_abs() < 1 << 53 {
        json!(n)
    } else {
        json!({ "#bigint": n.to_string() })
    }
}

fn set(items: impl Iterator<Item = Value>) -> Value {
    json!({ "#set": items.collect::<Vec<_>>() })
}

/// A function of the sockets.
fn per_socket<T>(n: &Names, v: &[T], item: impl Fn(&T) -> Value) -> Value {
    let pairs: Vec<Value> = v.iter().enumerate().map(|(s, x)| json!([n.sock(s as u8), item(x)])).collect();
    json!({ "#map": pairs })
}

fn desc(n: &Names, d: &Desc) -> Value {
    json!({ "addr": n.frame(d.addr), "ok": d.ok, "contd": d.contd })
}

fn skb(n: &Names, k: &Skb) -> Value {
    let addrs: Vec<String> = k.addrs.iter().map(|f| n.frame(*f)).collect();
    json!({ "sock": n.sock(k.sock), "addrs": addrs, "contd": k.contd })
}

fn call(n: &Names, c: &Call) -> Value {
    let batch: Vec<Value> = c.batch.iter().map(|d| desc(n, d)).collect();
    json!({ "stage": c.stage.id(), "done": int(c.done), "pend": int(c.pend), "batch": batch, "snap": int(c.snap as i64) })
}

/// One state: each variable by name.
pub fn state(cfg: &Config, s: &State) -> Map<String, Value> {
    let n = Names(cfg);
    let frames = |fs: &[Frame]| Value::Array(fs.iter().map(|f| json!(n.frame(*f))).collect());
    let flag = |b: &bool| json!(b);
    let vals = [
        set(s.free.iter().map(|f| json!(n.frame(*f)))),
        per_socket(&n, &s.tx, |q| Value::Array(q.iter().map(|d| desc(&n, d)).collect())),
        frames(&s.cq),
        Value::Array(s.resv.iter().map(|r| json!(n.slot(r))).collect()),
        set(s.flight.iter().map(|k| skb(&n, k))),
        per_socket(&n, &s.call, |c| call(&n, c)),
        per_socket(&n, &s.part, |p| frames(p)),
        per_socket(&n, &s.drain, flag),
        per_socket(&n, &s.pubd, flag),
        per_socket(&n, &s.rewound, flag),
    ];
    VARS.iter().map(|v| v.to_string()).zip(vals).collect()
}

/// The ITF document of `states` under `cfg`; `meta` goes into the
/// document's `#meta`, `step(k)` (if any) into state k's beside its index.
pub fn document(cfg: &Config, states: &[State], meta: Value, step: impl Fn(usize) -> Option<Value>) -> Value {
    let mut head = json!({
        "format": "ITF",
        "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
        "source": "specs/XskCopyTx.tla",
    });
    if let (Some(h), Value::Object(m)) = (head.as_object_mut(), meta) {
        h.extend(m);
    }
    let states: Vec<Value> = states
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let mut m = json!({ "index": k });
            if let (Some(o), Some(Value::Object(extra))) = (m.as_object_mut(), step(k)) {
                o.extend(extra);
            }
            let mut obj = Map::new();
            obj.insert("#meta".into(), m);
            obj.extend(state(cfg, s));
            Value::Object(obj)
        })
        .collect();
    json!({ "#meta": head, "vars": VARS, "states": states })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_tx::{Action, TxResult};

    #[test]
    fn a_trace_is_written_in_itf() {
        let cfg = Config::design_b();
        let s0 = State::init(&cfg);
        let s1 = s0.step(&cfg, &Action::UserSubmit { s: 1, f: 2, ok: true, contd: false }).unwrap();
        let s2 = s1.step(&cfg, &Action::Sendto { s: 1 }).unwrap().step(&cfg, &Action::XmitReserve { s: 1 }).unwrap();
        let s3 = s2.step(&cfg, &Action::XmitSend { s: 1, o: TxResult::Sent }).unwrap();
        let doc = document(&cfg, &[s0, s1, s3], json!({"description": "test"}), |k| (k == 1).then(|| json!({"action": "UserSubmit"})));
        assert_eq!(doc["#meta"]["format"], "ITF");
        assert_eq!(doc["#meta"]["description"], "test");
        assert_eq!(doc["vars"].as_array().unwrap().len(), 10);
        let st = &doc["states"];
        assert_eq!(st[0]["#meta"]["index"], 0);
        assert_eq!(st[0]["free"], json!({"#set": ["f1", "f2", "f3"]}));
        assert_eq!(st[1]["#meta"], json!({"index": 1, "action": "UserSubmit"}));
        assert_eq!(st[1]["tx"]["#map"][1], json!(["s2", [{"addr": "f3", "ok": true, "contd": false}]]));
        assert_eq!(st[2]["flight"], json!({"#set": [{"sock": "s2", "addrs": ["f3"], "contd": false}]}));
        assert_eq!(st[2]["call"]["#map"][1][1]["done"], 1);
        assert_eq!(st[2]["resv"], json!(["Placeholder"]));
        assert_eq!(st[0]["drain"], json!({"#map": [["s1", false], ["s2", false]]}));
        assert_eq!(int(1 << 60), json!({"#bigint": (1i64 << 60).to_string()}));
        assert_eq!(int(-5), json!(-5));
    }
}
