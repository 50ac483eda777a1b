//! Where every frame, buffer or token is in a state of a protocol without a
//! single ring (copy-TX, shared umem, devmem, io_uring, the NAPI skb
//! cache): one lane per place it can
//! be (the application, a socket's tx ring, an skb in flight, the
//! completion ring...), drawn one row each. Between two states the items
//! that moved say, in words, what the step did; a frame that vanishes or
//! shows twice is what a conservation invariant catches.

use std::collections::{BTreeMap, BTreeSet};

use ringlab_model::tla::{parse_value, Value};
use serde_json::Value as Json;

/// One place, and what is in it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lane {
    pub name: String,
    pub items: Vec<String>,
}

/// The protocols drawn as lanes (and dumped by indices.rs), each known by
/// variables only its spec has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    CopyTx,
    SharedUmem,
    Devmem,
    XskRx,
    IoUring,
    NapiCache,
}

/// Which protocol a state is of, or None (a ring trace, drawn as a ring).
pub fn protocol(vars: &serde_json::Map<String, Json>) -> Option<Protocol> {
    let has = |names: &[&str]| names.iter().all(|n| vars.contains_key(*n));
    if has(&["free", "tx", "cq", "resv", "flight", "part"]) {
        Some(Protocol::CopyTx)
    } else if has(&["app", "tx", "resv", "hw", "cq", "ufree", "fq", "kfree", "rx"]) {
        Some(Protocol::SharedUmem)
    } else if has(&["pool", "ppref", "uref", "rxq", "xa", "user"]) {
        Some(Protocol::Devmem)
    } else if has(&["ufree", "fq", "fqHeld", "kfree", "rx", "rxPub", "cpu"]) {
        Some(Protocol::XskRx)
    } else if has(&["sq", "compl", "tw", "cq", "ovf", "nd", "skb"]) {
        Some(Protocol::IoUring)
    } else if has(&["slab", "cache", "defer", "dcount", "heads", "users", "held", "frag", "next"]) {
        Some(Protocol::NapiCache)
    } else {
        None
    }
}

/// The lanes of a state, or None when no protocol here has these
/// variables (a ring trace, drawn as a ring).
pub fn lanes(vars: &serde_json::Map<String, Json>) -> Option<Vec<Lane>> {
    let v = |n: &str| vars.get(n).and_then(tla);
    Some(match protocol(vars)? {
        Protocol::CopyTx => copy_tx(&v),
        Protocol::SharedUmem => shared_umem(&v),
        Protocol::Devmem => devmem(&v),
        Protocol::XskRx => xsk_rx(&v),
        Protocol::IoUring => iouring(&v),
        Protocol::NapiCache => napi_cache(&v),
    })
}

/// XskRx: each receive buffer with the application, on the fill ring, on
/// the pool's free list, held by a CPU's receive, or on a socket's rx
/// ring, reserved or published (a descriptor drawn as buf(p packet)).
fn xsk_rx(v: &dyn Fn(&str) -> Option<Value>) -> Vec<Lane> {
    let mut out = vec![
        lane("application", v("ufree").map(|x| frames(&x)).unwrap_or_default()),
        lane("fill ring", v("fq").map(|x| frames(&x)).unwrap_or_default()),
        lane("pool free list", v("kfree").map(|x| frames(&x)).unwrap_or_default()),
    ];
    if let Some(Value::Func(cpus)) = v("cpu") {
        for (c, r) in cpus {
            let r = r.as_record().cloned().unwrap_or_default();
            let mut held = r.get("bufs").map(frames).unwrap_or_default();
            if let Some(p) = r.get("peek").and_then(Value::as_int).filter(|p| *p > 0) {
                held.push(format!("{p}(peeked)"));
            }
            out.push(lane(&format!("receiving on {}", label(&c)), held));
        }
    }
    let pubd: Vec<i64> = match v("rxPub") {
        Some(Value::Seq(xs)) => xs.iter().map(|x| x.as_int().unwrap_or(0)).collect(),
        Some(Value::Func(f)) => f.values().map(|x| x.as_int().unwrap_or(0)).collect(),
        _ => vec![],
    };
    let rings: Vec<Value> = match v("rx") {
        Some(Value::Seq(xs)) => xs,
        Some(Value::Func(f)) => f.into_values().collect(),
        _ => vec![],
    };
    for (i, r) in rings.iter().enumerate() {
        let all = frames(r);
        let n = (pubd.get(i).copied().unwrap_or(0).max(0) as usize).min(all.len());
        out.push(lane(&format!("rx ring {} published", i + 1), all[..n].to_vec()));
        out.push(lane(&format!("rx ring {} reserved", i + 1), all[n..].to_vec()));
    }
    out
}

