//! TLC model configs (specs/mc/MCXskRing_*.cfg): the CONSTANTS block as a
//! Config, plus what the file asks TLC to check.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use super::config::{Barrier, Barriers, Config, Mutant, Side};
use crate::tla::{parse_value, Value};

/// A .cfg file that cannot be read: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgError {
    /// The file, when read from one.
    pub file: Option<String>,
    /// 1-based line, 0 when the error is about the file as a whole.
    pub line: usize,
    /// The offending line's text.
    pub text: String,
    pub msg: String,
}

impl fmt::Display for CfgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
        }
        if self.line > 0 {
            write!(f, "{}: {}: `{}`", self.line, self.msg, self.text.trim())
        } else {
            write!(f, " {}", self.msg)
        }
    }
}

impl std::error::Error for CfgError {}

/// What one .cfg file says.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCfg {
    pub config: Config,
    pub specification: Option<String>,
    pub invariants: Vec<String>,
    pub properties: Vec<String>,
    /// CHECK_DEADLOCK, TRUE unless the file says FALSE (TLC's default).
    pub check_deadlock: bool,
}

/// Blank out `\*` and `(* *)` comments, keeping line breaks and strings.
pub(crate) fn strip_comments(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let (mut out, mut i, mut depth, mut in_str) = (String::new(), 0, 0usize, false);
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if depth == 0 && c[i] == '"' {
            in_str = !in_str;
        } else if in_str && c[i] == '\\' {
            out.push(c[i]);
            i += 1;
        } else if !in_str && c[i] == '(' && next == Some('*') {
            depth += 1;
            i += 2;
            out.push_str("  ");
            continue;
        } else if depth > 0 && c[i] == '*' && next == Some(')') {
            depth -= 1;
            i += 2;
            out.push_str("  ");
            continue;
        } else if !in_str && depth == 0 && c[i] == '\\' && next == Some('*') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if i < c.len() {
            out.push(if depth > 0 && c[i] != '\n' { ' ' } else { c[i] });
        }
        i += 1;
    }
    out
}

const SECTIONS: [&str; 10] = [
    "CONSTANT",
    "CONSTANTS",
    "SPECIFICATION",
    "INVARIANT",
    "INVARIANTS",
    "PROPERTY",
    "PROPERTIES",
    "CHECK_DEADLOCK",
    "INIT",
    "NEXT",
];

/// TLC sections this reader refuses rather than ignores.
const UNSUPPORTED: [&str; 8] = [
    "CONSTRAINT",
    "CONSTRAINTS",
    "ACTION_CONSTRAINT",
    "ACTION_CONSTRAINTS",
    "SYMMETRY",
    "VIEW",
    "ALIAS",
    "POSTCONDITION",
];

impl ModelCfg {
    pub fn from_file(path: impl AsRef<Path>) -> Result<ModelCfg, CfgError> {
        let path = path.as_ref();
        let file = Some(path.display().to_string());
        let text = std::fs::read_to_string(path).map_err(|e| CfgError {
            file: file.clone(),
            line: 0,
            text: String::new(),
            msg: format!("cannot read: {e}"),
        })?;
        ModelCfg::parse(&text).map_err(|e| CfgError { file, ..e })
    }

