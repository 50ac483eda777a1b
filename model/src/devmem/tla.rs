//! States, actions and constants of specs/DevmemTokens.tla as TLA+ text,
//! each value as TLC prints it (on one line): bindings as the model values
//! Config names, sockets and net_iovs as tuples `<<b1, 0>>`, NoNiov as
//! `<<"none", -1>>`, NoTok as `-1`, functions as `(k :> v @@ ...)` with
//! their domain in TLC's order, `stolen` as a set of records
//! `[tok |-> i, by |-> s, from |-> o]` (TLC's order of fields and
//! elements).

use std::fmt::Write as _;

use super::action::Action;
use super::config::Config;
use super::state::{Binding, Niov, Skb, Sock, State, Stolen};

fn tla_bool(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// A function as TLC prints it; the empty function is `<<>>`.
fn function(pairs: impl Iterator<Item = (String, String)>) -> String {
    let v: Vec<String> = pairs.map(|(k, v)| format!("{k} :> {v}")).collect();
    if v.is_empty() {
        "<<>>".into()
    } else {
        format!("({})", v.join(" @@ "))
    }
}

/// Names of bindings, sockets and net_iovs under one Config.
struct Names<'a>(&'a Config);

impl Names<'_> {
    fn binding(&self, b: Binding) -> String {
        self.0.bindings[usize::from(b)].clone()
    }

    fn sock(&self, s: Sock) -> String {
        format!("<<{}, {}>>", self.binding(s.b), s.i)
    }

    fn niov(&self, n: Niov) -> String {
        format!("<<{}, {}>>", self.binding(n.b), n.i)
    }

    /// An xa entry: a net_iov or NoNiov.
    fn xa_entry(&self, n: &Option<Niov>) -> String {
        n.map_or_else(|| "<<\"none\", -1>>".into(), |n| self.niov(n))
    }

    fn skb(&self, k: &Skb) -> String {
        format!("[niov |-> {}, left |-> {}]", self.niov(k.niov), k.left)
    }

    fn stolen(&self, x: &Stolen) -> String {
        format!(
            "[tok |-> {}, by |-> {}, from |-> {}]",
            x.tok,
            self.sock(x.by),
            self.sock(x.from)
        )
    }

    fn per_binding<T>(&self, v: &[T], item: impl Fn(&T) -> String) -> String {
        function(
            self.0
                .binding_ids()
                .map(|b| (self.binding(b), item(&v[usize::from(b)]))),
        )
    }

    fn per_sock<T>(&self, v: &[T], item: impl Fn(&T) -> String) -> String {
        let cfg = self.0;
        function(
            cfg.socks()
                .into_iter()
                .map(|s| (self.sock(s), item(&v[cfg.sock_index(s)]))),
        )
    }

    fn per_niov<T>(&self, v: &[T], item: impl Fn(&T) -> String) -> String {
        let cfg = self.0;
        function(
            cfg.niovs()
                .into_iter()
                .map(|n| (self.niov(n), item(&v[cfg.niov_index(n)]))),
        )
    }

    /// A function on Toks.
    fn per_tok<T>(&self, v: &[T], item: impl Fn(&T) -> String) -> String {
        function(v.iter().enumerate().map(|(t, x)| (t.to_string(), item(x))))
    }
}

/// Each variable of the spec with its value in `s`, in the order of the
/// spec's `vars`.
///
/// Panics if `s` does not fit `cfg` (State::type_ok tells).
/// The spec's variables that differ between `a` and `b`.
pub fn changed(cfg: &Config, a: &State, b: &State) -> Vec<&'static str> {
    crate::tla::differing(&variables(cfg, a), &variables(cfg, b))
}