/// XskCopyTx: each frame is with the application, on a tx ring, part of
/// a packet being built, in an skb, or in a completion slot.
fn copy_tx(v: &dyn Fn(&str) -> Option<Value>) -> Vec<Lane> {
    let mut out = vec![lane("application", v("free").map(|x| frames(&x)).unwrap_or_default())];
    out.extend(per_socket("tx ring", v("tx")));
    out.extend(per_socket("building", v("part")));
    out.push(lane("in flight (skb)", v("flight").map(|x| frames(&x)).unwrap_or_default()));
    out.push(lane("CQ reserved", v("resv").map(|x| slots(&x)).unwrap_or_default()));
    out.push(lane("CQ published", v("cq").map(|x| frames(&x)).unwrap_or_default()));
    out
}

/// XskSharedUmem: transmit frames per socket, the shared completion
/// ring, the device; receive buffers from the fill ring to an rx ring.
fn shared_umem(v: &dyn Fn(&str) -> Option<Value>) -> Vec<Lane> {
    let mut out = per_socket("application", v("app"));
    out.extend(per_socket("tx ring", v("tx")));
    out.push(lane("CQ reserved", v("resv").map(|x| frames(&x)).unwrap_or_default()));
    out.push(lane("device", v("hw").map(|x| frames(&x)).unwrap_or_default()));
    out.push(lane("CQ published", v("cq").map(|x| frames(&x)).unwrap_or_default()));
    out.push(lane("rx: application", v("ufree").map(|x| frames(&x)).unwrap_or_default()));
    out.push(lane("fill ring", v("fq").map(|x| frames(&x)).unwrap_or_default()));
    out.push(lane("pool free list", v("kfree").map(|x| frames(&x)).unwrap_or_default()));
    out.extend(per_socket("rx ring", v("rx")));
    out
}

/// DevmemTokens: each net_iov in the page pool, queued on a socket, or
/// held as a token by the application, with the counts that keep it.
fn devmem(v: &dyn Fn(&str) -> Option<Value>) -> Vec<Lane> {
    let counted = |name: &str| -> Vec<String> {
        match v(name) {
            Some(Value::Func(f)) => f.iter().filter_map(|(n, c)| c.as_int().filter(|c| *c > 0).map(|c| format!("{}×{c}", label(n)))).collect(),
            _ => vec![],
        }
    };
    let mut out = vec![lane("page pool free list", counted("pool")), lane("pp_ref_count", counted("ppref")), lane("uref", counted("uref"))];
    if let Some(Value::Func(q)) = v("rxq") {
        for (s, skbs) in q {
            out.push(lane(&format!("rx queue {}", label(&s)), frames(&skbs)));
        }
    }
    if let Some(Value::Func(u)) = v("user") {
        for (s, toks) in u {
            let held = match toks {
                Value::Func(t) => t.iter().filter_map(|(k, c)| c.as_int().filter(|c| *c > 0).map(|c| format!("token {}×{c}", label(k)))).collect(),
                _ => vec![],
            };
            out.push(lane(&format!("application {}", label(&s)), held));
        }
    }
    if let Some(Value::Func(x)) = v("xa") {
        for (s, ids) in x {
            let named = match ids {
                Value::Func(t) => t.iter().filter(|(_, e)| !matches!(e, Value::Seq(p) if p.first().and_then(Value::as_str) == Some("none"))).map(|(k, e)| format!("id {}→{}", label(k), label(e))).collect(),
                _ => vec![],
            };
            out.push(lane(&format!("xarray {}", label(&s)), named));
        }
    }
    out
}

