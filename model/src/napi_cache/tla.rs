//! States, actions and constants of specs/NapiSkbCache.tla as TLA+ text,
//! each value as TLC prints it (on one line): functions on CPUs and Skbs
//! (domains 1..n) as sequences, the slab as a set of ids ascending.

use std::fmt::Write as _;

use super::action::Action;
use super::config::Config;
use super::state::{Skb, State};

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

fn ids(q: &[Skb]) -> String {
    seq(q, |s| s.to_string())
}

/// The spec's variables that differ between `a` and `b`.
pub fn changed(cfg: &Config, a: &State, b: &State) -> Vec<&'static str> {
    crate::tla::differing(&variables(cfg, a), &variables(cfg, b))
}

/// Each variable of the spec with its value in `s`, in the order of the
/// spec's `vars`.
pub fn variables(_cfg: &Config, s: &State) -> Vec<(&'static str, String)> {
    let slab: Vec<String> = s.slab.iter().map(|x| x.to_string()).collect();
    let num = |x: &u32| x.to_string();
    vec![
        ("slab", format!("{{{}}}", slab.join(", "))),
        ("cache", seq(&s.cache, |q| ids(q))),
        (
            "touch",
            seq(&s.touch, |t| format!("<<{}, {}>>", t.cpu, string(t.ctx.id()))),
        ),
        ("defer", seq(&s.defer, |q| ids(q))),
        ("dcount", seq(&s.dcount, num)),
        ("kick", seq(&s.kick, |b| tla_bool(*b).into())),
        ("ctx", seq(&s.ctx, |c| string(c.id()))),
        ("users", seq(&s.users, |u| u.to_string())),
        ("held", seq(&s.held, num)),
        ("frag", seq(&s.frag, |x| x.to_string())),
        ("next", seq(&s.next, |x| x.to_string())),
        ("owner", seq(&s.owner, |x| x.to_string())),
        ("heads", seq(&s.heads, |q| ids(q))),
        ("pending", seq(&s.pending, num)),
        ("left", s.left.to_string()),
        ("rcvd", s.rcvd.to_string()),
        ("dropped", s.dropped.to_string()),
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
/// `NetRxAction(1)`, `SkbAttemptDeferFree(2, 3)`; the choices of its \E
/// are not parameters.
pub fn action(_cfg: &Config, a: &Action) -> String {
    a.to_string()
}

/// The spec's constants as a TLC .cfg's `CONSTANTS` section.
pub fn constants(cfg: &Config) -> String {
    let pairs = [
        ("NCpu", cfg.ncpu.to_string()),
        ("NSkb", cfg.nskb.to_string()),
        ("CacheSize", cfg.cache_size.to_string()),
        ("Bulk", cfg.bulk.to_string()),
        ("DeferMax", cfg.defer_max.to_string()),
        ("Batch", cfg.batch.to_string()),
        ("NFrames", cfg.nframes.to_string()),
        ("Path", string(cfg.path.id())),
        ("Clone", tla_bool(cfg.clone).into()),
        ("SlabFail", tla_bool(cfg.slab_fail).into()),
        ("Mutant", string(cfg.mutant.id())),
    ];
    let mut out = String::from("CONSTANTS\n");
    for (k, v) in pairs {
        let _ = writeln!(out, "    {k} = {v}");
    }
    out
}
