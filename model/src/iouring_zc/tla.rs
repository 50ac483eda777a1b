//! States, actions and constants of specs/IoUringZcNotif.tla as TLA+
//! text, each value as TLC prints it (on one line): functions on Reqs and
//! SkbIds as sequences, records with their fields and sets with their
//! elements in TLC's order.
//!
//! TLC orders strings, record fields among them, as it first read them:
//! the .cfg's strings first, then (as TLC's traces of the spec show) its
//! identifiers before its string literals. So a CQE is `[notif |-> b,
//! r |-> n, res |-> x, more |-> b]` when the .cfg's Reuse is "notif",
//! `[r |-> n, notif |-> b, res |-> x, more |-> b]` when it is not; the
//! other records keep the spec's order (`[state |-> s, ref |-> c,
//! head |-> h, next |-> m]`, `[uarg |-> n, bufs |-> B]`).

use std::fmt::Write as _;

use super::action::Action;
use super::config::{Config, Reuse};
use super::state::{Cqe, Got, Holder, Notif, Skb, State};

fn tla_bool(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

fn seq<T>(v: &[T], item: impl Fn(&T) -> String) -> String {
    let v: Vec<String> = v.iter().map(item).collect();
    format!("<<{}>>", v.join(", "))
}

fn string(s: &str) -> String {
    format!("\"{s}\"")
}

fn cqe(cfg: &Config, c: &Cqe) -> String {
    let (notif, r) = (tla_bool(c.notif), c.r);
    let (res, more) = (c.res, tla_bool(c.more));
    match cfg.reuse {
        Reuse::Notif => format!("[notif |-> {notif}, r |-> {r}, res |-> {res}, more |-> {more}]"),
        Reuse::Cqe => format!("[r |-> {r}, notif |-> {notif}, res |-> {res}, more |-> {more}]"),
    }
}

fn notif(d: &Notif) -> String {
    format!(
        "[state |-> \"{}\", ref |-> {}, head |-> {}, next |-> {}]",
        d.state.id(),
        d.refs,
        d.head,
        d.next
    )
}

fn skb(k: &Skb) -> String {
    let bufs: Vec<String> = k.bufs.iter().map(|r| r.to_string()).collect();
    format!("[uarg |-> {}, bufs |-> {{{}}}]", k.uarg, bufs.join(", "))
}

/// `got[r]`: the string Reuse names comes first ("notif" is also a field
/// name the spec lexes, "cqe" only a literal).
fn got(cfg: &Config, g: &Got) -> String {
    let cqe = g.cqe.then_some("\"cqe\"");
    let notif = g.notif.then_some("\"notif\"");
    let v: Vec<&str> = match cfg.reuse {
        Reuse::Cqe => [cqe, notif],
        Reuse::Notif => [notif, cqe],
    }
    .into_iter()
    .flatten()
    .collect();
    format!("{{{}}}", v.join(", "))
}

fn holder(h: &Holder) -> String {
    match h {
        Holder::Notif(r) => format!("<<\"notif\", {r}>>"),
        Holder::Table => "<<\"table\", 0>>".into(),
        Holder::Req(r) => format!("<<\"req\", {r}>>"),
    }
}

/// The spec's variables that differ between `a` and `b`.
pub fn changed(cfg: &Config, a: &State, b: &State) -> Vec<&'static str> {
    crate::tla::differing(&variables(cfg, a), &variables(cfg, b))
}

/// Each variable of the spec with its value in `s`, in the order of the
/// spec's `vars`.
pub fn variables(cfg: &Config, s: &State) -> Vec<(&'static str, String)> {
    let node: Vec<String> = s.node.iter().map(holder).collect();
    let cqe = |c: &Cqe| cqe(cfg, c);
    vec![
        ("sq", seq(&s.sq, |r| r.to_string())),
        ("todo", s.todo.to_string()),
        ("st", seq(&s.st, |x| string(x.id()))),
        ("sent", seq(&s.sent, |x| x.to_string())),
        ("nd", seq(&s.nd, notif)),
        ("skb", seq(&s.skb, skb)),
        ("compl", seq(&s.compl, cqe)),
        ("tw", seq(&s.tw, |r| r.to_string())),
        ("cq", seq(&s.cq, cqe)),
        ("ovf", seq(&s.ovf, cqe)),
        ("posted", seq(&s.posted, cqe)),
        ("reaped", s.reaped.to_string()),
        ("got", seq(&s.got, |g| got(cfg, g))),
        ("reused", seq(&s.reused, |b| tla_bool(*b).into())),
        ("node", format!("{{{}}}", node.join(", "))),
    ]
}

/// `s` as one record of the spec's variables (a line of a trace log).
pub fn state_record(cfg: &Config, s: &State) -> String {
    crate::tla::record(&variables(cfg, s))
}

/// `s` as TLC prints a state: one `/\ var = value` line per variable.
pub fn state_conjunction(cfg: &Config, s: &State) -> String {
    crate::tla::conjunction(&variables(cfg, s))
}

/// The action as the spec's operator applied to its parameters, e.g.
/// `UserSubmit(1)`, `IoSendZc(2)`, `SkbFree(1)`. The choices inside an
/// action (IoSendZcPrep's and IoSendZc's \E) are not parameters: they
/// are not printed.
pub fn action(_cfg: &Config, a: &Action) -> String {
    let name = a.name();
    match *a {
        Action::UserSubmit(r)
        | Action::IoSendZc { r, .. }
        | Action::IoPollRetry(r)
        | Action::UserReuse(r) => format!("{name}({r})"),
        Action::SkbFree(k) => format!("{name}({k})"),
        _ => name.into(),
    }
}

/// The spec's constants as a TLC .cfg's `CONSTANTS` section.
pub fn constants(cfg: &Config) -> String {
    let fails: Vec<String> = cfg.fails.iter().map(|f| string(f.id())).collect();
    let pairs = [
        ("NReqs", cfg.n_reqs.to_string()),
        ("ReqLen", cfg.req_len.to_string()),
        ("MaxSkbs", cfg.max_skbs.to_string()),
        ("SqSize", cfg.sq_size.to_string()),
        ("CqSize", cfg.cq_size.to_string()),
        ("Batch", cfg.batch.to_string()),
        ("Fixed", tla_bool(cfg.fixed).into()),
        ("Link", tla_bool(cfg.link).into()),
        ("Fails", format!("{{{}}}", fails.join(", "))),
        ("Reuse", string(cfg.reuse.id())),
        ("Mutant", string(cfg.mutant.id())),
    ];
    let mut out = String::from("CONSTANTS\n");
    for (k, v) in pairs {
        let _ = writeln!(out, "    {k} = {v}");
    }
    out
}
