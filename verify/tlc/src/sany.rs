//! SANY's parse and semantic errors as `file:line:column: message`, the
//! form editors and CI logs link to. SANY prints them as plain text, not as
//! TLC's tool messages, each in its own shape:
//!
//! ```text
//! Parsing file /x/Bad.tla
//! ***Parse Error***
//! Was expecting "==== or more Module body"
//! Encountered "1" at line 5, column 20 and token "+"
//! ...
//! line 5, col 14 to line 5, col 16 of module Sem
//!
//! Unknown operator: `Foo'.
//! ```

use std::collections::HashMap;

/// The errors in SANY's plain lines (blank lines removed), each located.
pub fn diagnose(plain: &[String]) -> Vec<String> {
    let mut files: HashMap<String, String> = HashMap::new();
    let mut current = String::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < plain.len() {
        let l = plain[i].trim();
        if let Some(path) = l.strip_prefix("Parsing file ") {
            current = path.trim().to_string();
            let module = std::path::Path::new(&current).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            files.insert(module, current.clone());
        } else if l == "***Parse Error***" {
            // the lines up to the residual stack trace say what and where
            let body: Vec<&str> = plain[i + 1..].iter().map(|s| s.trim()).take_while(|s| !s.starts_with("Residual stack trace")).collect();
            let (line, col) = body.iter().find_map(|b| at_line_column(b)).unwrap_or((0, 0));
            out.push(format!("{}:{line}:{col}: parse error: {}", or_unknown(&current), body.join(" ")));
            i += body.len();
        } else if let Some((line, col, module)) = semantic_place(l) {
            let what = plain.get(i + 1).map(|s| s.trim()).unwrap_or("");
            let file = files.get(&module).cloned().unwrap_or_else(|| format!("{module}.tla"));
            out.push(format!("{file}:{line}:{col}: {what}"));
            i += 1;
        }
        i += 1;
    }
    out
}

fn or_unknown(path: &str) -> &str {
    if path.is_empty() {
        "(unknown file)"
    } else {
        path
    }
}

/// `... at line 5, column 20 ...`
fn at_line_column(s: &str) -> Option<(u32, u32)> {
    let rest = &s[s.find("at line ")? + "at line ".len()..];
    let (line, rest) = rest.split_once(", column ")?;
    let col: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.trim().parse().ok()?, col.parse().ok()?))
}

/// `line 5, col 14 to line 5, col 16 of module Sem`
fn semantic_place(s: &str) -> Option<(u32, u32, String)> {
    let rest = s.strip_prefix("line ")?;
    let (line, rest) = rest.split_once(", col ")?;
    let (col, rest) = rest.split_once(" to ")?;
    let module = rest.split_once(" of module ")?.1.trim();
    Some((line.parse().ok()?, col.parse().ok()?, module.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
    }

    #[test]
    fn a_parse_error_keeps_file_line_and_column() {
        let d = diagnose(&lines(
            "Parsing file /x/specs/Bad.tla\n***Parse Error***\nWas expecting \"==== or more Module body\"\n\
             Encountered \"1\" at line 5, column 20 and token \"+\"\n\nResidual stack trace follows:\nModule definition starting at line 1, column 1.\n",
        ));
        assert_eq!(d.len(), 1);
        assert!(d[0].starts_with("/x/specs/Bad.tla:5:20: parse error: Was expecting"), "{}", d[0]);
    }

    #[test]
    fn a_semantic_error_names_the_file_of_its_module() {
        let d = diagnose(&lines(
            "Parsing file /x/specs/Sem.tla\nParsing file /tmp/Naturals.tla\nSemantic processing of module Sem\nSemantic errors:\n\
             *** Errors: 2\nline 5, col 14 to line 5, col 16 of module Sem\n\nUnknown operator: `Foo'.\n\
             line 7, col 1 to line 7, col 3 of module Other\nMultiply-defined symbol 'x'\n",
        ));
        assert_eq!(d, vec!["/x/specs/Sem.tla:5:14: Unknown operator: `Foo'.".to_string(), "Other.tla:7:1: Multiply-defined symbol 'x'".to_string()]);
    }

    #[test]
    fn no_error_no_diagnosis() {
        assert!(diagnose(&lines("Parsing file /x/A.tla\nSemantic processing of module A\n")).is_empty());
    }
}
