//! States, actions and constants of specs/XskRx.tla as TLA+ text, on one
//! line each: CPUs as the model values Config names, functions on Cpus as
//! `(c1 :> v @@ c2 :> w)`, functions on 1..n (Sockets, Pkts) and
//! sequences as `<<...>>`, records with their fields in the order the
//! spec writes them, None as 0.

use std::fmt::Write as _;

use super::action::Action;
use super::config::Config;
use super::state::{Batched, Cpu, Desc, Recv, State};

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

fn set<T>(v: impl Iterator<Item = T>, item: impl Fn(T) -> String) -> String {
    let v: Vec<String> = v.map(item).collect();
    format!("{{{}}}", v.join(", "))
}

fn cpu_name(cfg: &Config, c: Cpu) -> String {
    cfg.cpus[usize::from(c)].clone()
}

/// A function on Cpus.
fn per_cpu<T>(cfg: &Config, v: &[T], item: impl Fn(&T) -> String) -> String {
    let pairs: Vec<String> = v
        .iter()
        .enumerate()
        .map(|(c, x)| format!("{} :> {}", cpu_name(cfg, c as Cpu), item(x)))
        .collect();
    format!("({})", pairs.join(" @@ "))
}

/// An rx descriptor as the spec's record.
pub fn desc(d: &Desc) -> String {
    format!(
        "[buf |-> {}, pkt |-> {}, contd |-> {}]",
        d.buf,
        d.pkt,
        tla_bool(d.contd)
    )
}

/// A CPU's receive as the spec's record.
pub fn recv(r: &Recv) -> String {
    format!(
        "[stage |-> \"{}\", pkt |-> {}, sock |-> {}, tgt |-> {}, key |-> {}, len |-> {}, bufs |-> {}, peek |-> {}, fast |-> {}]",
        r.stage.id(),
        r.pkt,
        r.sock,
        r.tgt,
        r.key,
        r.len,
        seq(&r.bufs, |b| b.to_string()),
        r.peek.unwrap_or(0),
        tla_bool(r.fast)
    )
}

/// A packet of a CPU's batch as the spec's record.
pub fn batched(e: &Batched) -> String {
    format!(
        "[pkt |-> {}, sock |-> {}, tgt |-> {}, len |-> {}]",
        e.pkt, e.sock, e.tgt, e.len
    )
}

/// Each variable of the spec with its value in `s`, in the order of the
/// spec's `vars`.
pub fn variables(cfg: &Config, s: &State) -> Vec<(&'static str, String)> {
    let cpu_or_none = |c: &Option<Cpu>| c.map_or_else(|| "0".into(), |c| cpu_name(cfg, c));
    vec![
        ("ufree", set(s.ufree.iter(), |b| b.to_string())),
        ("fq", seq(&s.fq, |b| b.to_string())),
        ("fqHeld", s.fq_held.to_string()),
        ("kfree", seq(&s.kfree, |b| b.to_string())),
        ("rx", seq(&s.rx, |q| seq(q, desc))),
        ("rxPub", seq(&s.rx_pub, |n| n.to_string())),
        ("st", seq(&s.st, |x| format!("\"{}\"", x.id()))),
        ("map", seq(&s.map, |k| k.to_string())),
        ("arrived", s.arrived.to_string()),
        ("fate", seq(&s.fate, |f| format!("\"{}\"", f.id()))),
        ("cpu", per_cpu(cfg, &s.cpu, recv)),
        ("poller", cpu_or_none(&s.poller)),
        ("pollStart", s.poll_start.to_string()),
        (
            "flush",
            per_cpu(cfg, &s.flush, |f| set(f.iter(), |x| x.to_string())),
        ),
        ("lock", seq(&s.lock, cpu_or_none)),
        (
            "cnt",
            seq(&s.cnt, |c| {
                format!(
                    "[rx_dropped |-> {}, rx_queue_full |-> {}]",
                    c.rx_dropped, c.rx_queue_full
                )
            }),
        ),
        ("rxqXsk", s.rxq_xsk.to_string()),
        ("fastXs", per_cpu(cfg, &s.fast_xs, |x| x.to_string())),
        ("pend", per_cpu(cfg, &s.pend, |q| seq(q, batched))),
    ]
}

/// The spec's variables that differ between `a` and `b`.
pub fn changed(cfg: &Config, a: &State, b: &State) -> Vec<&'static str> {
    crate::tla::differing(&variables(cfg, a), &variables(cfg, b))
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
/// `XdpRun(c1)`, `UserRecv(2)`. The choices inside an action (UserFill's
/// buffer, XdpRun's verdict, index and length) are not parameters: they
/// are not printed.
pub fn action(cfg: &Config, a: &Action) -> String {
    let name = a.name();
    match *a {
        Action::UserFill { .. } | Action::Done => name.into(),
        Action::UserRecv { s }
        | Action::XskBind { s }
        | Action::XskRelease { s }
        | Action::XskReleaseDone { s } => format!("{name}({s})"),
        Action::XskMapUpdate { k, s } => format!("{name}({k}, {s})"),
        _ => format!("{name}({})", cpu_name(cfg, a.cpu().unwrap_or_default())),
    }
}

/// The model values a trace module must declare to name them: the CPUs.
pub fn model_values(cfg: &Config) -> Vec<&str> {
    cfg.cpus.iter().map(String::as_str).collect()
}

/// The spec's constants as a TLC .cfg's `CONSTANTS` section.
pub fn constants(cfg: &Config) -> String {
    let quoted = |s: &str| format!("\"{s}\"");
    let pairs = [
        ("Cpus", format!("{{{}}}", cfg.cpus.join(", "))),
        ("NSockets", cfg.n_sockets.to_string()),
        ("NBufs", cfg.n_bufs.to_string()),
        ("MaxPkts", cfg.max_pkts.to_string()),
        ("MaxLen", cfg.max_len.to_string()),
        ("SG", tla_bool(cfg.sg).into()),
        ("FqSize", cfg.fq_size.to_string()),
        ("RxSize", cfg.rx_size.to_string()),
        ("PollBudget", cfg.poll_budget.to_string()),
        ("Path", quoted(cfg.path.id())),
        ("Verdicts", set(cfg.verdicts.iter(), |v| quoted(v.id()))),
        ("Closes", tla_bool(cfg.closes).into()),
        ("LateBind", set(cfg.late_bind.iter(), |s| s.to_string())),
        ("Remap", tla_bool(cfg.remap).into()),
        ("TxOnly", set(cfg.tx_only.iter(), |s| s.to_string())),
        ("Redirect", quoted(cfg.redirect.id())),
        ("Batch", cfg.batch.to_string()),
        ("Mutant", quoted(cfg.mutant.id())),
    ];
    let mut out = String::from("CONSTANTS\n");
    for (k, v) in pairs {
        let _ = writeln!(out, "    {k} = {v}");
    }
    out
}