/// IoUringZcNotif: the SQ, the submission's request CQEs, the
/// notifications queued as task work, the CQ and its overflow list, the
/// skbs in flight.
fn iouring(v: &dyn Fn(&str) -> Option<Value>) -> Vec<Lane> {
    let seq = |n: &str| v(n).map(|x| frames(&x)).unwrap_or_default();
    vec![
        lane("SQ", seq("sq")),
        lane("request CQEs to flush", seq("compl")),
        lane("task work", seq("tw")),
        lane("CQ", seq("cq")),
        lane("overflow list", seq("ovf")),
        lane("skbs", seq("skb")),
    ]
}

/// NapiSkbCache: each skb head in the slab, in a CPU's NAPI cache, in
/// tun's batch, held by the stack (with its users when more than one), on
/// a defer list, or on another skb's frag list (drawn 3(on 1)).
fn napi_cache(v: &dyn Fn(&str) -> Option<Value>) -> Vec<Lane> {
    let ints = |n: &str| -> Vec<i64> {
        match v(n) {
            Some(Value::Seq(xs)) => xs.iter().map(|x| x.as_int().unwrap_or(0)).collect(),
            Some(Value::Func(f)) => f.values().map(|x| x.as_int().unwrap_or(0)).collect(),
            _ => vec![],
        }
    };
    let (users, held, frag, next) = (ints("users"), ints("held"), ints("frag"), ints("next"));
    let mut out = vec![lane("slab", v("slab").map(|x| frames(&x)).unwrap_or_default())];
    out.extend(per_socket("NAPI cache, CPU", v("cache")));
    out.extend(per_socket("tun batch, CPU", v("heads")));
    out.extend(per_socket("defer list, CPU", v("defer")));
    let in_use = (0..held.len())
        .filter(|&k| held[k] > 0)
        .map(|k| match users.get(k) {
            Some(&u) if u > 1 => format!("{}×{u}", k + 1),
            _ => (k + 1).to_string(),
        })
        .collect();
    out.push(lane("held by the stack", in_use));
    let mut lists = Vec::new();
    for (p, &f) in frag.iter().enumerate() {
        let (mut x, mut seen) = (f, BTreeSet::new());
        // a cycle (an skb on its own list) is drawn once round
        while x > 0 && seen.insert(x) {
            lists.push(format!("{x}(on {})", p + 1));
            x = next.get(x as usize - 1).copied().unwrap_or(0);
        }
    }
    out.push(lane("frag lists", lists));
    out
}

fn lane(name: &str, items: Vec<String>) -> Lane {
    Lane { name: name.to_string(), items }
}

/// One lane per socket of a function socket -> contents.
fn per_socket(name: &str, v: Option<Value>) -> Vec<Lane> {
    match v {
        Some(Value::Func(f)) => f.iter().map(|(s, x)| lane(&format!("{name} {}", label(s)), frames(x))).collect(),
        Some(Value::Seq(xs)) => xs.iter().enumerate().map(|(i, x)| lane(&format!("{name} {}", i + 1), frames(x))).collect(),
        _ => vec![],
    }
}

/// The frames a value holds, in order: a frame is a model value or a
/// number or a tuple (shared umem's <<socket, i>>, drawn 1.2); a
/// descriptor record gives its addr (marked ! when invalid), an skb its
/// addrs.
fn frames(v: &Value) -> Vec<String> {
    match v {
        Value::Int(_) | Value::Str(_) => vec![label(v)],
        Value::Seq(xs) => xs.iter().flat_map(item).collect(),
        Value::Set(xs) => xs.iter().flat_map(item).collect(),
        Value::Func(f) => f.values().flat_map(item).collect(),
        _ => item(v),
    }
}