pub fn variables(cfg: &Config, s: &State) -> Vec<(&'static str, String)> {
    let n = Names(cfg);
    let int = |x: &i64| x.to_string();
    let seq = |q: &Vec<Skb>| {
        let v: Vec<String> = q.iter().map(|k| n.skb(k)).collect();
        format!("<<{}>>", v.join(", "))
    };
    let stolen: Vec<String> = s.stolen.iter().map(|x| n.stolen(x)).collect();
    let boolean = |b: &bool| tla_bool(*b).to_string();
    let l = &s.life;
    vec![
        ("bst", n.per_binding(&s.bst, |b| format!("\"{}\"", b.id()))),
        (
            "mode",
            n.per_binding(&s.mode, |m| format!("\"{}\"", m.id())),
        ),
        ("pool", n.per_niov(&s.pool, |x| x.to_string())),
        ("ppref", n.per_niov(&s.ppref, int)),
        ("uref", n.per_niov(&s.uref, int)),
        ("rxq", n.per_sock(&s.rxq, seq)),
        ("xa", n.per_sock(&s.xa, |x| n.per_tok(x, |e| n.xa_entry(e)))),
        ("open", n.per_sock(&s.open, |o| tla_bool(*o).into())),
        (
            "user",
            n.per_sock(&s.user, |u| n.per_tok(u, |x| x.to_string())),
        ),
        ("stolen", format!("{{{}}}", stolen.join(", "))),
        ("work", s.work.to_string()),
        (
            "pend",
            n.per_sock(&s.pend, |p| {
                p.map_or_else(|| "-1".into(), |t| t.to_string())
            }),
        ),
        ("dev", n.per_binding(&l.dev, |d| format!("\"{}\"", d.id()))),
        ("mp", n.per_binding(&l.mp, |m| format!("\"{}\"", m.id()))),
        ("bref", n.per_binding(&l.bref, int)),
        ("sref", n.per_sock(&l.sref, boolean)),
        ("freed", n.per_binding(&l.freed, boolean)),
        (
            "smode",
            format!("\"{}\"", l.smode.map_or("none", |m| m.id())),
        ),
        ("tbind", n.per_binding(&l.tbind, boolean)),
        ("tdev", n.per_binding(&l.tdev, boolean)),
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
/// `RecvMsg(<<b1, 0>>)`, `Dontneed(<<b1, 1>>, 0, 3)`. RecvMsg's `told`
/// is a choice inside the action, not a parameter: it is not printed.
pub fn action(cfg: &Config, a: &Action) -> String {
    let n = Names(cfg);
    let name = a.name();
    match *a {
        Action::BindRx { b, m } => format!("{name}({}, \"{}\")", n.binding(b), m.id()),
        Action::RxFrag { s, n: v } => format!("{name}({}, {})", n.sock(s), n.niov(v)),
        Action::RecvMsg { s, .. } | Action::DontneedPut { s } | Action::Close { s } => {
            format!("{name}({})", n.sock(s))
        }
        Action::Dontneed { s, t, c } => format!("{name}({}, {t}, {c})", n.sock(s)),
        Action::DontneedRead { s, t } => format!("{name}({}, {t})", n.sock(s)),
        Action::Unbind { b }
        | Action::NlSockClose { b }
        | Action::NetdevUnregister { b }
        | Action::MpDmabufDevmemDestroy { b } => format!("{name}({})", n.binding(b)),
        Action::Done => name.into(),
    }
}

/// The model values a trace module must declare to name them: the
/// bindings.
pub fn model_values(cfg: &Config) -> Vec<&str> {
    cfg.bindings.iter().map(String::as_str).collect()
}

/// The spec's constants as a TLC .cfg's `CONSTANTS` section.
pub fn constants(cfg: &Config) -> String {
    let modes: Vec<String> = cfg
        .modes
        .iter()
        .map(|m| format!("\"{}\"", m.id()))
        .collect();
    let pairs = [
        ("Bindings", format!("{{{}}}", cfg.bindings.join(", "))),
        ("SocksPer", cfg.socks_per.to_string()),
        ("NiovsPer", cfg.niovs_per.to_string()),
        ("Parts", cfg.parts.to_string()),
        ("Modes", format!("{{{}}}", modes.join(", "))),
        ("MaxCount", cfg.max_count.to_string()),
        ("DontneedLimit", cfg.dontneed_limit.to_string()),
        ("Lifetime", tla_bool(cfg.lifetime).to_string()),
        ("Mutant", format!("\"{}\"", cfg.mutant.id())),
    ];
    let mut out = String::from("CONSTANTS\n");
    for (k, v) in pairs {
        let _ = writeln!(out, "    {k} = {v}");
    }
    out
}
