//! What the diagram needs of each state beyond its variables: the slot
//! owners (given, or derived from the counters) and what the step changed.

use std::collections::BTreeSet;

use serde_json::Value;

use ringlab_tlc::explorer::{RingTrace, Step};

pub const OWNERS: [&str; 5] = ["free", "written", "published", "read", "clobbered"];

pub struct StateView<'a> {
    pub step: &'a Step,
    pub own: Vec<String>,
    /// Variables whose value differs from the previous state's.
    pub changed: BTreeSet<String>,
    /// Slots whose entry or owner changed.
    pub slot_changed: BTreeSet<usize>,
}

pub fn views(t: &RingTrace) -> Vec<StateView<'_>> {
    let size = t.ring.as_ref().map_or(0, |r| r.size as usize);
    let mut out: Vec<StateView> = Vec::new();
    for s in &t.states {
        let own = match s.vars.get("own").and_then(Value::as_array) {
            Some(a) => a.iter().map(|o| o.as_str().unwrap_or("free").to_string()).collect(),
            None => derive_own(t, s),
        };
        let mut changed = BTreeSet::new();
        let mut slot_changed = BTreeSet::new();
        if let Some(p) = out.last() {
            let names: BTreeSet<&String> = p.step.vars.keys().chain(s.vars.keys()).collect();
            for k in names {
                if p.step.vars.get(k) != s.vars.get(k) {
                    changed.insert(k.clone());
                }
            }
            for k in 0..size {
                let entry = |st: &Step| st.vars.get("slot").and_then(|v| v.get(k)).cloned();
                if entry(p.step) != entry(s) || p.own.get(k) != own.get(k) {
                    slot_changed.insert(k);
                }
            }
        }
        out.push(StateView { step: s, own, changed, slot_changed });
    }
    out
}

/// The counter `name` of a state, if it is an integer.
pub fn int(s: &Step, name: &str) -> Option<u64> {
    s.vars.get(name).and_then(Value::as_u64)
}

/// `(a - b) mod m`.
pub fn sub(a: u64, b: u64, m: u64) -> u64 {
    (a % m + m - b % m) % m
}

/// Owners for a trace without `own` (assets/README.md, "Slot fill"):
/// position p stored in a slot is read if in [cons, cRd), published if in
/// [cons, prod), written if in [prod, pWr), else free.
pub fn derive_own(t: &RingTrace, s: &Step) -> Vec<String> {
    let Some(ring) = &t.ring else { return Vec::new() };
    let m = t.modulus();
    let within = |p: u64, lo: u64, hi: u64| sub(p, lo, m) < sub(hi, lo, m);
    (0..ring.size as usize)
        .map(|k| {
            let p = s.vars.get("slot").and_then(|v| v.get(k)).and_then(|e| e.get("idx")).and_then(Value::as_u64);
            let (Some(p), Some(cons)) = (p, int(s, "cons")) else { return "free" };
            if p == ring.never || p == m {
                return "free";
            }
            let (prod, wr) = (int(s, "prod"), int(s, "pWr"));
            if int(s, "cRd").is_some_and(|rd| within(p, cons, rd)) {
                "read"
            } else if prod.is_some_and(|pr| within(p, cons, pr)) {
                "published"
            } else if prod.zip(wr).is_some_and(|(pr, wr)| within(p, pr, wr)) {
                "written"
            } else {
                "free"
            }
        })
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_tlc::explorer::{Ring, FORMAT};
    use serde_json::{json, Map};

    fn step(num: u64, action: &str, vars: Value) -> Step {
        Step { num, action: action.into(), vars: vars.as_object().unwrap().clone(), actor: None }
    }

    fn trace(states: Vec<Step>) -> RingTrace {
        RingTrace {
            format: FORMAT.into(),
            kind: "sim-trace".into(),
            title: "t".into(),
            source: String::new(),
            outcome: None,
            expected: None,
            ring: Some(Ring { size: 4, never: 1 << 32, prod_side: "user".into(), cons_side: "kernel".into(), extra: Map::new() }),
            loop_end: None,
            states,
        }
    }

    #[test]
    fn owners_are_derived_across_the_wrap() {
        let m = 1u64 << 32;
        // cons = m-2: m-2 loaded (read), m-1 published, 0 written, slot 1 never stored
        let s = step(1, "Init", json!({
            "prod": 0, "cons": m - 2, "pWr": 1, "cRd": m - 1,
            "slot": [{"idx": 0, "ok": true}, {"idx": m, "ok": true}, {"idx": m - 2, "ok": true}, {"idx": m - 1, "ok": true}],
        }));
        let t = trace(vec![s]);
        assert_eq!(derive_own(&t, &t.states[0]), ["written", "free", "read", "published"]);
    }

    #[test]
    fn changes_are_per_variable_and_per_slot() {
        let a = step(1, "Init", json!({"prod": 0, "slot": [{"idx": 8, "ok": true}], "own": ["free"]}));
        let b = step(2, "ProdWrite", json!({"prod": 0, "slot": [{"idx": 0, "ok": true}], "own": ["written"]}));
        let mut t = trace(vec![a, b]);
        t.ring.as_mut().unwrap().size = 1;
        let v = views(&t);
        assert!(v[0].changed.is_empty());
        assert_eq!(v[1].changed.iter().collect::<Vec<_>>(), ["own", "slot"]);
        assert!(v[1].slot_changed.contains(&0));
        assert_eq!(v[1].own, ["written"]);
    }
}