/// One element of a sequence or set.
fn item(v: &Value) -> Vec<String> {
    match v {
        Value::Record(r) => {
            if let Some(a) = r.get("addr") {
                let bad = r.get("ok").and_then(Value::as_bool) == Some(false);
                vec![format!("{}{}", label(a), if bad { "!" } else { "" })]
            } else if let Some(Value::Seq(addrs)) = r.get("addrs") {
                addrs.iter().map(label).collect()
            } else if let (Some(b), Some(p)) = (r.get("buf"), r.get("pkt")) {
                vec![format!("{}(p{})", label(b), label(p))]
            } else if let Some(n) = r.get("niov") {
                vec![format!("{}{}", label(n), r.get("left").map(|l| format!("({} left)", label(l))).unwrap_or_default())]
            } else {
                vec![label(v)]
            }
        }
        _ => vec![label(v)],
    }
}

/// Reserved completion slots: a frame (design a) or a bare slot.
fn slots(v: &Value) -> Vec<String> {
    match v {
        Value::Seq(xs) => xs.iter().map(|x| if x.as_str() == Some("Placeholder") { "slot".to_string() } else { label(x) }).collect(),
        _ => frames(v),
    }
}

/// A value in short: `<<b1, 0>>` as b1.0, a model value as itself.
pub(crate) fn label(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Seq(xs) => xs.iter().map(label).collect::<Vec<_>>().join("."),
        other => other.to_string(),
    }
}

/// A variable's value as the trace file has it: JSON numbers and arrays,
/// or TLC's text (model values such as f1 read as strings).
pub(crate) fn tla(j: &Json) -> Option<Value> {
    match j {
        Json::Number(n) => n.as_i64().map(Value::Int),
        Json::Bool(b) => Some(Value::Bool(*b)),
        Json::Array(xs) => xs.iter().map(tla).collect::<Option<Vec<_>>>().map(Value::Seq),
        Json::String(s) => parse_value(&crate::itf::quote_model_values(s)).ok(),
        Json::Object(r) => r.iter().map(|(k, v)| tla(v).map(|v| (k.clone(), v))).collect::<Option<_>>().map(Value::Record),
        Json::Null => None,
    }
}

/// What moved between two states: each item that left a lane or came to
/// one, as `f1: tx ring s1 → in flight (skb)`.
pub fn moves(prev: &[Lane], now: &[Lane]) -> Vec<String> {
    let place = |ls: &[Lane]| -> BTreeMap<String, Vec<String>> {
        let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for l in ls {
            for it in &l.items {
                m.entry(base(it).to_string()).or_default().push(l.name.clone());
            }
        }
        m
    };
    let (a, b) = (place(prev), place(now));
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        let (was, is) = (a.get(k).cloned().unwrap_or_default(), b.get(k).cloned().unwrap_or_default());
        if was == is || k == "slot" {
            continue;
        }
        let gone: Vec<&String> = was.iter().filter(|w| !is.contains(w)).collect();
        let came: Vec<&String> = is.iter().filter(|w| !was.contains(w)).collect();
        let side = |v: &[&String]| if v.is_empty() { "nowhere".to_string() } else { v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" + ") };
        let stays: Vec<&String> = is.iter().filter(|w| was.contains(w)).collect();
        out.push(match (gone.is_empty(), came.is_empty(), stays.is_empty()) {
            // it left one place and is still in another: not lost
            (false, true, false) => format!("{k}: left {} (still in {})", side(&gone), side(&stays)),
            (true, false, false) => format!("{k}: now also in {} (still in {})", side(&came), side(&stays)),
            (_, _, true) => format!("{k}: {} → {}", side(&gone), side(&came)),
            _ => format!("{k}: {} → {} (still in {})", side(&gone), side(&came), side(&stays)),
        });
    }
    // bare completion slots are counted, not followed
    for l in now {
        let count = |ls: &[Lane]| ls.iter().find(|x| x.name == l.name).map_or(0, |x| x.items.iter().filter(|i| *i == "slot").count());
        let (was, is) = (count(prev), count(now));
        if was != is {
            out.push(format!("{}: {was} → {is} slots", l.name));
        }
    }
    out
}

