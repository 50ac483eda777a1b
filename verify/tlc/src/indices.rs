//! A trace as ring-index dumps: per step, each ring's producer and
//! consumer (and the reserved producer, the kernel's `cached_prod`, where
//! the spec keeps reservations), and the protocol's own counters.
//!
//! XskRing keeps its indices as variables (prod, cons, pProd, cProd...),
//! shown as they are. The copy-TX and shared-umem specs
//! keep a ring as the sequence of what is in it, so its indices are
//! derived here: a step that takes k entries from the head advances the
//! consumer by k, one that appends advances the producer. Entries in a
//! ring at Init count as produced before the trace. A step that changes a
//! ring other than at its ends (a rewind puts entries back at the head)
//! moves the consumer back; one that fits neither reading is marked `?`
//! rather than guessed.

use std::collections::BTreeMap;

use ringlab_model::tla::Value;
use serde_json::{Map, Value as Json};

use crate::lanes::{label, protocol, tla, Protocol};

/// A ring of a spec kept as a sequence (or a function from sockets to
/// sequences): its variable, the kernel's name for it, where its
/// reserved, unpublished entries are (a sequence of their own, or all but
/// the first `published[s]` of the ring's), and which side produces: the
/// application (its actions are named `User...`) or the kernel. A
/// per-socket ring is a function (or a tuple) from sockets to sequences.
struct RingVar {
    var: &'static str,
    name: &'static str,
    reserved: Option<&'static str>,
    published: Option<&'static str>,
    /// The consumer's entries taken and not yet released: the kernel's
    /// cached_cons is that far past ->consumer.
    held: Option<&'static str>,
    user_produces: bool,
    per_socket: bool,
}

/// A protocol's rings and counters, one per [`Protocol`] (lanes.rs
/// tells which protocol a state is of).
struct Layout {
    rings: &'static [RingVar],
    /// Functions to integers (per niov, per socket), one column per key.
    counters: &'static [&'static str],
    /// Those of `counters` shown only when they change in the trace: state
    /// of a mode most models leave off (XskRx's fast path).
    only_if_moving: &'static [&'static str],
}

const TX: RingVar = RingVar { var: "tx", name: "tx", reserved: None, published: None, held: None, user_produces: true, per_socket: true };
const CQ: RingVar = RingVar { var: "cq", name: "cq", reserved: Some("resv"), published: None, held: None, user_produces: false, per_socket: false };

const COPY_TX: Layout = Layout {
    rings: &[TX, CQ],
    counters: &[],
    only_if_moving: &[],
};

const SHARED_UMEM: Layout = Layout {
    rings: &[
        TX,
        CQ,
        RingVar { var: "fq", name: "fq", reserved: None, published: None, held: None, user_produces: true, per_socket: false },
        RingVar { var: "rx", name: "rx", reserved: None, published: None, held: None, user_produces: false, per_socket: true },
    ],
    counters: &["spent"],
    only_if_moving: &[],
};

const DEVMEM: Layout = Layout { rings: &[], counters: &["pool", "ppref", "uref"], only_if_moving: &[] };

/// XskRx: the fill ring's consumer is the kernel's cached_cons (fqHeld
/// entries past what it has published); an rx ring's first rxPub[s]
/// entries are published, the rest reserved. With the fast path
/// (XskRedirectXsk), the queue's socket pointer and the driver's slot.
const XSK_RX: Layout = Layout {
    rings: &[
        RingVar { var: "fq", name: "fq", reserved: None, published: None, held: Some("fqHeld"), user_produces: true, per_socket: false },
        RingVar { var: "rx", name: "rx", reserved: None, published: Some("rxPub"), held: None, user_produces: false, per_socket: true },
    ],
    counters: &["cnt", "rxqXsk", "fastXs"],
    only_if_moving: &["rxqXsk", "fastXs"],
};

