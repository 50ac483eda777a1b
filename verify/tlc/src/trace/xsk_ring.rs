//! The simulator's ring traces checked by TLC: a trace of `ringlab sim
//! ring --trace FILE` (the harness's JSON lines) is a behaviour of
//! specs/XskRing.tla iff TLC finds it through specs/XskRingTrace.tla. The
//! log names each step's action; the counters are reduced modulo
//! 2^IdxBits and a never-stored slot is -1. The path is validate.rs's;
//! what is this spec's own is below.

use std::path::Path;

use serde_json::Value;

use ringlab_sim::harness::Line;
use ringlab_sim::xsk_ring::{RingTrace, SimConfig, State, XskRing};

use crate::trace::{self as path, SpecTrace, TraceSpec};
pub use crate::trace::{TraceError, Verdict};
use crate::Tlc;

/// The generated module's name.
pub const MODULE: &str = "MCXskRingTrace";

/// The smallest IdxBits with 2^IdxBits >= 4 * size. Reducing the u32
/// counters modulo 2^IdxBits is sound: it divides 2^32, and every distance
/// the protocol compares is at most size.
pub fn idx_bits(size: u32) -> u32 {
    let mut bits = 1;
    while (1u64 << bits) < 4 * size as u64 {
        bits += 1;
    }
    bits
}

