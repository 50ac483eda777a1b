//! States and constants of specs/XskCopyTx.tla as TLA+ text: a state as a
//! record of the spec's variables (what a trace log holds), the constants
//! as the CONSTANTS of a TLC .cfg. Frames and sockets print as the model
//! values Config names; a design-b slot as the constant `Placeholder`.

use std::fmt::Write as _;

use super::config::{Config, Design, DropFrags, PublishFrags};
use super::state::{Call, Desc, Frame, Skb, Slot, Sock, State};

pub fn tla_bool(b: bool) -> &'static str {
    if b {
        "TRUE"
    } else {
        "FALSE"
    }
}

/// `<<a, b>>`
pub fn seq<T>(items: &[T], item: impl Fn(&T) -> String) -> String {
    let v: Vec<String> = items.iter().map(item).collect();
    format!("<<{}>>", v.join(", "))
}

/// `{a, b}`
pub fn set(items: impl Iterator<Item = String>) -> String {
    format!("{{{}}}", items.collect::<Vec<_>>().join(", "))
}

pub use crate::tla::record;

/// Values of the spec as TLA+ text, frames and sockets named as one
/// Config names them.
pub struct Names<'a>(pub &'a Config);

impl Names<'_> {
    pub fn frame(&self, f: Frame) -> String {
        self.0.frames[f as usize].clone()
    }

    pub fn sock(&self, s: Sock) -> String {
        self.0.sockets[s as usize].clone()
    }

    /// `[s \in Sockets |-> ...]` as TLC prints it: `(s1 :> x @@ s2 :> y)`.
    fn per_socket<T>(&self, v: &[T], item: impl Fn(&T) -> String) -> String {
        let pairs: Vec<String> = v
            .iter()
            .enumerate()
            .map(|(s, x)| format!("{} :> {}", self.sock(s as Sock), item(x)))
            .collect();
        format!("({})", pairs.join(" @@ "))
    }

    /// An element of Desc.
    pub fn desc(&self, d: &Desc) -> String {
        record(&[
            ("addr", self.frame(d.addr)),
            ("ok", tla_bool(d.ok).into()),
            ("contd", tla_bool(d.contd).into()),
        ])
    }

    pub fn slot(&self, r: &Slot) -> String {
        match r {
            Slot::Addr(f) => self.frame(*f),
            Slot::Placeholder => "Placeholder".into(),
        }
    }

    pub fn skb(&self, k: &Skb) -> String {
        record(&[
            ("sock", self.sock(k.sock)),
            ("addrs", seq(&k.addrs, |f| self.frame(*f))),
            ("contd", tla_bool(k.contd).into()),
        ])
    }

    fn call(&self, c: &Call) -> String {
        record(&[
            ("stage", format!("\"{}\"", c.stage.id())),
            ("done", c.done.to_string()),
            ("pend", c.pend.to_string()),
            ("batch", seq(&c.batch, |d| self.desc(d))),
            ("snap", c.snap.to_string()),
        ])
    }
}

/// Each variable of the spec with its value in `s`, in the order of the
/// spec's `vars`. A variable added to the spec is added here.
pub fn variables(cfg: &Config, s: &State) -> Vec<(&'static str, String)> {
    let n = Names(cfg);
    let flag = |b: &bool| tla_bool(*b).to_string();
    vec![
        ("free", set(s.free.iter().map(|f| n.frame(*f)))),
        ("tx", n.per_socket(&s.tx, |q| seq(q, |d| n.desc(d)))),
        ("cq", seq(&s.cq, |f| n.frame(*f))),
        ("resv", seq(&s.resv, |r| n.slot(r))),
        ("flight", set(s.flight.iter().map(|k| n.skb(k)))),
        ("call", n.per_socket(&s.call, |c| n.call(c))),
        ("part", n.per_socket(&s.part, |q| seq(q, |f| n.frame(*f)))),
        ("drain", n.per_socket(&s.drain, flag)),
        ("pubd", n.per_socket(&s.pubd, flag)),
        ("rewound", n.per_socket(&s.rewound, flag)),
    ]
}

/// `s` as one record of the spec's variables (a line of a trace log).
pub fn state_record(cfg: &Config, s: &State) -> String {
    record(&variables(cfg, s))
}

/// Why `s` cannot be printed under `cfg`: a frame or socket it names that
/// Config does not, or per-socket variables of the wrong length.
pub fn check_names(cfg: &Config, s: &State) -> Result<(), String> {
    let (nf, ns) = (cfg.frames.len(), cfg.sockets.len());
    let per_socket = [
        ("tx", s.tx.len()),
        ("call", s.call.len()),
        ("part", s.part.len()),
        ("drain", s.drain.len()),
        ("pubd", s.pubd.len()),
        ("rewound", s.rewound.len()),
    ];
    for (what, len) in per_socket {
        if len != ns {
            return Err(format!("{what} has {len} sockets, the config {ns}"));
        }
    }
    let slots = s.resv.iter().filter_map(|r| match r {
        Slot::Addr(f) => Some(*f),
        Slot::Placeholder => None,
    });
    let descs = s.tx.iter().chain(s.call.iter().map(|c| &c.batch)).flatten();
    let frames = s
        .free
        .iter()
        .copied()
        .chain(s.cq.iter().copied())
        .chain(slots)
        .chain(s.flight.iter().flat_map(|k| k.addrs.iter().copied()))
        .chain(s.part.iter().flatten().copied())
        .chain(descs.map(|d| d.addr));
    if let Some(f) = frames.into_iter().find(|f| *f as usize >= nf) {
        return Err(format!("frame {f} is not one of the config's {nf} frames"));
    }
    if let Some(k) = s.flight.iter().find(|k| k.sock as usize >= ns) {
        return Err(format!("an skb of socket {} (the config has {ns})", k.sock));
    }
    Ok(())
}