/// IoUringZcNotif: its rings are sequences in the spec; the counters.
const IOURING: Layout = Layout { rings: &[], counters: &["todo", "reaped"], only_if_moving: &[] };

/// NapiSkbCache: its caches and lists are sequences; each defer list's
/// count and each skb's users, and the frames left, received and dropped.
const NAPI_CACHE: Layout = Layout { rings: &[], counters: &["dcount", "users", "left", "rcvd", "dropped"], only_if_moving: &[] };

fn layout(vars: &Map<String, Json>) -> Option<&'static Layout> {
    Some(match protocol(vars)? {
        Protocol::CopyTx => &COPY_TX,
        Protocol::SharedUmem => &SHARED_UMEM,
        Protocol::Devmem => &DEVMEM,
        Protocol::XskRx => &XSK_RX,
        Protocol::IoUring => &IOURING,
        Protocol::NapiCache => &NAPI_CACHE,
    })
}

/// The dump: column names, then one row of cells per state. A cell is
/// the value, or `?` where the step cannot be read as ring moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dump {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Where one ring stands.
#[derive(Clone, Copy, Debug, Default)]
struct Pos {
    prod: i64,
    cons: i64,
    /// The last step could not be read as moves at the ends.
    lost: bool,
}

/// XskRing's indices, kept as variables: the producer's and consumer's
/// shared and cached counters.
const RING_COLUMNS: &[&str] = &["prod", "cons", "pProd", "pCons", "pWr", "cProd", "cCons", "cRd", "cEnd"];

