//! A recorded trace as the TLA+ model that checks it against the spec:
//! a module defining the log for `specs/XskRingTrace.tla`, and its .cfg.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use ringlab_sim::xsk_ring::trace::{Line, Trace};

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

fn record(l: &Line, m: u64) -> String {
    let r = |v: u32| v as u64 % m;
    let s = &l.state;
    let slots: Vec<String> = s
        .slot
        .iter()
        .map(|v| v.map_or("-1".to_string(), |p| r(p).to_string()))
        .collect();
    let oks: Vec<&str> = s.slot_ok.iter().map(|b| tla_bool(*b)).collect();
    format!(
        "[action |-> \"{}\", prod |-> {}, cons |-> {}, pProd |-> {}, pCons |-> {}, pWr |-> {}, cProd |-> {}, cCons |-> {}, cRd |-> {}, cEnd |-> {}, slot |-> <<{}>>, ok |-> <<{}>>]",
        l.action,
        r(s.prod),
        r(s.cons),
        r(s.p_prod),
        r(s.p_cons),
        r(s.p_wr),
        r(s.c_prod),
        r(s.c_cons),
        r(s.c_rd),
        r(s.c_end),
        slots.join(", "),
        oks.join(", ")
    )
}

/// The module defining `TraceLog`: the trace's lines with every counter
/// reduced modulo 2^IdxBits and a never-stored slot as -1.
pub fn module(trace: &Trace) -> String {
    let m = 1u64 << idx_bits(trace.header.size);
    let h = &trace.header;
    let mut out = format!("---- MODULE {MODULE} ----\n");
    let _ = writeln!(
        out,
        "\\* ring {} size {} start {} max_batch {} seed {}",
        h.ring, h.size, h.start, h.max_batch, h.seed
    );
    out.push_str("EXTENDS XskRingTrace\n\nTraceLog == <<\n");
    let rows: Vec<String> = trace
        .lines
        .iter()
        .map(|l| format!("  {}", record(l, m)))
        .collect();
    out.push_str(&rows.join(",\n"));
    out.push_str("\n>>\n====\n");
    out
}

/// The .cfg: the trace's ring, all barriers, no mutant.
pub fn cfg(trace: &Trace) -> String {
    let h = &trace.header;
    format!(
        "CONSTANTS\n    Size = {}\n    IdxBits = {}\n    ProdSide = \"{}\"\n    ConsSide = \"{}\"\n    MaxBatch = {}\n    Barriers = {{\"A\", \"B\", \"C\", \"D\"}}\n    InvalidDescs = {}\n    Mutant = \"none\"\n    Log <- TraceLog\nINIT TraceInit\nNEXT TraceNext\n",
        h.size,
        idx_bits(h.size),
        h.prod_side,
        h.cons_side,
        h.max_batch,
        tla_bool(h.invalid_descs)
    )
}

/// Write `MCXskRingTrace.tla` and `.cfg` into `dir`.
pub fn write_model(trace: &Trace, dir: &Path) -> io::Result<()> {
    std::fs::write(dir.join(format!("{MODULE}.tla")), module(trace))?;
    std::fs::write(dir.join(format!("{MODULE}.cfg")), cfg(trace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ringlab_sim::xsk_ring::trace::{Header, State};

    #[test]
    fn idx_bits_is_the_smallest_covering_four_rings() {
        assert_eq!(idx_bits(1), 2);
        assert_eq!(idx_bits(2), 3);
        assert_eq!(idx_bits(4), 4);
        assert_eq!(idx_bits(1 << 20), 22);
    }

    #[test]
    fn counters_are_reduced_and_never_is_minus_one() {
        let header = Header {
            ring: "tx".into(),
            size: 2,
            start: u32::MAX,
            max_batch: 2,
            seed: 1,
            prod_side: "user".into(),
            cons_side: "kernel".into(),
            invalid_descs: true,
            mutants: vec![],
        };
        let m = u32::MAX;
        let state = State {
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
        };
        let t = Trace {
            header,
            lines: vec![Line {
                step: 0,
                action: "Init".into(),
                state,
            }],
        };
        let text = module(&t);
        assert!(
            text.contains("prod |-> 7, cons |-> 7, pProd |-> 7, pCons |-> 1,"),
            "{text}"
        );
        assert!(
            text.contains("slot |-> <<-1, 7>>, ok |-> <<TRUE, FALSE>>]"),
            "{text}"
        );
        let c = cfg(&t);
        assert!(
            c.contains("IdxBits = 3\n")
                && c.contains("InvalidDescs = TRUE\n")
                && c.contains("Log <- TraceLog\n"),
            "{c}"
        );
    }
}
