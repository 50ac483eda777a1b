//! The entries specs/XskRxTraces.tla reads: a boundary entry with a
//! whole state where a trace starts, then per step what the step changed
//! (ufree as buffers added and removed, fq, kfree and each rx ring as an
//! [`Edit`], a function as the arguments that changed, anything else
//! whole) and the action the projection names.

use std::collections::BTreeSet;

use ringlab_model::afxdp::RxStep;
use ringlab_model::copy_tx::tla::{record, seq, set};
use ringlab_model::xsk_rx::tla::{batched, desc, recv, state_record};
use ringlab_model::xsk_rx::{Buf, Config, Cpu, State};

use crate::trace::kernel_chain::Edit;

fn edit_text<T: Clone + PartialEq>(old: &[T], new: &[T], item: impl Fn(&T) -> String) -> Option<String> {
    Edit::between(old, new).map(|e| {
        record(&[
            ("drop", e.drop.to_string()),
            ("cut", e.cut.to_string()),
            ("front", seq(&e.front, &item)),
            ("back", seq(&e.back, &item)),
        ])
    })
}

/// `(k1 :> x @@ k2 :> y)` for the arguments where `text` gives a change.
fn changed_args(keys: impl Iterator<Item = String>, text: impl Fn(usize) -> Option<String>) -> Option<String> {
    let pairs: Vec<String> = keys.enumerate().filter_map(|(i, k)| text(i).map(|t| format!("{k} :> {t}"))).collect();
    (!pairs.is_empty()).then(|| format!("({})", pairs.join(" @@ ")))
}

/// A function on 1..n: the arguments whose values differ, with `b`'s.
fn upd<T: PartialEq>(a: &[T], b: &[T], item: impl Fn(&T) -> String) -> Option<String> {
    changed_args((1..=b.len()).map(|k| k.to_string()), |i| (a[i] != b[i]).then(|| item(&b[i])))
}

/// A function on Cpus.
fn upd_cpu<T: PartialEq>(cfg: &Config, a: &[T], b: &[T], item: impl Fn(&T) -> String) -> Option<String> {
    changed_args(cfg.cpus.iter().cloned(), |i| (a[i] != b[i]).then(|| item(&b[i])))
}

fn cpu_or_none(cfg: &Config, c: &Option<Cpu>) -> String {
    c.map_or_else(|| "0".into(), |c| cfg.cpus[usize::from(c)].clone())
}

/// What a step from `a` to `b` changed, as the record `d` of its entry.
pub fn changes(cfg: &Config, a: &State, b: &State) -> String {
    let bufs = |s: BTreeSet<Buf>| set(s.into_iter().map(|x| x.to_string()));
    let num = |x: &Buf| x.to_string();
    let mut f: Vec<(&str, String)> = Vec::new();
    if a.ufree != b.ufree {
        let add = b.ufree.difference(&a.ufree).copied().collect();
        let del = a.ufree.difference(&b.ufree).copied().collect();
        f.push(("ufree", record(&[("add", bufs(add)), ("del", bufs(del))])));
    }
    let rx = changed_args((1..=b.rx.len()).map(|k| k.to_string()), |s| edit_text(&a.rx[s], &b.rx[s], desc));
    let quoted = |x: &str| format!("\"{x}\"");
    let fields = [
        ("fq", edit_text(&a.fq, &b.fq, num)),
        ("fqHeld", (a.fq_held != b.fq_held).then(|| b.fq_held.to_string())),
        ("kfree", edit_text(&a.kfree, &b.kfree, num)),
        ("rx", rx),
        ("rxPub", upd(&a.rx_pub, &b.rx_pub, |n| n.to_string())),
        ("st", upd(&a.st, &b.st, |x| quoted(x.id()))),
        ("map", upd(&a.map, &b.map, |x| x.to_string())),
        ("arrived", (a.arrived != b.arrived).then(|| b.arrived.to_string())),
        ("fate", upd(&a.fate, &b.fate, |x| quoted(x.id()))),
        ("cpu", upd_cpu(cfg, &a.cpu, &b.cpu, recv)),
        ("poller", (a.poller != b.poller).then(|| cpu_or_none(cfg, &b.poller))),
        ("pollStart", (a.poll_start != b.poll_start).then(|| b.poll_start.to_string())),
        ("flush", upd_cpu(cfg, &a.flush, &b.flush, |x| set(x.iter().map(|s| s.to_string())))),
        ("lock", upd(&a.lock, &b.lock, |c| cpu_or_none(cfg, c))),
        (
            "cnt",
            upd(&a.cnt, &b.cnt, |c| {
                record(&[("rx_dropped", c.rx_dropped.to_string()), ("rx_queue_full", c.rx_queue_full.to_string())])
            }),
        ),
        ("rxqXsk", (a.rxq_xsk != b.rxq_xsk).then(|| b.rxq_xsk.to_string())),
        ("fastXs", upd_cpu(cfg, &a.fast_xs, &b.fast_xs, |x| x.to_string())),
        ("pend", upd_cpu(cfg, &a.pend, &b.pend, |q| seq(q, batched))),
    ];
    f.extend(fields.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
    if f.is_empty() {
        // A stutter: a function with no domain, so nothing changes.
        return "<<>>".into();
    }
    record(&f)
}

/// A trace's boundary entry: its first state, whole.
pub fn boundary(cfg: &Config, s: &State) -> String {
    record(&[("kind", "\"init\"".into()), ("st", state_record(cfg, s))])
}

/// The entry of step `k`, from `a` to `b`.
pub fn step(cfg: &Config, k: &RxStep, a: &State, b: &State) -> String {
    let mut f: Vec<(&str, String)> = vec![("kind", "\"step\"".into()), ("act", format!("\"{}\"", k.action.name()))];
    if let Some(c) = k.action.cpu() {
        f.push(("c", cfg.cpus[usize::from(c)].clone()));
    }
    use ringlab_model::xsk_rx::Action::*;
    if let UserRecv { s } | XskBind { s } | XskMapUpdate { s, .. } | XskRelease { s } | XskReleaseDone { s } = k.action {
        f.push(("s", s.to_string()));
    }
    if let XskMapUpdate { k: key, .. } = k.action {
        f.push(("k", key.to_string()));
    }
    f.push(("d", changes(cfg, a, b)));
    record(&f)
}
