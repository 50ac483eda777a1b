//! TLC model configs (specs/mc/MCXskRing_*.cfg): the CONSTANTS block as a
//! Config, plus what the file asks TLC to check.

use std::path::Path;

use super::config::{Barrier, Barriers, Config, Mutant, Side};
use crate::cfg::{CfgError, CfgFile, Constants};
use crate::tla::{parse_value, Value};

/// What one MCXskRing_*.cfg file says.
pub type ModelCfg = crate::cfg::ModelCfg<Config>;

/// TLC sections this reader refuses rather than ignores.
const UNSUPPORTED: [&str; 7] = [
    "CONSTRAINT",
    "CONSTRAINTS",
    "ACTION_CONSTRAINT",
    "ACTION_CONSTRAINTS",
    "SYMMETRY",
    "ALIAS",
    "POSTCONDITION",
];

impl Constants for Config {
    type Rhs = Value;
    fn unsupported(word: &str) -> bool {
        UNSUPPORTED.contains(&word)
    }
    fn rhs(name: &str, text: &str) -> Result<Value, String> {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("expected a constant name, found `{name}`"));
        }
        parse_value(text).map_err(|e| format!("value of {name}: {}", e.msg))
    }
    fn from_constants(file: &CfgFile<Value>) -> Result<Config, CfgError> {
        Config::of_constants(file)
    }
}

const NAMES: [&str; 9] = [
    "Size",
    "IdxBits",
    "ProdSide",
    "ConsSide",
    "MaxBatch",
    "Barriers",
    "InvalidDescs",
    "CopyTx",
    "Mutant",
];

impl Config {
    /// The CONSTANTS of an MCXskRing_*.cfg file.
    pub fn from_cfg_file(path: impl AsRef<Path>) -> Result<Config, CfgError> {
        Ok(ModelCfg::from_file(path)?.config)
    }