/// The model values a trace module must declare to name them: the
/// sockets, then the frames.
pub fn model_values(cfg: &Config) -> Vec<&str> {
    cfg.sockets
        .iter()
        .chain(&cfg.frames)
        .map(String::as_str)
        .collect()
}

/// The spec's constants as a TLC .cfg's `CONSTANTS` section, Sockets and
/// Frames as sets of model values.
pub fn constants(cfg: &Config) -> String {
    let strings = |v: Vec<&str>| set(v.into_iter().map(|x| format!("\"{x}\"")));
    let design = match cfg.design {
        Design::A => "a",
        Design::B => "b",
    };
    let drop_frags = match cfg.drop_frags {
        DropFrags::Cancel => "cancel",
        DropFrags::Complete => "complete",
    };
    let publish_frags = match cfg.publish_frags {
        PublishFrags::All => "all",
        PublishFrags::Packet => "packet",
    };
    let pairs = [
        ("Sockets", set(cfg.sockets.iter().cloned())),
        ("Frames", set(cfg.frames.iter().cloned())),
        ("Placeholder", cfg.placeholder.clone()),
        ("TxSize", cfg.tx_size.to_string()),
        ("CqSize", cfg.cq_size.to_string()),
        ("Budget", cfg.budget.to_string()),
        ("Design", format!("\"{design}\"")),
        ("BatchSize", cfg.batch_size.to_string()),
        (
            "Outcomes",
            strings(cfg.outcomes.iter().map(|o| o.id()).collect()),
        ),
        ("AllocFails", tla_bool(cfg.alloc_fails).into()),
        ("MultiBuf", tla_bool(cfg.multi_buf).into()),
        ("MaxFrags", cfg.max_frags.to_string()),
        ("DropFrags", format!("\"{drop_frags}\"")),
        ("PublishFrags", format!("\"{publish_frags}\"")),
        ("Mutant", format!("\"{}\"", cfg.mutant.id())),
    ];
    let mut out = String::from("CONSTANTS\n");
    for (k, v) in pairs {
        let _ = writeln!(out, "    {k} = {v}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_tx::{Action, ModelCfg, Stage, TxResult};

    #[test]
    fn init_prints_every_variable() {
        let cfg = Config::design_b();
        let r = state_record(&cfg, &State::init(&cfg));
        let idle = "[stage |-> \"idle\", done |-> 0, pend |-> 0, batch |-> <<>>, snap |-> 0]";
        let no = "(s1 :> FALSE @@ s2 :> FALSE)";
        assert_eq!(
            r,
            format!(
                "[free |-> {{f1, f2, f3}}, tx |-> (s1 :> <<>> @@ s2 :> <<>>), cq |-> <<>>, \
                 resv |-> <<>>, flight |-> {{}}, call |-> (s1 :> {idle} @@ s2 :> {idle}), \
                 part |-> (s1 :> <<>> @@ s2 :> <<>>), drain |-> {no}, pubd |-> {no}, \
                 rewound |-> {no}]"
            )
        );
    }

    #[test]
    fn steps_print_descs_slots_and_skbs() {
        let cfg = Config::design_b();
        let mut s = State::init(&cfg);
        for a in [
            Action::UserSubmit {
                s: 1,
                f: 2,
                ok: true,
                contd: false,
            },
            Action::Sendto { s: 1 },
            Action::XmitReserve { s: 1 },
        ] {
            s = s.step(&cfg, &a).unwrap();
        }
        assert_eq!(s.call[1].stage, Stage::Reserved);
        let v = variables(&cfg, &s);
        assert_eq!(
            v[1].1,
            "(s1 :> <<>> @@ s2 :> <<[addr |-> f3, ok |-> TRUE, contd |-> FALSE]>>)"
        );
        assert_eq!(v[3].1, "<<Placeholder>>");
        let s = s
            .step(
                &cfg,
                &Action::XmitSend {
                    s: 1,
                    o: TxResult::Sent,
                },
            )
            .unwrap();
        assert_eq!(
            variables(&cfg, &s)[4].1,
            "{[sock |-> s2, addrs |-> <<f3>>, contd |-> FALSE]}"
        );
        assert_eq!(check_names(&cfg, &s), Ok(()));
        let mut bad = s.clone();
        bad.cq.push(3);
        assert!(check_names(&cfg, &bad).unwrap_err().contains("frame 3"));
    }

    #[test]
    fn constants_read_back_as_the_same_config() {
        let cfg = Config::design_b();
        let m = ModelCfg::parse(&constants(&cfg)).unwrap();
        assert_eq!(m.config, cfg);
        let mb = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../specs/mc/MCXskCopyTx_Mb.cfg"
        );
        let mb = ModelCfg::from_file(mb).unwrap().config;
        assert_eq!(ModelCfg::parse(&constants(&mb)).unwrap().config, mb);
        assert_eq!(model_values(&cfg), ["s1", "s2", "f1", "f2", "f3"]);
    }
}
