//! The reader of DevmemTokens.tla's TLC model configs
//! (specs/mc/MCDevmem_*.cfg).

use std::path::Path;

use crate::cfg::{CfgError, CfgFile, Constants, Rhs};

use super::config::{Config, Mode, Mutant};

/// What one MCDevmem_*.cfg file says.
pub type ModelCfg = crate::cfg::ModelCfg<Config>;

const NAMES: [&str; 9] = [
    "Bindings",
    "SocksPer",
    "NiovsPer",
    "Parts",
    "Modes",
    "MaxCount",
    "DontneedLimit",
    "Lifetime",
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
    /// The CONSTANTS of an MCDevmem_*.cfg file.
    pub fn from_cfg_file(path: impl AsRef<Path>) -> Result<Config, CfgError> {
        Ok(ModelCfg::from_file(path)?.config)
    }
}

fn config_of(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
    let positive = |name: &str, max: i64| file.int_in(name, 1, max);
    let bindings = file.model_values("Bindings", true)?;
    let modes = file.id_set(
        "Modes",
        "a subset of {\"xarray\", \"array\"}",
        Mode::from_id,
    )?;
    let mutant = file.mutant::<Mutant>()?;
    let cfg = Config {
        bindings,
        socks_per: positive("SocksPer", u8::MAX.into())? as u8,
        niovs_per: positive("NiovsPer", u8::MAX.into())? as u8,
        parts: positive("Parts", 1 << 16)? as u32,
        modes,
        max_count: positive("MaxCount", 1 << 16)? as u32,
        dontneed_limit: positive("DontneedLimit", 1 << 16)? as u32,
        lifetime: file.boolean("Lifetime")?,
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
            "{}/../specs/mc/MCDevmem_{name}.cfg",
            env!("CARGO_MANIFEST_DIR")
        )
    }

    #[test]
    fn reads_the_shipped_configs() {
        let m = ModelCfg::from_file(shipped("Xarray")).unwrap();
        assert_eq!(m.config, Config::xarray());
        assert_eq!(m.invariants.len(), 9);
        assert_eq!(m.invariants[0], "RefsAccounted");
        assert!(m.check_deadlock);
        assert_eq!(
            Config::from_cfg_file(shipped("Array")).unwrap(),
            Config::array()
        );
        assert_eq!(
            Config::from_cfg_file(shipped("Modes")).unwrap(),
            Config::modes()
        );
        let race = ModelCfg::from_file(shipped("UrefRacePool")).unwrap();
        assert_eq!(race.config.mutant, Mutant::UrefRace);
        assert_eq!(race.invariants, ["PoolOnlyUnreferenced"]);
    }

    #[test]
    fn errors_are_clear() {
        let text = std::fs::read_to_string(shipped("Xarray")).unwrap();
        let e = ModelCfg::parse(&text.replace("\"none\"", "\"dm-nope\"")).unwrap_err();
        assert_eq!(e.line, 10);
        assert!(
            e.msg.starts_with("unknown devmem mutant \"dm-nope\""),
            "{e}"
        );
        let e = ModelCfg::parse(&text.replace("{\"xarray\"}", "{\"list\"}")).unwrap_err();
        assert_eq!(e.msg, "Modes must be a subset of {\"xarray\", \"array\"}");
        let e = ModelCfg::parse(&text.replace("SocksPer = 2", "SocksPer = 0")).unwrap_err();
        assert!(e.msg.starts_with("SocksPer must be"), "{e}");
        let e = ModelCfg::parse(&text.replace("Parts = 2", "Partz = 2")).unwrap_err();
        assert_eq!(e.msg, "unknown constant Partz");
        let mixed = text.replace("{\"xarray\"}", "{\"array\", \"xarray\"}");
        assert_eq!(ModelCfg::parse(&mixed).unwrap().config.modes, Mode::ALL);
    }
}
