//! The CONSTANTS of specs/XskCopyTx.tla, and the reader of its TLC model
//! configs (specs/mc/MCXskCopyTx_*.cfg).

use serde::{Deserialize, Serialize};
use std::path::Path;

use super::state::Frame;
use crate::cfg::{CfgError, CfgFile, Constants, Rhs};

/// Design: where a completion's address comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Design {
    /// "a" (6.12.117): stored in the slot at reservation.
    A,
    /// "b": carried by the skb, stored when its destructor runs.
    B,
}

/// A driver result (spec: an element of Outcomes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TxResult {
    Busy,
    Drop,
    Sent,
}

impl TxResult {
    pub const ALL: [TxResult; 3] = [TxResult::Busy, TxResult::Drop, TxResult::Sent];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            TxResult::Busy => "busy",
            TxResult::Drop => "drop",
            TxResult::Sent => "sent",
        }
    }

    pub fn from_id(s: &str) -> Option<TxResult> {
        TxResult::ALL.into_iter().find(|o| o.id() == s)
    }
}

/// Mutant: "none" or a mutant id of specs/manifest.json.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mutant {
    None,
    TxBusyRollback,
    CqResvFail,
    SharedCqRace,
    CqLeak2019,
    BudgetOverrun,
    InvalidNoCompletion,
    MbSendPartial,
    TxBusySkbKept,
}

impl Mutant {
    pub const ALL: [Mutant; 9] = [
        Mutant::None,
        Mutant::TxBusyRollback,
        Mutant::CqResvFail,
        Mutant::SharedCqRace,
        Mutant::CqLeak2019,
        Mutant::BudgetOverrun,
        Mutant::InvalidNoCompletion,
        Mutant::MbSendPartial,
        Mutant::TxBusySkbKept,
    ];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Mutant::None => "none",
            Mutant::TxBusyRollback => "xsk-txbusy-rollback",
            Mutant::CqResvFail => "xsk-cq-resv-fail",
            Mutant::SharedCqRace => "xsk-shared-cq-race",
            Mutant::CqLeak2019 => "xsk-cq-leak-2019",
            Mutant::BudgetOverrun => "budget-overrun",
            Mutant::InvalidNoCompletion => "invalid-no-completion",
            Mutant::MbSendPartial => "mb-send-partial",
            Mutant::TxBusySkbKept => "txbusy-skb-kept",
        }
    }

    pub fn from_id(s: &str) -> Option<Mutant> {
        Mutant::ALL.into_iter().find(|m| m.id() == s)
    }
}

/// DropFrags: what happens to a dropped packet's built fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DropFrags {
    /// 6.12.117's xsk_drop_skb(): their completion slots are cancelled.
    Cancel,
    /// What af_xdp.rst promises: their addresses are completed.
    Complete,
}

/// PublishFrags: how far a refresh publishes the tx consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PublishFrags {
    /// 6.12.117: past every consumed descriptor.
    All,
    /// Only up to the packet being built.
    Packet,
}

/// The spec's CONSTANTS. Sockets and frames are model values, named here
/// and numbered by their position in these lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub sockets: Vec<String>,
    pub frames: Vec<String>,
    pub placeholder: String,
    pub tx_size: usize,
    pub cq_size: usize,
    pub budget: i64,
    pub design: Design,
    /// 0: the per-descriptor loop; n > 0: seed 000's batch of n.
    pub batch_size: i64,
    /// In TLC's order of the strings: busy, drop, sent.
    pub outcomes: Vec<TxResult>,
    pub alloc_fails: bool,
    /// The application may set XDP_PKT_CONTD.
    pub multi_buf: bool,
    /// Descriptors in one packet at most (MAX_SKB_FRAGS + 1).
    pub max_frags: i64,
    pub drop_frags: DropFrags,
    pub publish_frags: PublishFrags,
    pub mutant: Mutant,
}