    pub fn parse(text: &str) -> Result<ModelCfg, CfgError> {
        let original: Vec<&str> = text.lines().collect();
        let stripped = strip_comments(text);
        let mut section = "";
        let mut constants: BTreeMap<String, (usize, Value)> = BTreeMap::new();
        let (mut spec, mut invariants, mut properties, mut deadlock) = (None, vec![], vec![], true);
        for (n, line) in stripped.lines().enumerate() {
            let err = |msg: String| CfgError {
                file: None,
                line: n + 1,
                text: original.get(n).unwrap_or(&"").to_string(),
                msg,
            };
            let mut rest = line.trim();
            if rest.is_empty() {
                continue;
            }
            let first = rest.split_whitespace().next().unwrap_or("");
            if SECTIONS.contains(&first) {
                section = first;
                rest = rest[first.len()..].trim();
            } else if UNSUPPORTED.contains(&first) {
                return Err(err(format!("unsupported section `{first}`")));
            }
            if rest.is_empty() {
                continue;
            }
            match section {
                "CONSTANT" | "CONSTANTS" => {
                    let (name, value) = rest
                        .split_once('=')
                        .ok_or_else(|| err("expected `Name = value`".into()))?;
                    let name = name.trim();
                    if name.is_empty()
                        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err(err(format!("expected a constant name, found `{name}`")));
                    }
                    let value = parse_value(value)
                        .map_err(|e| err(format!("value of {name}: {}", e.msg)))?;
                    if constants.insert(name.to_string(), (n + 1, value)).is_some() {
                        return Err(err(format!("{name} is given twice")));
                    }
                }
                "SPECIFICATION" | "INIT" | "NEXT" => {
                    if section == "SPECIFICATION" {
                        spec = Some(rest.to_string());
                    }
                }
                "INVARIANT" | "INVARIANTS" => {
                    invariants.extend(rest.split_whitespace().map(String::from))
                }
                "PROPERTY" | "PROPERTIES" => {
                    properties.extend(rest.split_whitespace().map(String::from))
                }
                "CHECK_DEADLOCK" => {
                    deadlock = match rest {
                        "TRUE" => true,
                        "FALSE" => false,
                        _ => return Err(err("expected TRUE or FALSE".into())),
                    }
                }
                _ => return Err(err("expected a section such as CONSTANTS".into())),
            }
        }
        let config = Config::from_constants(&constants, &original)?;
        Ok(ModelCfg {
            config,
            specification: spec,
            invariants,
            properties,
            check_deadlock: deadlock,
        })
    }
}

const NAMES: [&str; 8] = [
    "Size",
    "IdxBits",
    "ProdSide",
    "ConsSide",
    "MaxBatch",
    "Barriers",
    "InvalidDescs",
    "Mutant",
];

impl Config {
    /// The CONSTANTS of an MCXskRing_*.cfg file.
    pub fn from_cfg_file(path: impl AsRef<Path>) -> Result<Config, CfgError> {
        Ok(ModelCfg::from_file(path)?.config)
    }

    /// Build from parsed constants (each with its line), checking the ASSUMEs.
    fn from_constants(
        c: &BTreeMap<String, (usize, Value)>,
        lines: &[&str],
    ) -> Result<Config, CfgError> {
        let err_at = |line: usize, msg: String| CfgError {
            file: None,
            line,
            text: lines.get(line.wrapping_sub(1)).unwrap_or(&"").to_string(),
            msg,
        };
        if let Some((name, (line, _))) = c.iter().find(|(k, _)| !NAMES.contains(&k.as_str())) {
            return Err(err_at(*line, format!("unknown constant {name}")));
        }
        // Constant `name` converted by `f`, or an error saying what it must be.
        fn want<T>(
            c: &BTreeMap<String, (usize, Value)>,
            err_at: &dyn Fn(usize, String) -> CfgError,
            name: &str,
            what: &str,
            f: impl Fn(&Value) -> Option<T>,
        ) -> Result<T, CfgError> {
            let (line, v) = c
                .get(name)
                .ok_or_else(|| err_at(0, format!("constant {name} is missing from CONSTANTS")))?;
            f(v).ok_or_else(|| err_at(*line, format!("{name} must be {what}, not {v}")))
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
            size: want(c, &err_at, "Size", "a natural number", nat)?,
            idx_bits: want(c, &err_at, "IdxBits", "a natural number", |v| {
                nat(v).and_then(|i| u32::try_from(i).ok())
            })?,
            prod_side: want(c, &err_at, "ProdSide", "\"kernel\" or \"user\"", side)?,
            cons_side: want(c, &err_at, "ConsSide", "\"kernel\" or \"user\"", side)?,
            max_batch: want(c, &err_at, "MaxBatch", "a natural number", nat)?,
            barriers: want(
                c,
                &err_at,
                "Barriers",
                "a subset of {\"A\", \"B\", \"C\", \"D\"}",
                barriers,
            )?,
            invalid_descs: want(c, &err_at, "InvalidDescs", "TRUE or FALSE", Value::as_bool)?,
            mutant: want(c, &err_at, "Mutant", "a mutant id", |v| {
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
        assert_eq!(e.line, 10);
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
            (15, "unsupported section `SYMMETRY`")
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
