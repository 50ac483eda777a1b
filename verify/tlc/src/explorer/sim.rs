//! A simulator trace of the ring (`ringlab sim ring --trace FILE`, the
//! harness's JSON lines) as a ringlab-trace/1, converted as the explorer
//! does on load.

use ringlab_sim::xsk_ring::trace_of;
use serde_json::{json, Map, Value};

use super::{Ring, RingTrace, Step, FORMAT};

const U32: u64 = 1 << 32;

/// `source` names the file in the trace.
pub fn from_sim(text: &str, source: &str) -> Result<RingTrace, String> {
    let t = trace_of(text.as_bytes()).map_err(|e| format!("{source}: {e}"))?;
    let h = ringlab_sim::xsk_ring::config::Header::from(t.header.config);
    let states = t
        .lines
        .iter()
        .map(|l| {
            let s = &l.state;
            let mut vars = Map::new();
            for (k, v) in s.counters() {
                vars.insert(k.into(), json!(v));
            }
            let slot = s
                .slot
                .iter()
                .zip(s.slot_ok.iter().chain(std::iter::repeat(&true)))
                .map(|(idx, ok)| json!({"idx": idx.map_or(U32, u64::from), "ok": ok}))
                .collect();
            vars.insert("slot".into(), Value::Array(slot));
            Step { num: l.step, action: l.action.clone(), vars, actor: None }
        })
        .collect();
    let mut extra = Map::new();
    extra.insert("name".into(), json!(h.ring));
    extra.insert("start".into(), json!(h.start));
    extra.insert("max_batch".into(), json!(h.max_batch));
    extra.insert("seed".into(), json!(h.seed));
    extra.insert("invalid_descs".into(), json!(h.invalid_descs));
    extra.insert("mutants".into(), json!(t.header.mutants));
    let mutants = &t.header.mutants;
    let mutants = if mutants.is_empty() { String::new() } else { format!(" [{}]", mutants.join(", ")) };
    Ok(RingTrace {
        format: FORMAT.into(),
        kind: "sim-trace".into(),
        title: format!("{} ring, seed {}{mutants}", h.ring, h.seed),
        source: source.into(),
        outcome: None,
        expected: None,
        ring: Some(Ring {
            size: u64::from(h.size),
            never: U32,
            prod_side: h.prod_side.clone(),
            cons_side: h.cons_side.clone(),
            extra,
        }),
        loop_end: None,
        states,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_the_explorer_fixture() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/test/fixtures/sim-tx-wrap.jsonl");
        let text = std::fs::read_to_string(path).unwrap();
        let t = from_sim(&text, "sim-tx-wrap.jsonl").unwrap();
        assert_eq!(t.kind, "sim-trace");
        assert_eq!(t.title, "tx ring, seed 3");
        let ring = t.ring.as_ref().unwrap();
        assert_eq!((ring.size, ring.never), (4, U32));
        assert_eq!(ring.extra["start"], json!(4294967290u64));
        assert_eq!(t.states[0].num, 0);
        assert_eq!(t.states[0].action, "Init");
        assert_eq!(t.states[0].vars["slot"][0], json!({"idx": U32, "ok": true}));
        assert_eq!(t.states[0].vars["prod"], json!(4294967290u64));
    }

    #[test]
    fn a_bad_file_names_itself() {
        let e = from_sim("{}\n", "x.jsonl").unwrap_err();
        assert!(e.starts_with("x.jsonl: "), "{e}");
    }
}