/// The lanes drawn one row each: the lane's name, then its items as
/// boxes in order; an item that came to the lane in this step is marked.
pub fn svg(now: &[Lane], prev: Option<&[Lane]>, step: u64) -> String {
    use std::fmt::Write;
    const ROW: f64 = 30.0;
    const NAME_W: f64 = 150.0;
    const BOX_H: f64 = 22.0;
    let width_of = |it: &str| 14.0 + 7.5 * it.chars().count() as f64;
    let row_w = |l: &Lane| l.items.iter().map(|i| width_of(i) + 6.0).sum::<f64>();
    let w = NAME_W + now.iter().map(row_w).fold(120.0, f64::max) + 12.0;
    let h = ROW * now.len() as f64 + 8.0;
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" class="lanes" data-step="{step}" role="img" aria-label="where every item is at step {step}" font-family="system-ui, 'DejaVu Sans', sans-serif">"#
    );
    for (r, l) in now.iter().enumerate() {
        let y = 4.0 + ROW * r as f64;
        let before: Vec<&str> = prev.and_then(|p| p.iter().find(|x| x.name == l.name)).map(|x| x.items.iter().map(|i| base(i)).collect()).unwrap_or_default();
        let _ = write!(o, r##"<text x="4" y="{:.1}" font-size="12" fill="#374151">{}</text>"##, y + 15.0, esc(&l.name));
        let mid = y + BOX_H / 2.0;
        let _ = write!(o, r##"<line x1="{NAME_W}" y1="{mid:.1}" x2="{:.0}" y2="{mid:.1}" stroke="#e5e7eb"/>"##, w - 4.0);
        let mut x = NAME_W;
        for it in &l.items {
            let bw = width_of(it);
            let came = prev.is_some() && !before.contains(&base(it));
            let bad = it.ends_with('!');
            let (fill, stroke) = match (came, bad) {
                (_, true) => ("#fee2e2", "#b91c1c"),
                (true, _) => ("#fef3c7", "#111827"),
                _ => ("#dbeafe", "#93c5fd"),
            };
            let _ = write!(
                o,
                r#"<g class="item{}"><rect x="{x:.1}" y="{y:.1}" width="{bw:.1}" height="{BOX_H}" rx="4" fill="{fill}" stroke="{stroke}" stroke-width="{}"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle" font-family="ui-monospace, 'DejaVu Sans Mono', monospace">{}</text></g>"#,
                if came { " moved" } else { "" },
                if came { 2 } else { 1 },
                x + bw / 2.0,
                y + 15.0,
                esc(it)
            );
            x += bw + 6.0;
        }
    }
    o.push_str("</svg>");
    o
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A TLC counterexample told by what moved at each step, or None when
/// its spec has no lanes (a ring: the step table says it all).
pub fn story(trace: &[crate::TraceState]) -> Option<Vec<String>> {
    let states: Vec<Vec<Lane>> = trace
        .iter()
        .map(|st| lanes(&st.vars.iter().map(|(k, v)| (k.clone(), Json::String(v.clone()))).collect()))
        .collect::<Option<_>>()?;
    Some(
        trace
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, st)| {
                let m = moves(&states[i - 1], &states[i]);
                format!("{:>3}  {}: {}", st.num, st.action, if m.is_empty() { "nothing moved".to_string() } else { m.join("; ") })
            })
            .collect(),
    )
}