fn tla_bool(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// XskRing's traces: a log line per step, its action and the observed
/// variables; no model values.
pub struct RingTraceSpec;

impl SpecTrace for RingTraceSpec {
    type Config = SimConfig;
    type State = Line<State>;
    const FILES: TraceSpec = TraceSpec {
        spec: "XskRing",
        module: MODULE,
        runs: "ring-trace",
    };

    /// The trace's ring, all barriers, no mutant.
    fn constants(c: &SimConfig) -> String {
        let k = c.kind;
        format!(
            "CONSTANTS\n    Size = {}\n    IdxBits = {}\n    ProdSide = \"{}\"\n    ConsSide = \"{}\"\n    MaxBatch = {}\n    Barriers = {{\"A\", \"B\", \"C\", \"D\"}}\n    InvalidDescs = {}\n    CopyTx = FALSE\n    Mutant = \"none\"\n",
            c.size,
            idx_bits(c.size),
            k.prod_side().name(),
            k.cons_side().name(),
            c.max_batch,
            tla_bool(k.invalid_descs())
        )
    }
    fn check_config(c: &SimConfig) -> Result<(), String> {
        c.validate().map_err(|e| e.to_string())
    }

    fn record(c: &SimConfig, l: &Line<State>) -> Result<String, String> {
        let s = &l.state;
        if s.slot.len() != c.size as usize || s.slot_ok.len() != c.size as usize {
            return Err(format!("{} slots logged on a ring of {}", s.slot.len(), c.size));
        }
        let m = 1u64 << idx_bits(c.size);
        let r = |v: u32| v as u64 % m;
        let slots: Vec<String> = s
            .slot
            .iter()
            .map(|v| v.map_or("-1".to_string(), |p| r(p).to_string()))
            .collect();
        let oks: Vec<&str> = s.slot_ok.iter().map(|b| tla_bool(*b)).collect();
        let counters: Vec<String> = s
            .counters()
            .iter()
            .map(|(k, v)| format!("{k} |-> {}", r(*v)))
            .collect();
        Ok(format!(
            "[action |-> \"{}\", {}, slot |-> <<{}>>, ok |-> <<{}>>]",
            l.action,
            counters.join(", "),
            slots.join(", "),
            oks.join(", ")
        ))
    }

    /// The simulator's own start: the projection of a fresh ring.
    fn init(c: &SimConfig) -> Option<Line<State>> {
        let state = XskRing::<u64>::new(*c).ok()?.state();
        Some(Line {
            step: 0,
            action: "Init".into(),
            state,
        })
    }

    fn changed(_: &SimConfig, a: &Line<State>, b: &Line<State>) -> Vec<String> {
        let json = |l: &Line<State>| serde_json::to_value(&l.state).unwrap_or(Value::Null);
        match (json(a), json(b)) {
            (Value::Object(x), Value::Object(y)) => {
                x.iter().filter(|(k, v)| y.get(*k) != Some(v)).map(|(k, _)| k.clone()).collect()
            }
            _ => Vec::new(),
        }
    }

    fn comment(c: &SimConfig) -> Option<String> {
        Some(format!(
            "ring {} size {} start {} max_batch {} seed {}",
            c.kind, c.size, c.start, c.max_batch, c.seed
        ))
    }

    fn logged_action(l: &Line<State>) -> Option<&str> {
        Some(&l.action)
    }
}

/// The module defining `TraceLog`: the trace's lines.
pub fn module(t: &RingTrace) -> Result<String, TraceError> {
    path::module::<RingTraceSpec>(&t.header.config, &t.lines)
}

/// The .cfg: the trace's ring, all barriers, no mutant.
pub fn cfg_text(c: &SimConfig) -> String {
    path::cfg_text::<RingTraceSpec>(c)
}

/// Write `MCXskRingTrace.tla` and `.cfg`, and the two specs, into `dir`.
pub fn write_model(t: &RingTrace, specs: &Path, dir: &Path) -> Result<(), TraceError> {
    path::write_model::<RingTraceSpec>(&t.header.config, &t.lines, specs, dir)
}

/// Check `t` with TLC, the model written into `dir`.
pub fn check(tlc: &Tlc, t: &RingTrace, specs: &Path, dir: &Path) -> Result<Verdict, TraceError> {
    path::check::<RingTraceSpec>(tlc, &t.header.config, &t.lines, specs, dir)
}

/// Check `t` in a fresh directory under target/ringlab/ring-trace/, kept
/// (and named in the reason) if the trace is rejected.
pub fn validate(t: &RingTrace) -> Result<Verdict, TraceError> {
    path::validate::<RingTraceSpec>(&t.header.config, &t.lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_sim::harness::Header;
    use ringlab_sim::xsk_ring::RingKind;

    #[test]
    fn idx_bits_is_the_smallest_covering_four_rings() {
        assert_eq!(idx_bits(1), 2);
        assert_eq!(idx_bits(2), 3);
        assert_eq!(idx_bits(4), 4);
        assert_eq!(idx_bits(1 << 20), 22);
    }

    fn trace(state: State) -> RingTrace {
        let config = SimConfig::new(RingKind::Tx, 2, u32::MAX, 1);
        RingTrace {
            header: Header {
                protocol: "xsk_ring".into(),
                seed: 1,
                steps: 0,
                mutants: vec![],
                config,
            },
            lines: vec![Line {
                step: 0,
                action: "Init".into(),
                state,
            }],
        }
    }

    #[test]
    fn counters_are_reduced_and_never_is_minus_one() {
        let m = u32::MAX;
        let t = trace(State {
            prod: m,
            cons: m,
            p_prod: m,
            p_cons: 1,
            p_wr: m,
            c_prod: m,
            c_cons: m,
            c_rd: m,
            c_end: m,
            slot: vec![None, Some(m)],
            slot_ok: vec![true, false],
        });
        let text = module(&t).unwrap();
        assert!(text.starts_with("---- MODULE MCXskRingTrace ----\n\\* ring tx size 2 start 4294967295 max_batch 2 seed 1\nEXTENDS XskRingTrace\n\nTraceLog == <<\n"), "{text}");
        assert!(
            text.contains("prod |-> 7, cons |-> 7, pProd |-> 7, pCons |-> 1,"),
            "{text}"
        );
        assert!(
            text.contains("slot |-> <<-1, 7>>, ok |-> <<TRUE, FALSE>>]"),
            "{text}"
        );
        let c = cfg_text(&t.header.config);
        assert!(
            c.contains("IdxBits = 3\n")
                && c.contains("InvalidDescs = TRUE\n")
                && c.ends_with("    Mutant = \"none\"\n    Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n"),
            "{c}"
        );
    }

    #[test]
    fn a_state_of_another_ring_is_not_printed_and_init_is_known() {
        let init = RingTraceSpec::init(&SimConfig::new(RingKind::Tx, 2, u32::MAX, 1)).unwrap();
        let mut bad = init.state.clone();
        bad.slot.push(None);
        assert!(matches!(module(&trace(bad)), Err(TraceError::BadTrace(_))));
        let mut other = init.clone();
        other.state.c_prod = 0;
        let cfg = SimConfig::new(RingKind::Tx, 2, u32::MAX, 1);
        assert_eq!(RingTraceSpec::changed(&cfg, &init, &other), vec!["cProd".to_string()]);
    }
}
