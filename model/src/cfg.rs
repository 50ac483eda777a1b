//! TLC model configs (.cfg files): the sections every spec's configs share,
//! with each constant's right-hand side left for the spec to interpret.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

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

/// The sections this reader knows.
pub const SECTIONS: [&str; 12] = [
    "CONSTANT",
    "CONSTANTS",
    "SPECIFICATION",
    "SYMMETRY",
    "VIEW",
    "INVARIANT",
    "INVARIANTS",
    "PROPERTY",
    "PROPERTIES",
    "CHECK_DEADLOCK",
    "INIT",
    "NEXT",
];

/// Whether `word`, starting a line, names a section outside SECTIONS, or
/// VIEW: only a spec with a view (XskRing's ShiftView) reads that one, and
/// a reader that ignored it would search more states than TLC.
pub fn unknown_section(word: &str) -> bool {
    word == "VIEW" || !SECTIONS.contains(&word) && word.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// Whether `s` is a TLA+ identifier, as TLC's model values are named.
pub fn is_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A right-hand side `{a, b, c}` of identifiers (TRUE and FALSE are
/// values): the model values it declares, each at most once. None when it
/// is not such a set.
pub fn model_value_set(text: &str) -> Option<Result<Vec<String>, String>> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?;
    let items: Vec<&str> = inner.split(',').map(str::trim).collect();
    if !items
        .iter()
        .all(|i| is_ident(i) && *i != "TRUE" && *i != "FALSE")
    {
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    for i in items {
        if names.iter().any(|n| n == i) {
            return Some(Err(format!("{i} is listed twice")));
        }
        names.push(i.to_string());
    }
    Some(Ok(names))
}

/// What one .cfg file says, each constant's right-hand side as a `T`.
#[derive(Clone, Debug, PartialEq)]
pub struct CfgFile<T = String> {
    /// Each constant's line (1-based) and right-hand side, by name.
    pub constants: BTreeMap<String, (usize, T)>,
    pub specification: Option<String>,
    /// SYMMETRY: the name of the permutation set.
    pub symmetry: Option<String>,
    /// VIEW: the name of the view.
    pub view: Option<String>,
    pub invariants: Vec<String>,
    pub properties: Vec<String>,
    /// CHECK_DEADLOCK, TRUE unless the file says FALSE (TLC's default).
    pub check_deadlock: bool,
    /// The file's lines, as written.
    lines: Vec<String>,
}

impl CfgFile<String> {
    /// Read a .cfg file, keeping each constant's right-hand side as text.
    pub fn from_file(path: impl AsRef<Path>) -> Result<CfgFile, CfgError> {
        read_file(path, CfgFile::parse)
    }

    /// Parse a .cfg file's text, keeping each constant's right-hand side as
    /// text and refusing sections this reader does not know.
    pub fn parse(text: &str) -> Result<CfgFile, CfgError> {
        CfgFile::parse_with(text, unknown_section, |_, rhs| Ok(rhs.trim().to_string()))
    }
}

/// Read the file at `path` and parse it with `parse`; errors name the file.
pub fn read_file<M>(
    path: impl AsRef<Path>,
    parse: impl FnOnce(&str) -> Result<M, CfgError>,
) -> Result<M, CfgError> {
    let path = path.as_ref();
    let file = Some(path.display().to_string());
    let text = std::fs::read_to_string(path).map_err(|e| CfgError {
        file: file.clone(),
        line: 0,
        text: String::new(),
        msg: format!("cannot read: {e}"),
    })?;
    parse(&text).map_err(|e| CfgError { file, ..e })
}

impl<T> CfgFile<T> {
    /// Parse a .cfg file's text. A line starting with a word for which
    /// `unsupported` holds is refused (checked before SECTIONS); each
    /// constant `Name = rhs` becomes `constant(Name, rhs)`, whose error
    /// message is reported at the constant's line.
    pub fn parse_with(
        text: &str,
        unsupported: impl Fn(&str) -> bool,
        mut constant: impl FnMut(&str, &str) -> Result<T, String>,
    ) -> Result<CfgFile<T>, CfgError> {
        let lines: Vec<String> = text.lines().map(String::from).collect();
        let mut m = CfgFile {
            constants: BTreeMap::new(),
            specification: None,
            symmetry: None,
            view: None,
            invariants: vec![],
            properties: vec![],
            check_deadlock: true,
            lines: vec![],
        };
        let stripped = strip_comments(text);
        let mut section = "";
        for (n, line) in stripped.lines().enumerate() {
            let err = |msg: String| CfgError {
                file: None,
                line: n + 1,
                text: lines.get(n).cloned().unwrap_or_default(),
                msg,
            };
            let mut rest = line.trim();
            if rest.is_empty() {
                continue;
            }
            let first = rest.split_whitespace().next().unwrap_or("");
            if unsupported(first) {
                return Err(err(format!("unsupported section `{first}`")));
            } else if SECTIONS.contains(&first) {
                section = first;
                rest = rest[first.len()..].trim();
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
                    let value = constant(name, value).map_err(err)?;
                    if m.constants
                        .insert(name.to_string(), (n + 1, value))
                        .is_some()
                    {
                        return Err(err(format!("{name} is given twice")));
                    }
                }
                "SPECIFICATION" => m.specification = Some(rest.to_string()),
                "SYMMETRY" => m.symmetry = Some(rest.to_string()),
                "VIEW" => m.view = Some(rest.to_string()),
                "INIT" | "NEXT" => {}
                "INVARIANT" | "INVARIANTS" => m
                    .invariants
                    .extend(rest.split_whitespace().map(String::from)),
                "PROPERTY" | "PROPERTIES" => m
                    .properties
                    .extend(rest.split_whitespace().map(String::from)),
                "CHECK_DEADLOCK" => {
                    m.check_deadlock = match rest {
                        "TRUE" => true,
                        "FALSE" => false,
                        _ => return Err(err("expected TRUE or FALSE".into())),
                    }
                }
                _ => return Err(err("expected a section such as CONSTANTS".into())),
            }
        }
        m.lines = lines;
        Ok(m)
    }

    /// An error at 1-based `line` (0: the file as a whole), quoting it.
    pub fn error_at(&self, line: usize, msg: String) -> CfgError {
        CfgError {
            file: None,
            line,
            text: self
                .lines
                .get(line.wrapping_sub(1))
                .cloned()
                .unwrap_or_default(),
            msg,
        }
    }

    /// Constant `name` with its line, or an error saying it is missing.
    pub fn constant(&self, name: &str) -> Result<&(usize, T), CfgError> {
        self.constants
            .get(name)
            .ok_or_else(|| self.error_at(0, format!("constant {name} is missing from CONSTANTS")))
    }
}

/// A constant's right-hand side in a spec whose constants name model
/// values: one model value, a set of them, or an ordinary value.
#[derive(Clone, Debug, PartialEq)]
pub enum Rhs {
    ModelValue(String),
    ModelValues(Vec<String>),
    Value(Value),
}

impl Rhs {
    pub fn parse(text: &str) -> Result<Rhs, String> {
        let t = text.trim();
        if is_ident(t) && t != "TRUE" && t != "FALSE" {
            return Ok(Rhs::ModelValue(t.to_string()));
        }
        if let Some(names) = model_value_set(t) {
            return names.map(Rhs::ModelValues);
        }
        parse_value(t).map(Rhs::Value).map_err(|e| e.msg)
    }

    /// Constant `name`'s right-hand side, refusing a name not in `names`.
    pub fn named(names: &[&str], name: &str, text: &str) -> Result<Rhs, String> {
        if !names.contains(&name) {
            return Err(format!("unknown constant {name}"));
        }
        Rhs::parse(text).map_err(|e| format!("value of {name}: {e}"))
    }
}

/// Reading typed constants from a cfg whose right-hand sides are [`Rhs`]:
/// each error names the constant, what it must be, and its line.
impl CfgFile<Rhs> {
    fn line_of(&self, name: &str) -> usize {
        self.constants.get(name).map_or(0, |(l, _)| *l)
    }

    /// "`name` must be `what`", at the constant's line.
    pub fn bad(&self, name: &str, what: &str) -> CfgError {
        self.error_at(self.line_of(name), format!("{name} must be {what}"))
    }

    /// An ordinary value (not a model value).
    pub fn value(&self, name: &str, what: &str) -> Result<Value, CfgError> {
        match self.constant(name)? {
            (_, Rhs::Value(v)) => Ok(v.clone()),
            _ => Err(self.bad(name, what)),
        }
    }

    /// An integer from `min` to `max`.
    pub fn int_in(&self, name: &str, min: i64, max: i64) -> Result<i64, CfgError> {
        let what = format!("a natural number from {min} to {max}");
        self.value(name, &what)?
            .as_int()
            .filter(|i| (min..=max).contains(i))
            .ok_or_else(|| self.bad(name, &what))
    }

    /// TRUE or FALSE.
    pub fn boolean(&self, name: &str) -> Result<bool, CfgError> {
        self.value(name, "TRUE or FALSE")?
            .as_bool()
            .ok_or_else(|| self.bad(name, "TRUE or FALSE"))
    }

    /// A string that `parse` reads (an enum's id); `what` lists the ids.
    pub fn id<T>(
        &self,
        name: &str,
        what: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, CfgError> {
        self.value(name, what)?
            .as_str()
            .and_then(parse)
            .ok_or_else(|| self.bad(name, what))
    }

    /// A set of strings that `parse` reads, sorted, each once.
    pub fn id_set<T: Ord>(
        &self,
        name: &str,
        what: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Vec<T>, CfgError> {
        let mut out = self
            .value(name, what)?
            .as_set()
            .and_then(|s| {
                s.iter()
                    .map(|v| v.as_str().and_then(&parse))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| self.bad(name, what))?;
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// A set of model values (`{}` too when `empty_ok`), in the cfg's order.
    pub fn model_values(&self, name: &str, empty_ok: bool) -> Result<Vec<String>, CfgError> {
        match self.constant(name)? {
            (_, Rhs::ModelValues(v)) => Ok(v.clone()),
            (_, Rhs::Value(Value::Set(s))) if empty_ok && s.is_empty() => Ok(Vec::new()),
            _ => Err(self.bad(name, "a set of model values")),
        }
    }

    /// The constant Mutant: one of the spec's mutant ids, or the parse
    /// error's words (which list them).
    pub fn mutant<M: std::str::FromStr>(&self) -> Result<M, CfgError>
    where
        M::Err: fmt::Display,
    {
        self.value("Mutant", "a mutant id")?
            .as_str()
            .ok_or_else(|| self.bad("Mutant", "a mutant id"))?
            .parse::<M>()
            .map_err(|e| self.error_at(self.line_of("Mutant"), e.to_string()))
    }
}

/// A spec's CONSTANTS as a Rust config: how a .cfg file's right-hand
/// sides read, and how they make the config (ASSUMEs checked).
pub trait Constants: Sized {
    type Rhs;
    /// Sections this spec's reader refuses (default: any it does not know).
    fn unsupported(word: &str) -> bool {
        unknown_section(word)
    }
    /// Constant `name`'s right-hand side.
    fn rhs(name: &str, text: &str) -> Result<Self::Rhs, String>;
    fn from_constants(file: &CfgFile<Self::Rhs>) -> Result<Self, CfgError>;
}

/// What one TLC model config says: the spec's constants as a `C`, and
/// what TLC is asked to check.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCfg<C> {
    pub config: C,
    pub specification: Option<String>,
    /// SYMMETRY: the name of the permutation set.
    pub symmetry: Option<String>,
    /// VIEW: the name of the view (a spec that has none refuses the section).
    pub view: Option<String>,
    /// INVARIANTS, in the file's order (the order TLC checks them).
    pub invariants: Vec<String>,
    pub properties: Vec<String>,
    /// CHECK_DEADLOCK, TRUE unless the file says FALSE (TLC's default).
    pub check_deadlock: bool,
}

impl<C: Constants> ModelCfg<C> {
    pub fn from_file(path: impl AsRef<Path>) -> Result<ModelCfg<C>, CfgError> {
        read_file(path, ModelCfg::parse)
    }

    pub fn parse(text: &str) -> Result<ModelCfg<C>, CfgError> {
        let file = CfgFile::parse_with(text, C::unsupported, C::rhs)?;
        Ok(ModelCfg {
            config: C::from_constants(&file)?,
            specification: file.specification,
            symmetry: file.symmetry,
            view: file.view,
            invariants: file.invariants,
            properties: file.properties,
            check_deadlock: file.check_deadlock,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sections_and_constants() {
        let text = "\\* c\nCONSTANTS\n  Ab = {x, y}\n  Bc = 1 (* one *)\nSYMMETRY Perms\n\
                    SPECIFICATION Spec\nINVARIANT I J\nPROPERTY P\nCHECK_DEADLOCK FALSE\n";
        let m = CfgFile::parse(text).unwrap();
        assert_eq!(m.constants["Ab"], (3, "{x, y}".to_string()));
        assert_eq!(m.constants["Bc"], (4, "1".to_string()));
        assert_eq!(m.symmetry.as_deref(), Some("Perms"));
        assert_eq!(m.specification.as_deref(), Some("Spec"));
        assert_eq!((m.invariants.len(), m.properties.len()), (2, 1));
        assert!(!m.check_deadlock);
        assert_eq!(
            m.error_at(4, "bad".into()).to_string(),
            "4: bad: `Bc = 1 (* one *)`"
        );
        let e = CfgFile::parse("VIEW v\n").unwrap_err();
        assert_eq!((e.line, e.msg.as_str()), (1, "unsupported section `VIEW`"));
        let e = CfgFile::parse("CONSTANTS\n Ab = 1\n Ab = 2\n").unwrap_err();
        assert_eq!(e.to_string(), "3: Ab is given twice: `Ab = 2`");
    }
}