/// The item without its count or mark: `f1!` and `f1` are one frame.
fn base(item: &str) -> &str {
    item.split(['×', '!', '(']).next().unwrap_or(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, Json)]) -> serde_json::Map<String, Json> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    fn copy_tx_state(free: &str, tx: &str, flight: &str, resv: &str) -> serde_json::Map<String, Json> {
        vars(&[
            ("free", Json::String(free.into())),
            ("tx", Json::String(tx.into())),
            ("cq", Json::Array(vec![])),
            ("resv", Json::String(resv.into())),
            ("flight", Json::String(flight.into())),
            ("part", Json::String("(s1 :> <<>>)".into())),
        ])
    }

    #[test]
    fn a_copy_tx_state_puts_each_frame_in_its_place() {
        let l = lanes(&copy_tx_state("{f2, f3}", "(s1 :> <<[addr |-> f1, ok |-> TRUE, contd |-> FALSE]>>)", "<<>>", "<<Placeholder>>")).unwrap();
        let find = |n: &str| l.iter().find(|x| x.name == n).unwrap().items.clone();
        assert_eq!(find("application"), vec!["f2", "f3"]);
        assert_eq!(find("tx ring s1"), vec!["f1"]);
        assert_eq!(find("CQ reserved"), vec!["slot"]);
        assert!(find("CQ published").is_empty());
    }

    #[test]
    fn moves_say_where_a_frame_went_and_a_lost_one_goes_nowhere() {
        let a = lanes(&copy_tx_state("{f2}", "(s1 :> <<[addr |-> f1, ok |-> TRUE, contd |-> FALSE]>>)", "<<>>", "<<>>")).unwrap();
        let b = lanes(&copy_tx_state("{f2}", "(s1 :> <<>>)", "<<[sock |-> s1, addrs |-> <<f1>>, contd |-> FALSE]>>", "<<Placeholder>>")).unwrap();
        assert_eq!(moves(&a, &b), vec!["f1: tx ring s1 → in flight (skb)".to_string(), "CQ reserved: 0 → 1 slots".to_string()]);
        let lost = lanes(&copy_tx_state("{f2}", "(s1 :> <<>>)", "<<>>", "<<>>")).unwrap();
        assert_eq!(moves(&a, &lost), vec!["f1: tx ring s1 → nowhere".to_string()]);
        let both = |free: &str, tx: &str| lanes(&copy_tx_state(free, tx, "<<>>", "<<>>")).unwrap();
        let one = "(s1 :> <<[addr |-> f1, ok |-> TRUE, contd |-> FALSE]>>)";
        assert_eq!(moves(&both("{f1}", one), &both("{}", one)), vec!["f1: left application (still in tx ring s1)".to_string()]);
        assert_eq!(moves(&both("{}", one), &both("{f1}", one)), vec!["f1: now also in application (still in tx ring s1)".to_string()]);
    }

    #[test]
    fn a_napi_cache_state_puts_each_head_in_its_place() {
        let st = |slab: &str, cache: &str, held: &str, users: &str, frag: &str, next: &str| {
            let t = |x: &str| Json::String(x.into());
            vars(&[
                ("slab", t(slab)),
                ("cache", t(cache)),
                ("defer", t("<<<<>>, <<4>>>>")),
                ("dcount", t("<<0, 1>>")),
                ("heads", t("<<<<>>, <<>>>>")),
                ("users", t(users)),
                ("held", t(held)),
                ("frag", t(frag)),
                ("next", t(next)),
            ])
        };
        // 1 held twice with 2 then 3 on its frag list, 4 deferred to CPU 2
        let a = lanes(&st("{5}", "<<<<6>>, <<>>>>", "<<2, 0, 0, 0, 0, 0>>", "<<2, 1, 1, 1, 0, 0>>", "<<2, 0, 0, 0, 0, 0>>", "<<0, 3, 0, 0, 0, 0>>")).unwrap();
        let find = |l: &[Lane], n: &str| l.iter().find(|x| x.name == n).unwrap().items.clone();
        assert_eq!(find(&a, "slab"), vec!["5"]);
        assert_eq!(find(&a, "NAPI cache, CPU 1"), vec!["6"]);
        assert_eq!(find(&a, "defer list, CPU 2"), vec!["4"]);
        assert_eq!(find(&a, "held by the stack"), vec!["1×2"]);
        assert_eq!(find(&a, "frag lists"), vec!["2(on 1)", "3(on 1)"]);
        // an skb on its own frag list is drawn once
        let own = lanes(&st("{}", "<<<<>>, <<>>>>", "<<0, 0, 0, 0, 0, 0>>", "<<1, 0, 0, 0, 0, 0>>", "<<1, 0, 0, 0, 0, 0>>", "<<1, 0, 0, 0, 0, 0>>")).unwrap();
        assert_eq!(find(&own, "frag lists"), vec!["1(on 1)"]);
        // the last holder gone: 1 to the cache, its list back to the slab
        let b = lanes(&st("{2, 3, 5}", "<<<<6, 1>>, <<>>>>", "<<0, 0, 0, 0, 0, 0>>", "<<0, 0, 0, 1, 0, 0>>", "<<0, 0, 0, 0, 0, 0>>", "<<0, 0, 0, 0, 0, 0>>")).unwrap();
        assert_eq!(moves(&a, &b), vec!["1: held by the stack → NAPI cache, CPU 1", "2: frag lists → slab", "3: frag lists → slab"]);
    }

    #[test]
    fn shared_umem_and_devmem_have_lanes() {
        let su = vars(&[
            ("app", serde_json::json!([[], []])),
            ("tx", serde_json::json!([[], []])),
            ("resv", serde_json::json!([[1, 1], [2, 1]])),
            ("hw", serde_json::json!([[1, 1]])),
            ("cq", serde_json::json!([])),
            ("ufree", serde_json::json!([])),
            ("fq", serde_json::json!([3])),
            ("kfree", serde_json::json!([])),
            ("rx", serde_json::json!([[], []])),
        ]);
        let l = lanes(&su).unwrap();
        assert_eq!(l.iter().find(|x| x.name == "CQ reserved").unwrap().items, vec!["1.1", "2.1"]);
        assert_eq!(l.iter().find(|x| x.name == "fill ring").unwrap().items, vec!["3"]);
        let dm = vars(&[
            ("pool", Json::String("(<<b1, 0>> :> 0 @@ <<b1, 1>> :> 1)".into())),
            ("ppref", Json::String("(<<b1, 0>> :> 1 @@ <<b1, 1>> :> 0)".into())),
            ("uref", Json::String("(<<b1, 0>> :> 0 @@ <<b1, 1>> :> 0)".into())),
            ("rxq", Json::String("(<<b1, 0>> :> <<[niov |-> <<b1, 0>>, left |-> 1]>> @@ <<b1, 1>> :> <<>>)".into())),
            ("xa", Json::String("(<<b1, 0>> :> (0 :> <<\"none\", -1>>))".into())),
            ("user", Json::String("(<<b1, 0>> :> (0 :> 2 @@ 1 :> 0))".into())),
        ]);
        let l = lanes(&dm).unwrap();
        assert_eq!(l.iter().find(|x| x.name == "page pool free list").unwrap().items, vec!["b1.1×1"]);
        assert_eq!(l.iter().find(|x| x.name == "rx queue b1.0").unwrap().items, vec!["b1.0(1 left)"]);
        assert_eq!(l.iter().find(|x| x.name == "application b1.0").unwrap().items, vec!["token 0×2"]);
    }

    #[test]
    fn a_ring_state_has_no_lanes() {
        assert!(lanes(&vars(&[("prod", serde_json::json!(1)), ("cons", serde_json::json!(0))])).is_none());
    }

    #[test]
    fn an_rx_state_puts_each_buffer_in_its_place() {
        let v = vars(&[
            ("ufree", Json::String("{3}".into())),
            ("fq", Json::String("<<2>>".into())),
            ("fqHeld", Json::from(1)),
            ("kfree", Json::Array(vec![])),
            ("rx", Json::String("<<<<[buf |-> 1, pkt |-> 1, contd |-> FALSE], [buf |-> 4, pkt |-> 2, contd |-> FALSE]>>>>".into())),
            ("rxPub", Json::String("<<1>>".into())),
            ("cpu", Json::String("(c1 :> [stage |-> \"alloc\", bufs |-> <<5>>, peek |-> 2])".into())),
        ]);
        let l = lanes(&v).unwrap();
        let get = |n: &str| l.iter().find(|x| x.name == n).map(|x| x.items.clone()).unwrap();
        assert_eq!(get("application"), ["3"]);
        assert_eq!(get("receiving on c1"), ["5", "2(peeked)"]);
        assert_eq!(get("rx ring 1 published"), ["1(p1)"]);
        assert_eq!(get("rx ring 1 reserved"), ["4(p2)"]);
    }
}
