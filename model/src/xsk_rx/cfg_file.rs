//! The reader of XskRx.tla's and XskRedirectXsk.tla's TLC model configs
//! (specs/mc/MCXskRx_*.cfg, specs/mc/MCXskRedirectXsk_*.cfg).

use std::path::Path;

use crate::cfg::{unknown_section, CfgError, CfgFile, Constants, Rhs};
use crate::tla::Value;

use super::config::{Config, Mutant, Redirect, RxPath, Verdict};

/// What one MCXskRx_*.cfg or MCXskRedirectXsk_*.cfg file says.
pub type ModelCfg = crate::cfg::ModelCfg<Config>;

const NAMES: [&str; 15] = [
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
    "Redirect",
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
    let line_of = |name: &str| file.constants.get(name).map_or(0, |(l, _)| *l);
    let bad =
        |name: &str, what: &str| file.error_at(line_of(name), format!("{name} must be {what}"));
    let value = |name: &str, what: &str| match file.constant(name)? {
        (_, Rhs::Value(v)) => Ok(v.clone()),
        _ => Err(bad(name, what)),
    };
    let int = |name: &str, min: i64, max: i64| {
        let what = format!("a natural number from {min} to {max}");
        value(name, &what)?
            .as_int()
            .filter(|i| (min..=max).contains(i))
            .ok_or_else(|| bad(name, &what))
    };
    let boolean = |name: &str| {
        value(name, "TRUE or FALSE")?
            .as_bool()
            .ok_or_else(|| bad(name, "TRUE or FALSE"))
    };
    let string = |name: &str, what: &str| {
        value(name, what)?
            .as_str()
            .map(String::from)
            .ok_or_else(|| bad(name, what))
    };
    let cpus = match file.constant("Cpus")? {
        (_, Rhs::ModelValues(v)) => v.clone(),
        (_, Rhs::ModelValue(v)) => vec![v.clone()],
        _ => return Err(bad("Cpus", "a set of model values")),
    };
    let path_what = "\"driver\" or \"generic\"";
    let path =
        RxPath::from_id(&string("Path", path_what)?).ok_or_else(|| bad("Path", path_what))?;
    let verdicts_what = "a subset of {\"redirect\", \"drop\", \"pass\"}";
    let mut verdicts = value("Verdicts", verdicts_what)?
        .as_set()
        .and_then(|s| {
            s.iter()
                .map(|v| v.as_str().and_then(Verdict::from_id))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| bad("Verdicts", verdicts_what))?;
    verdicts.sort();
    verdicts.dedup();
    let late_what = "a set of socket numbers";
    let mut late_bind = match value("LateBind", late_what)? {
        Value::Set(s) => s
            .iter()
            .map(|v| v.as_int().and_then(|i| u8::try_from(i).ok()))
            .collect::<Option<Vec<u8>>>(),
        Value::Seq(s) if s.is_empty() => Some(Vec::new()),
        _ => None,
    }
    .ok_or_else(|| bad("LateBind", late_what))?;
    late_bind.sort();
    late_bind.dedup();
    let redirect_what = "\"map\" or \"xsk\"";
    let redirect = Redirect::from_id(&string("Redirect", redirect_what)?)
        .ok_or_else(|| bad("Redirect", redirect_what))?;
    let mutant = string("Mutant", "a mutant id")?
        .parse::<Mutant>()
        .map_err(|e| file.error_at(line_of("Mutant"), e.to_string()))?;
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
        redirect,
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
        format!("{}/../specs/mc/{name}.cfg", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn reads_the_shipped_configs() {
        let m = ModelCfg::from_file(shipped("MCXskRx_Driver")).unwrap();
        assert_eq!(m.config, Config::driver());
        assert_eq!(m.invariants.len(), 9);
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
        let e = ModelCfg::parse(&text.replace("NBufs = 2", "NBufz = 2")).unwrap_err();
        assert_eq!(e.msg, "unknown constant NBufz");
    }
}