/// The dump of a trace, each state with the action that led to it, or
/// None for a protocol with neither indices nor counters here.
pub fn dump(states: &[(&str, Map<String, Json>)]) -> Option<Dump> {
    let (_, first) = states.first()?;
    let Some(lay) = layout(first) else { return ring_counters(states) };
    let mut columns = Vec::new();
    let mut pos: BTreeMap<String, Pos> = BTreeMap::new();
    let mut rows = Vec::new();
    let mut prev: Option<BTreeMap<String, Vec<Value>>> = None;
    for (action, st) in states {
        let by_user = action.starts_with("User");
        let now = ring_contents(st, lay);
        let mut row = Vec::new();
        for r in lay.rings {
            for (key, seq) in now.iter().filter(|(k, _)| ring_of(k) == r.var) {
                let p = pos.entry(key.clone()).or_default();
                match prev.as_ref().and_then(|m| m.get(key)) {
                    None => *p = Pos { prod: seq.len() as i64, cons: 0, lost: false },
                    Some(old) => match moved(old, seq, by_user == r.user_produces) {
                        Some((taken, added)) => {
                            p.cons += taken;
                            p.prod += added;
                            p.lost = false;
                        }
                        None => {
                            p.prod = p.cons + seq.len() as i64;
                            p.lost = true;
                        }
                    },
                }
                let shown = display_name(r.name, key);
                let mark = if p.lost { "?" } else { "" };
                if let Some(pv) = r.published {
                    // ->producer: the consumer plus the published entries;
                    // cached_prod: every entry appended
                    let n = published(st, pv, key);
                    push(&mut columns, rows.is_empty(), format!("{shown}.prod"));
                    row.push(format!("{}{mark}", p.cons + n));
                    push(&mut columns, rows.is_empty(), format!("{shown}.cprod"));
                    row.push(format!("{}{mark}", p.prod));
                    push(&mut columns, rows.is_empty(), format!("{shown}.cons"));
                    row.push(format!("{}{mark}", p.cons));
                    continue;
                }
                push(&mut columns, rows.is_empty(), format!("{shown}.prod"));
                row.push(format!("{}{mark}", p.prod));
                if let Some(res) = r.reserved {
                    let n = st.get(res).and_then(tla).map_or(0, |v| seq_len(&v));
                    push(&mut columns, rows.is_empty(), format!("{shown}.cprod"));
                    row.push(format!("{}{mark}", p.prod + n as i64));
                }
                match r.held {
                    Some(h) => {
                        // ->consumer trails cached_cons by the entries held
                        let n = st.get(h).and_then(tla).and_then(|v| v.as_int()).unwrap_or(0);
                        push(&mut columns, rows.is_empty(), format!("{shown}.cons"));
                        row.push(format!("{}{mark}", p.cons - n));
                        push(&mut columns, rows.is_empty(), format!("{shown}.ccons"));
                        row.push(format!("{}{mark}", p.cons));
                    }
                    None => {
                        push(&mut columns, rows.is_empty(), format!("{shown}.cons"));
                        row.push(format!("{}{mark}", p.cons));
                    }
                }
            }
        }
        for c in lay.counters {
            let keyed: Vec<(String, Value)> = match st.get(*c).and_then(tla) {
                Some(Value::Func(f)) => f.into_iter().map(|(k, v)| (format!("{c}[{}]", label(&k)), v)).collect(),
                Some(Value::Record(r)) => r.into_iter().map(|(k, v)| (format!("{c}[{k}]"), v)).collect(),
                Some(Value::Seq(xs)) => xs.into_iter().enumerate().map(|(i, v)| (format!("{c}[{}]", i + 1), v)).collect(),
                Some(v @ Value::Int(_)) => vec![(c.to_string(), v)],
                _ => continue,
            };
            for (k, v) in keyed {
                // a record of counters (per socket) is one column a field
                match v {
                    Value::Record(fields) => {
                        for (f, x) in fields {
                            push(&mut columns, rows.is_empty(), format!("{k}.{f}"));
                            row.push(label(&x));
                        }
                    }
                    v => {
                        push(&mut columns, rows.is_empty(), k);
                        row.push(label(&v));
                    }
                }
            }
        }
        rows.push(row);
        prev = Some(now);
    }
    // A state whose rings or counters have other keys than the first's
    // cannot share its columns.
    if rows.iter().any(|r| r.len() != columns.len()) {
        return None;
    }
    let still = |i: usize| rows.iter().all(|r| r[i] == rows[0][i]);
    let drop: Vec<usize> = (0..columns.len())
        .filter(|&i| lay.only_if_moving.iter().any(|c| columns[i] == *c || columns[i].starts_with(&format!("{c}["))) && still(i))
        .collect();
    let keep = |i: &usize| !drop.contains(i);
    let columns = (0..columns.len()).filter(keep).map(|i| columns[i].clone()).collect();
    let rows = rows.iter().map(|r| (0..r.len()).filter(keep).map(|i| r[i].clone()).collect()).collect();
    Some(Dump { columns, rows })
}

