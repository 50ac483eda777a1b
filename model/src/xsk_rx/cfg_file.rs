//! The reader of XskRx.tla's and XskRedirectXsk.tla's TLC model configs
//! (specs/mc/MCXskRx_*.cfg, specs/mc/MCXskRedirectXsk_*.cfg).

use std::path::Path;

use crate::cfg::{unknown_section, CfgError, CfgFile, Constants, Rhs};
use crate::tla::Value;

use super::config::{Config, Mutant, Redirect, RxPath, Verdict};

/// What one MCXskRx_*.cfg or MCXskRedirectXsk_*.cfg file says.
pub type ModelCfg = crate::cfg::ModelCfg<Config>;

const NAMES: [&str; 18] = [
    "Cpus",
    "NSockets",
    "NBufs",
    "MaxPkts",
    "MaxLen",
    "SG",
    "FqSize",
    "RxSize",
    "PollBudget",
    "Path",
    "Verdicts",
    "Closes",
    "LateBind",
    "Remap",
    "TxOnly",
    "Redirect",
    "Batch",
    "Mutant",
];

impl Constants for Config {
    type Rhs = Rhs;
    /// Sections the reader does not know, but SG: a constant whose name
    /// reads like a section's.
    fn unsupported(word: &str) -> bool {
        word != "SG" && unknown_section(word)
    }
    fn rhs(name: &str, text: &str) -> Result<Rhs, String> {
        Rhs::named(&NAMES, name, text)
    }
    fn from_constants(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
        config_of(file)
    }
}

impl Config {
    /// The CONSTANTS of an MCXskRx_*.cfg or MCXskRedirectXsk_*.cfg file.
    pub fn from_cfg_file(path: impl AsRef<Path>) -> Result<Config, CfgError> {
        Ok(ModelCfg::from_file(path)?.config)
    }
}

fn config_of(file: &CfgFile<Rhs>) -> Result<Config, CfgError> {
    let int = |name: &str, min: i64, max: i64| file.int_in(name, min, max);
    let boolean = |name: &str| file.boolean(name);
    let cpus = file.model_values("Cpus", false)?;
    let path = file.id("Path", "\"driver\" or \"generic\"", RxPath::from_id)?;
    let verdicts = file.id_set(
        "Verdicts",
        "a subset of {\"redirect\", \"drop\", \"pass\"}",
        Verdict::from_id,
    )?;
    let late_bind = socket_set(file, "LateBind")?;
    let tx_only = socket_set(file, "TxOnly")?;
    let redirect = file.id("Redirect", "\"map\" or \"xsk\"", Redirect::from_id)?;
    let mutant = file.mutant::<Mutant>()?;
    let cfg = Config {
        cpus,
        n_sockets: int("NSockets", 1, 64)? as u8,
        n_bufs: int("NBufs", 1, 64)? as u8,
        max_pkts: int("MaxPkts", 0, 200)? as u8,
        max_len: int("MaxLen", 1, 64)? as u8,
        sg: boolean("SG")?,
        fq_size: int("FqSize", 1, 1 << 16)? as u32,
        rx_size: int("RxSize", 1, 1 << 16)? as u32,
        poll_budget: int("PollBudget", 1, 1 << 16)? as u32,
        path,
        verdicts,
        closes: boolean("Closes")?,
        late_bind,
        remap: boolean("Remap")?,
        tx_only,
        redirect,
        batch: int("Batch", 0, 255)? as u8,
        mutant,
    };
    cfg.validate()
        .map_err(|msg| file.error_at(0, format!("ASSUME fails: {msg}")))?;
    Ok(cfg)
}