impl Config {
    /// MCXskCopyTx_B.cfg: design b, two sockets, three frames.
    pub fn design_b() -> Config {
        Config {
            sockets: vec!["s1".into(), "s2".into()],
            frames: vec!["f1".into(), "f2".into(), "f3".into()],
            placeholder: "Placeholder".into(),
            tx_size: 2,
            cq_size: 2,
            budget: 2,
            design: Design::B,
            batch_size: 0,
            outcomes: TxResult::ALL.to_vec(),
            alloc_fails: true,
            multi_buf: false,
            max_frags: 1,
            drop_frags: DropFrags::Cancel,
            publish_frags: PublishFrags::All,
            mutant: Mutant::None,
        }
    }

    /// The spec's ASSUMEs, and what the model's types need.
    pub fn validate(&self) -> Result<(), String> {
        if self.budget < 1 {
            return Err(format!("Budget = {} is not in Nat \\ {{0}}", self.budget));
        }
        if self.batch_size < 0 {
            return Err(format!("BatchSize = {} is not in Nat", self.batch_size));
        }
        if !self.outcomes.contains(&TxResult::Sent) {
            return Err("\"sent\" is not in Outcomes".into());
        }
        if self.batch_size > 0 && self.design != Design::B {
            return Err("BatchSize > 0 needs Design = \"b\"".into());
        }
        if self.max_frags < 1 {
            return Err(format!("MaxFrags = {} is not in Nat \\ {{0}}", self.max_frags));
        }
        if self.sockets.is_empty() || self.sockets.len() > 8 {
            return Err("the model needs 1 to 8 sockets".into());
        }
        if self.frames.is_empty() || self.frames.len() > usize::from(Frame::MAX) {
            return Err(format!("the model needs 1 to {} frames", Frame::MAX));
        }
        Ok(())
    }
}

/// What one MCXskCopyTx_*.cfg file says.
pub type ModelCfg = crate::cfg::ModelCfg<Config>;

const NAMES: [&str; 15] = [
    "Sockets",
    "Frames",
    "Placeholder",
    "TxSize",
    "CqSize",
    "Budget",
    "Design",
    "BatchSize",
    "Outcomes",
    "AllocFails",
    "MultiBuf",
    "MaxFrags",
    "DropFrags",
    "PublishFrags",
    "Mutant",
];

impl Constants for Config {
    type Rhs = Rhs;
    fn rhs(name: &str, text: &str) -> Result<Rhs, String> {
        Rhs::named(&NAMES, name, text)
    }
    fn from_constants(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
        Config::of_constants(file)
    }
}

impl Config {
    /// The CONSTANTS of an MCXskCopyTx_*.cfg file.
    pub fn from_cfg_file(path: impl AsRef<Path>) -> Result<Config, CfgError> {
        Ok(ModelCfg::from_file(path)?.config)
    }

