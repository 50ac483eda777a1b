//! The reader of IoUringZcNotif.tla's TLC model configs
//! (specs/mc/MCIoUringZcNotif*.cfg).

use std::path::Path;

use crate::cfg::{CfgError, CfgFile, Constants, Rhs};

use super::config::{Config, Fail, Mutant, Reuse};

/// What one MCIoUringZcNotif*.cfg file says.
pub type ModelCfg = crate::cfg::ModelCfg<Config>;

const NAMES: [&str; 11] = [
    "NReqs", "ReqLen", "MaxSkbs", "SqSize", "CqSize", "Batch", "Fixed", "Link", "Fails", "Reuse",
    "Mutant",
];

impl Constants for Config {
    type Rhs = Rhs;
    fn rhs(name: &str, text: &str) -> Result<Rhs, String> {
        Rhs::named(&NAMES, name, text)
    }
    fn from_constants(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
        config_of(file)
    }
}

impl Config {
    /// The CONSTANTS of an MCIoUringZcNotif*.cfg file.
    pub fn from_cfg_file(path: impl AsRef<Path>) -> Result<Config, CfgError> {
        Ok(ModelCfg::from_file(path)?.config)
    }
}

fn config_of(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
    let positive = |name: &str, max: i64| file.int_in(name, 1, max);
    let fails = file.id_set(
        "Fails",
        "a subset of {\"nomem\", \"inval\", \"fault\", \"eagain\", \"partial\", \"pipe\"}",
        Fail::from_id,
    )?;
    let reuse = file.id("Reuse", "\"notif\" or \"cqe\"", Reuse::from_id)?;
    let mutant = file.mutant::<Mutant>()?;
    let cfg = Config {
        n_reqs: positive("NReqs", u8::MAX.into())? as u8,
        req_len: positive("ReqLen", 1 << 16)? as u32,
        max_skbs: positive("MaxSkbs", u8::MAX.into())? as u8,
        sq_size: positive("SqSize", 1 << 16)? as u32,
        cq_size: positive("CqSize", 1 << 16)? as u32,
        batch: positive("Batch", 1 << 16)? as u32,
        fixed: file.boolean("Fixed")?,
        link: file.boolean("Link")?,
        fails,
        reuse,
        mutant,
    };
    cfg.validate()
        .map_err(|msg| file.error_at(0, format!("ASSUME fails: {msg}")))?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> String {
        format!(
            "{}/../specs/mc/MCIoUringZcNotif{name}.cfg",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    #[test]
    fn reads_the_shipped_configs() {
        let m = ModelCfg::from_file(shipped("")).unwrap();
        assert_eq!(m.config, Config::zc_notif());
        assert_eq!(m.invariants.len(), 12);
        assert_eq!(m.invariants[0], "NotifOnce");
        assert!(m.check_deadlock);
        assert_eq!(
            Config::from_cfg_file(shipped("_Batch1")).unwrap(),
            Config::batch1()
        );
        let early = ModelCfg::from_file(shipped("_ReuseEarly")).unwrap();
        assert_eq!(early.config.reuse, Reuse::Cqe);
        let one = ModelCfg::from_file(shipped("_SkipNotifOne")).unwrap();
        assert_eq!(one.config.mutant, Mutant::SkipNotif);
        assert_eq!(one.invariants[0], "NotifForEveryPrep");
    }

    #[test]
    fn errors_are_clear() {
        let text = std::fs::read_to_string(shipped("")).unwrap();
        let e = ModelCfg::parse(&text.replace("\"none\"", "\"iou-nope\"")).unwrap_err();
        assert!(
            e.msg.starts_with("unknown io_uring zc mutant \"iou-nope\""),
            "{e}"
        );
        let e = ModelCfg::parse(&text.replace("\"pipe\"}", "\"pipes\"}")).unwrap_err();
        assert!(e.msg.starts_with("Fails must be a subset of"), "{e}");
        let e = ModelCfg::parse(&text.replace("CqSize = 1", "CqSize = 0")).unwrap_err();
        assert!(e.msg.starts_with("CqSize must be"), "{e}");
        let e = ModelCfg::parse(&text.replace("Fixed = TRUE", "Fixed = 1")).unwrap_err();
        assert_eq!(e.msg, "Fixed must be TRUE or FALSE");
        let e = ModelCfg::parse(&text.replace("Reuse = \"notif\"", "Reuse = \"skb\"")).unwrap_err();
        assert_eq!(e.msg, "Reuse must be \"notif\" or \"cqe\"");
        let none = text.replace(
            "{\"nomem\", \"inval\", \"fault\", \"eagain\", \"partial\", \"pipe\"}",
            "{}",
        );
        assert_eq!(ModelCfg::parse(&none).unwrap().config.fails, []);
    }
}