/// A set of socket numbers, sorted, each once.
fn socket_set(file: &CfgFile<Rhs>, name: &str) -> Result<Vec<u8>, CfgError> {
    let what = "a set of socket numbers";
    let mut v = match file.value(name, what)? {
        Value::Set(s) => s
            .iter()
            .map(|v| v.as_int().and_then(|i| u8::try_from(i).ok()))
            .collect::<Option<Vec<u8>>>(),
        Value::Seq(s) if s.is_empty() => Some(Vec::new()),
        _ => None,
    }
    .ok_or_else(|| file.bad(name, what))?;
    v.sort();
    v.dedup();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> String {
        format!("{}/../specs/mc/{name}.cfg", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn reads_the_shipped_configs() {
        let m = ModelCfg::from_file(shipped("MCXskRx_Driver")).unwrap();
        assert_eq!(m.config, Config::driver());
        assert_eq!(m.invariants.len(), 11);
        assert_eq!(m.invariants[10], "RxInOrder");
        assert_eq!(m.invariants[4], "ChunkedOnlyWithSG");
        assert_eq!(m.invariants[0], "BufConservation");
        assert_eq!(m.symmetry.as_deref(), Some("Perms"));
        assert_eq!(m.specification.as_deref(), Some("Spec"));
        assert_eq!(
            Config::from_cfg_file(shipped("MCXskRx_Generic")).unwrap(),
            Config::generic()
        );
        let late = Config::from_cfg_file(shipped("MCXskRx_LateBind")).unwrap();
        assert_eq!(late.late_bind, [1, 2]);
        let fast = ModelCfg::from_file(shipped("MCXskRedirectXsk_Fast")).unwrap();
        assert_eq!(fast.config, Config::fast());
        assert_eq!(fast.specification.as_deref(), Some("FastSpec"));
        assert_eq!(fast.properties, ["Refinement"]);
        let batch = ModelCfg::from_file(shipped("MCXskRedirectXsk_Batch")).unwrap();
        assert_eq!(batch.config, Config::batch());
        assert_eq!(batch.properties, ["Refinement"]);
        let race = ModelCfg::from_file(shipped("MCXskRx_GenRace")).unwrap();
        assert_eq!(race.config.mutant, Mutant::XskGenRxRace);
    }

    #[test]
    fn reads_every_shipped_config() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs/mc");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if (name.starts_with("MCXskRx_") || name.starts_with("MCXskRedirectXsk_"))
                && name.ends_with(".cfg")
            {
                ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
        assert!(n >= 18, "{n} configs");
    }

    #[test]
    fn errors_are_clear() {
        let text = std::fs::read_to_string(shipped("MCXskRx_Driver")).unwrap();
        let e = ModelCfg::parse(&text.replace("\"none\"", "\"rx-nope\"")).unwrap_err();
        assert!(
            e.msg.starts_with("unknown xsk-rx mutant \"rx-nope\""),
            "{e}"
        );
        let e = ModelCfg::parse(&text.replace("Verdicts = {\"redirect\", ", "Verdicts = {"))
            .unwrap_err();
        assert!(e.msg.contains("\"redirect\" is not in Verdicts"), "{e}");
        let e = ModelCfg::parse(
            &text
                .replace("\"map\"", "\"xsk\"")
                .replace("\"driver\"", "\"generic\""),
        )
        .unwrap_err();
        assert!(e.msg.contains("ASSUME fails"), "{e}");
        // ASSUME Batch > 1 => Redirect = "xsk".
        let e = ModelCfg::parse(&text.replace("Batch = 1", "Batch = 2")).unwrap_err();
        assert!(
            e.msg.contains("ASSUME fails: Batch = 2 needs Redirect = \"xsk\""),
            "{e}"
        );
        let e = ModelCfg::parse(&text.replace("Batch = 1", "Batch = 0")).unwrap_err();
        assert!(e.msg.contains("Batch = 0 is not in Nat"), "{e}");
        let e = ModelCfg::parse(&text.replace("    Batch = 1\n", "")).unwrap_err();
        assert!(e.msg.contains("Batch"), "{e}");
        let e = ModelCfg::parse(&text.replace("NBufs = 2", "NBufz = 2")).unwrap_err();
        assert_eq!(e.msg, "unknown constant NBufz");
    }
}