    /// Build from parsed constants (each with its line), checking the ASSUMEs.
    fn of_constants(file: &CfgFile<Value>) -> Result<Config, CfgError> {
        let err_at = |line: usize, msg: String| file.error_at(line, msg);
        let c = &file.constants;
        if let Some((name, (line, _))) = c.iter().find(|(k, _)| !NAMES.contains(&k.as_str())) {
            return Err(err_at(*line, format!("unknown constant {name}")));
        }
        // Constant `name` converted by `f`, or an error saying what it must be.
        fn want<T>(
            file: &CfgFile<Value>,
            name: &str,
            what: &str,
            f: impl Fn(&Value) -> Option<T>,
        ) -> Result<T, CfgError> {
            let (line, v) = file.constant(name)?;
            f(v).ok_or_else(|| file.error_at(*line, format!("{name} must be {what}, not {v}")))
        }
        let nat = |v: &Value| v.as_int().and_then(|i| u64::try_from(i).ok());
        let side = |v: &Value| v.as_str().and_then(Side::from_id);
        let barriers = |v: &Value| {
            v.as_set()?
                .iter()
                .map(|b| b.as_str().and_then(Barrier::from_id))
                .collect::<Option<Barriers>>()
        };
        let cfg = Config {
            size: want(file, "Size", "a natural number", nat)?,
            idx_bits: want(file, "IdxBits", "a natural number", |v| {
                nat(v).and_then(|i| u32::try_from(i).ok())
            })?,
            prod_side: want(file, "ProdSide", "\"kernel\" or \"user\"", side)?,
            cons_side: want(file, "ConsSide", "\"kernel\" or \"user\"", side)?,
            max_batch: want(file, "MaxBatch", "a natural number", nat)?,
            barriers: want(
                file,
                "Barriers",
                "a subset of {\"A\", \"B\", \"C\", \"D\"}",
                barriers,
            )?,
            invalid_descs: want(file, "InvalidDescs", "TRUE or FALSE", Value::as_bool)?,
            copy_tx: want(file, "CopyTx", "TRUE or FALSE", Value::as_bool)?,
            mutant: want(file, "Mutant", "a mutant id", |v| {
                v.as_str().and_then(Mutant::from_id)
            })?,
        };
        cfg.validate()
            .map_err(|msg| err_at(0, format!("ASSUME fails: {msg}")))?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xsk_ring::config::Barriers;

    const FILL: &str = r#"\* Fill0
CONSTANTS
    Size = 2
    IdxBits = 3
    ProdSide = "user"
    ConsSide = "kernel"
    MaxBatch = 2
    Barriers = {"A", "B", "C", "D"}
    InvalidDescs = FALSE
    CopyTx = FALSE
    Mutant = "none"   (* the correct ring *)
SPECIFICATION Spec
INVARIANTS
    TypeOK
    IndicesAreU32
"#;

    #[test]
    fn parses_a_model_config() {
        let m = ModelCfg::parse(FILL).unwrap();
        assert_eq!(m.config.size, 2);
        assert_eq!(m.config.prod_side, Side::User);
        assert_eq!(m.config.barriers, Barriers::ALL);
        assert_eq!(m.config.mutant, Mutant::None);
        assert_eq!(m.specification.as_deref(), Some("Spec"));
        assert_eq!(m.invariants, ["TypeOK", "IndicesAreU32"]);
        assert!(m.check_deadlock);
        let live = FILL.replace(
            "INVARIANTS\n    TypeOK\n    IndicesAreU32\n",
            "PROPERTY P\nCHECK_DEADLOCK FALSE\n",
        );
        let m = ModelCfg::parse(&live).unwrap();
        assert_eq!((m.properties.len(), m.check_deadlock), (1, false));
    }

    #[test]
    fn errors_name_the_line() {
        let e = ModelCfg::parse(&FILL.replace("MaxBatch = 2", "MaxBatch = 2 3")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "7: value of MaxBatch: expected end of input, found integer 3: `MaxBatch = 2 3`"
        );
        let e = ModelCfg::parse(&FILL.replace("\"user\"", "\"usr\"")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "5: ProdSide must be \"kernel\" or \"user\", not \"usr\": `ProdSide = \"usr\"`"
        );
        let e = ModelCfg::parse(&FILL.replace("\"none\"", "\"typo\"")).unwrap_err();
        assert_eq!(e.line, 11);
        let e = ModelCfg::parse(&FILL.replace("Size = 2", "Size 2")).unwrap_err();
        assert_eq!((e.line, e.msg.as_str()), (3, "expected `Name = value`"));
        let e = ModelCfg::parse(&FILL.replace("    IdxBits = 3\n", "")).unwrap_err();
        assert!(e.to_string().contains("IdxBits is missing"), "{e}");
        let e = ModelCfg::parse(&FILL.replace("Size = 2", "Size = 3")).unwrap_err();
        assert!(e.to_string().contains("ASSUME fails: Size = 3"), "{e}");
        let e = ModelCfg::parse(&FILL.replace("Size = 2", "Sise = 2")).unwrap_err();
        assert_eq!(e.to_string(), "3: unknown constant Sise: `Sise = 2`");
        let e = ModelCfg::parse(&format!("{FILL}SYMMETRY Perms\n")).unwrap_err();
        assert_eq!(
            (e.line, e.msg.as_str()),
            (16, "unsupported section `SYMMETRY`")
        );
        let e = Config::from_cfg_file("/nonexistent.cfg").unwrap_err();
        assert!(
            e.to_string().starts_with("/nonexistent.cfg: cannot read"),
            "{e}"
        );
    }

    #[test]
    fn reads_every_shipped_ring_config() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../specs/mc");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            let ring = path
                .file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("MCXskRing_"));
            if ring && path.extension().is_some_and(|x| x == "cfg") {
                Config::from_cfg_file(&path).unwrap_or_else(|e| panic!("{e}"));
                n += 1;
            }
        }
        assert!(n >= 4);
    }
}