    fn of_constants(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
        let err_at = |line: usize, msg: String| file.error_at(line, msg);
        let want = |name: &str| file.constant(name);
        let bad = |name: &str, what: &str| {
            let line = file.constants.get(name).map_or(0, |(l, _)| *l);
            err_at(line, format!("{name} must be {what}"))
        };
        let value = |name: &str, what: &str| match want(name)? {
            (_, Rhs::Value(v)) => Ok(v.clone()),
            _ => Err(bad(name, what)),
        };
        let nat = |name: &str| {
            value(name, "a natural number")?
                .as_int()
                .filter(|i| *i >= 0)
                .ok_or_else(|| bad(name, "a natural number"))
        };
        let model_values = |name: &str| match want(name)? {
            (_, Rhs::ModelValues(v)) => Ok(v.clone()),
            _ => Err(bad(name, "a set of model values")),
        };
        let strings = |name: &str, what: &str| -> Result<String, CfgError> {
            value(name, what)?
                .as_str()
                .map(String::from)
                .ok_or_else(|| bad(name, what))
        };
        let placeholder = match want("Placeholder")? {
            (_, Rhs::ModelValue(v)) => v.clone(),
            _ => return Err(bad("Placeholder", "a model value")),
        };
        let outcomes_what = "a subset of {\"sent\", \"busy\", \"drop\"}";
        let outcomes = value("Outcomes", outcomes_what)?
            .as_set()
            .and_then(|s| {
                s.iter()
                    .map(|v| v.as_str().and_then(TxResult::from_id))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| bad("Outcomes", outcomes_what))?;
        let mut outcomes = outcomes;
        outcomes.sort();
        let cfg = Config {
            sockets: model_values("Sockets")?,
            frames: model_values("Frames")?,
            placeholder,
            tx_size: nat("TxSize")? as usize,
            cq_size: nat("CqSize")? as usize,
            budget: nat("Budget")?,
            design: match strings("Design", "\"a\" or \"b\"")?.as_str() {
                "a" => Design::A,
                "b" => Design::B,
                _ => return Err(bad("Design", "\"a\" or \"b\"")),
            },
            batch_size: nat("BatchSize")?,
            outcomes,
            alloc_fails: value("AllocFails", "TRUE or FALSE")?
                .as_bool()
                .ok_or_else(|| bad("AllocFails", "TRUE or FALSE"))?,
            multi_buf: value("MultiBuf", "TRUE or FALSE")?
                .as_bool()
                .ok_or_else(|| bad("MultiBuf", "TRUE or FALSE"))?,
            max_frags: nat("MaxFrags")?,
            drop_frags: match strings("DropFrags", "\"cancel\" or \"complete\"")?.as_str() {
                "cancel" => DropFrags::Cancel,
                "complete" => DropFrags::Complete,
                _ => return Err(bad("DropFrags", "\"cancel\" or \"complete\"")),
            },
            publish_frags: match strings("PublishFrags", "\"all\" or \"packet\"")?.as_str() {
                "all" => PublishFrags::All,
                "packet" => PublishFrags::Packet,
                _ => return Err(bad("PublishFrags", "\"all\" or \"packet\"")),
            },
            mutant: Mutant::from_id(&strings("Mutant", "a mutant id")?)
                .ok_or_else(|| bad("Mutant", "a mutant id"))?,
        };
        cfg.validate()
            .map_err(|msg| err_at(0, format!("ASSUME fails: {msg}")))?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_model_values_and_sections() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs/mc/MCXskCopyTx_A.cfg");
        let m = ModelCfg::from_file(path).unwrap();
        assert_eq!(m.config.sockets, ["s1", "s2"]);
        assert_eq!(m.config.frames, ["f1", "f2", "f3"]);
        assert_eq!(m.config.placeholder, "Placeholder");
        assert_eq!(m.config.design, Design::A);
        assert_eq!(m.config.outcomes, TxResult::ALL);
        assert_eq!(m.symmetry.as_deref(), Some("Perms"));
        assert_eq!(m.invariants.len(), 6);
        assert!(m.check_deadlock);
        let live = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../specs/mc/MCXskCopyTx_Live.cfg"
        );
        let m = ModelCfg::from_file(live).unwrap();
        assert_eq!((m.symmetry, m.check_deadlock), (None, false));
        assert_eq!(m.properties, ["EveryValidDescCompleted"]);
    }

    #[test]
    fn errors_name_the_line() {
        let text = "CONSTANTS\n    Sockets = {s1, s1}\n";
        let e = ModelCfg::parse(text).unwrap_err();
        assert_eq!(
            (e.line, e.msg.as_str()),
            (2, "value of Sockets: s1 is listed twice")
        );
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../specs/mc/MCXskCopyTx_Batch.cfg"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let e = ModelCfg::parse(&text.replace("\"b\"", "\"a\"")).unwrap_err();
        assert!(e.msg.contains("ASSUME fails"), "{e}");
        let e = ModelCfg::parse(&text.replace("Placeholder = Placeholder", "Placeholder = 1"))
            .unwrap_err();
        assert_eq!(e.msg, "Placeholder must be a model value");
    }

    #[test]
    fn reads_every_shipped_copy_tx_config() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs/mc");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("MCXskCopyTx_") && name.ends_with(".cfg") {
                ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
        assert!(n >= 10);
    }
}