/// XskRing's counters as they are; None for a trace without them.
fn ring_counters(states: &[(&str, Map<String, Json>)]) -> Option<Dump> {
    let (_, first) = states.first()?;
    let columns: Vec<String> = RING_COLUMNS.iter().filter(|c| first.contains_key(**c)).map(|c| c.to_string()).collect();
    if columns.is_empty() {
        return None;
    }
    let cell = |v: Option<&Json>| match v {
        Some(Json::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "?".to_string(),
    };
    let rows = states.iter().map(|(_, st)| columns.iter().map(|c| cell(st.get(c))).collect()).collect();
    Some(Dump { columns, rows })
}

/// How many entries at the head of ring `key` (`rx[2]`) are published.
fn published(st: &Map<String, Json>, var: &str, key: &str) -> i64 {
    let idx = key.split_once('[').map(|(_, k)| k.trim_end_matches(']').to_string());
    let v = st.get(var).and_then(tla);
    let n = match (v, idx) {
        (Some(Value::Seq(xs)), Some(i)) => i.parse::<usize>().ok().and_then(|i| xs.get(i.wrapping_sub(1)).cloned()),
        (Some(Value::Func(f)), Some(i)) => f.into_iter().find(|(k, _)| label(k) == i).map(|(_, v)| v),
        (Some(v), None) => Some(v),
        _ => None,
    };
    n.and_then(|v| v.as_int()).unwrap_or(0)
}

fn push(columns: &mut Vec<String>, first: bool, c: String) {
    if first {
        columns.push(c);
    }
}

/// Each ring's entries, keyed `var` or `var[socket]`.
fn ring_contents(st: &Map<String, Json>, lay: &Layout) -> BTreeMap<String, Vec<Value>> {
    let mut out = BTreeMap::new();
    for r in lay.rings {
        let per: Vec<(String, Value)> = match st.get(r.var).and_then(tla) {
            Some(Value::Seq(xs)) if !r.per_socket => {
                out.insert(r.var.to_string(), xs);
                continue;
            }
            Some(Value::Seq(xs)) => xs.into_iter().enumerate().map(|(i, x)| ((i + 1).to_string(), x)).collect(),
            Some(Value::Func(f)) => f.into_iter().map(|(k, x)| (label(&k), x)).collect(),
            Some(Value::Record(r)) => r.into_iter().collect(),
            _ => continue,
        };
        for (k, x) in per {
            if let Value::Seq(xs) = x {
                out.insert(format!("{}[{k}]", r.var), xs);
            }
        }
    }
    out
}

fn ring_of(key: &str) -> &str {
    key.split('[').next().unwrap_or(key)
}

/// `tx[s1]` shown as `tx.s1`; the ring's own name otherwise.
fn display_name(name: &str, key: &str) -> String {
    match key.split_once('[') {
        Some((_, s)) => format!("{name}.{}", s.trim_end_matches(']')),
        None => name.to_string(),
    }
}

fn seq_len(v: &Value) -> usize {
    match v {
        Value::Seq(xs) => xs.len(),
        _ => 0,
    }
}

/// How a ring went from `old` to `new` in one step: (consumer advance,
/// producer advance). The producer only appends; the consumer takes from
/// the head and may put entries back there (a rewind, a negative
/// advance), the fewest moves that explain the step. None when the step
/// fits neither.
fn moved(old: &[Value], new: &[Value], producer: bool) -> Option<(i64, i64)> {
    if producer {
        return (new.len() >= old.len() && new[..old.len()] == *old).then(|| (0, (new.len() - old.len()) as i64));
    }
    let mut best: Option<(usize, usize)> = None;
    for k in 0..=old.len() {
        let rest = &old[k..];
        if new.len() >= rest.len() && new[new.len() - rest.len()..] == *rest {
            let j = new.len() - rest.len();
            if best.map_or(true, |(bk, bj)| k + j < bk + bj) {
                best = Some((k, j));
            }
        }
    }
    best.map(|(k, j)| (k as i64 - j as i64, 0))
}

/// The dump as text columns, for the CLI's trace table.
pub fn from_trace(trace: &[crate::TraceState]) -> Option<Dump> {
    let states: Vec<(&str, Map<String, Json>)> = trace
        .iter()
        .map(|st| (st.action.as_str(), st.vars.iter().map(|(k, v)| (k.clone(), Json::String(v.clone()))).collect()))
        .collect();
    dump(&states)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(pairs: &[(&str, &str)]) -> Map<String, Json> {
        pairs.iter().map(|(k, v)| (k.to_string(), Json::String(v.to_string()))).collect()
    }

    fn copy_tx<'a>(action: &'a str, tx: &str, cq: &str, resv: &str) -> (&'a str, Map<String, Json>) {
        (action, st(&[("free", "{}"), ("tx", tx), ("cq", cq), ("resv", resv), ("flight", "{}"), ("part", "(s1 :> <<>>)")]))
    }

    fn ints(xs: &[i64]) -> Vec<Value> {
        xs.iter().map(|x| Value::Int(*x)).collect()
    }

    #[test]
    fn copy_tx_indices_follow_the_sequences() {
        let d = dump(&[
            copy_tx("Initial predicate", "(s1 :> <<>>)", "<<>>", "<<>>"),
            copy_tx("UserSubmit", "(s1 :> <<f1, f2>>)", "<<>>", "<<>>"),
            copy_tx("XmitReserve", "(s1 :> <<f2>>)", "<<>>", "<<f1>>"),
            copy_tx("DriverFree", "(s1 :> <<f2>>)", "<<f1>>", "<<>>"),
            copy_tx("UserReap", "(s1 :> <<f2>>)", "<<>>", "<<>>"),
            copy_tx("XmitSend", "(s1 :> <<>>)", "<<>>", "<<>>"),
        ])
        .unwrap();
        assert_eq!(d.columns, ["tx.s1.prod", "tx.s1.cons", "cq.prod", "cq.cprod", "cq.cons"]);
        assert_eq!(d.rows[1], ["2", "0", "0", "0", "0"]);
        assert_eq!(d.rows[2], ["2", "1", "0", "1", "0"]);
        assert_eq!(d.rows[3], ["2", "1", "1", "1", "0"]);
        assert_eq!(d.rows[4], ["2", "1", "1", "1", "1"]);
        assert_eq!(d.rows[5], ["2", "2", "1", "1", "1"]);
    }

    #[test]
    fn a_rewind_moves_the_consumer_back_and_a_scramble_is_marked() {
        // the producer appends; the consumer takes, or puts back at the head
        assert_eq!(moved(&ints(&[2]), &ints(&[2, 3]), true), Some((0, 1)));
        assert_eq!(moved(&ints(&[1, 2]), &ints(&[0, 1, 2]), false), Some((-1, 0)));
        assert_eq!(moved(&[], &ints(&[0, 1]), false), Some((-2, 0)));
        assert_eq!(moved(&ints(&[1, 2, 3]), &ints(&[9, 3]), false), Some((1, 0)));
        assert_eq!(moved(&ints(&[1, 2]), &ints(&[2]), true), None);
        let d = dump(&[
            copy_tx("Initial predicate", "(s1 :> <<f1, f2>>)", "<<>>", "<<>>"),
            copy_tx("UserSubmit", "(s1 :> <<f2, f1>>)", "<<>>", "<<>>"),
        ])
        .unwrap();
        assert_eq!(d.rows[1][..2], ["2?", "0?"]);
    }

    #[test]
    fn shared_umem_rings_are_per_socket_where_the_kernel_has_one_per_socket() {
        let s = |action, tx: &str, cq: &str| {
            (
                action,
                st(&[
                    ("app", "<<{}, {}>>"),
                    ("tx", tx),
                    ("resv", "<<>>"),
                    ("hw", "<<>>"),
                    ("cq", cq),
                    ("ufree", "{}"),
                    ("fq", "<<>>"),
                    ("kfree", "<<>>"),
                    ("rx", "<<<<>>, <<>>>>"),
                    ("spent", "<<0, 1>>"),
                ]),
            )
        };
        let d = dump(&[s("Init", "<<<<>>, <<>>>>", "<<>>"), s("UserSubmit", "<<<<<<1, 1>>>>, <<>>>>", "<<<<2, 1>>>>")]).unwrap();
        assert_eq!(
            d.columns,
            ["tx.1.prod", "tx.1.cons", "tx.2.prod", "tx.2.cons", "cq.prod", "cq.cprod", "cq.cons", "fq.prod", "fq.cons", "rx.1.prod", "rx.1.cons", "rx.2.prod", "rx.2.cons", "spent[1]", "spent[2]"]
        );
        // the application does not produce into the completion ring: an
        // entry it adds there reads as its consumer moving back
        assert_eq!(d.rows[1][..7], ["1", "0", "0", "0", "0", "0", "-1"]);
    }

    #[test]
    fn a_state_as_the_report_reads_it_records_and_all() {
        // the JSON of a saved counterexample: TLC's records are objects
        let j = |rx: Json| -> (&str, Map<String, Json>) {
            let v = serde_json::json!({"app": [[], []], "cq": [], "fq": [[0, 1]], "hw": [], "kfree": [], "resv": [],
                "rx": rx, "spent": [0, 0], "tx": [[], []], "txd": 0, "ufree": []});
            ("XdpRedirect", v.as_object().unwrap().clone())
        };
        let d = dump(&[j(serde_json::json!([[], []])), j(serde_json::json!([[{"addr": [0, 1], "dst": 2}], []]))]).unwrap();
        let at = |c: &str| d.columns.iter().position(|x| x == c).unwrap();
        assert_eq!((d.rows[1][at("rx.1.prod")].as_str(), d.rows[1][at("rx.2.prod")].as_str()), ("1", "0"));
    }

    #[test]
    fn xsk_rx_rings_show_published_and_reserved_and_the_fill_rings_cached_consumer() {
        let s = |action, fq: &str, held: &str, rx: &str, pubd: &str| {
            (
                action,
                st(&[
                    ("ufree", "{}"),
                    ("fq", fq),
                    ("fqHeld", held),
                    ("kfree", "<<>>"),
                    ("rx", rx),
                    ("rxPub", pubd),
                    ("cpu", "(c1 :> [stage |-> \"idle\"])"),
                    ("cnt", "<<[rx_dropped |-> 0, rx_queue_full |-> 1]>>"),
                ]),
            )
        };
        let d = dump(&[
            s("Init", "<<1, 2>>", "0", "<<<<>>>>", "<<0>>"),
            s("XpAllocTake", "<<2>>", "1", "<<<<>>>>", "<<0>>"),
            s("XskRcvReserve", "<<2>>", "1", "<<<<[buf |-> 1, pkt |-> 1, contd |-> FALSE]>>>>", "<<0>>"),
            s("XdpDoFlush", "<<2>>", "0", "<<<<[buf |-> 1, pkt |-> 1, contd |-> FALSE]>>>>", "<<1>>"),
        ])
        .unwrap();
        assert_eq!(d.columns, ["fq.prod", "fq.cons", "fq.ccons", "rx.1.prod", "rx.1.cprod", "rx.1.cons", "cnt[1].rx_dropped", "cnt[1].rx_queue_full"]);
        // taken: cached_cons moves, ->consumer waits for the flush
        assert_eq!(d.rows[1][..3], ["2", "0", "1"]);
        // reserved: cached_prod moves, ->producer waits for the flush
        assert_eq!(d.rows[2][3..6], ["0", "1", "0"]);
        assert_eq!(d.rows[3][..6], ["2", "1", "1", "1", "1", "0"]);
    }

    #[test]
    fn devmem_counters_are_columns_and_a_ring_trace_has_none() {
        let s = st(&[
            ("pool", "(n1 :> 1)"),
            ("ppref", "(n1 :> 0)"),
            ("uref", "(n1 :> 2)"),
            ("rxq", "(k1 :> <<>>)"),
            ("xa", "(k1 :> (1 :> <<\"none\">>))"),
            ("user", "(k1 :> (n1 :> 0))"),
        ]);
        let d = dump(&[("Initial predicate", s)]).unwrap();
        assert_eq!(d.columns, ["pool[n1]", "ppref[n1]", "uref[n1]"]);
        assert_eq!(d.rows[0], ["1", "0", "2"]);
        let ring = dump(&[("Initial predicate", st(&[("prod", "0"), ("cons", "0"), ("slot", "<<>>")]))]).unwrap();
        assert_eq!((ring.columns, ring.rows), (vec!["prod".to_string(), "cons".to_string()], vec![vec!["0".to_string(), "0".to_string()]]));
        assert!(dump(&[("Initial predicate", st(&[("x", "0")]))]).is_none());
    }
}
