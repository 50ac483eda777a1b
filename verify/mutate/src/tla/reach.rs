//! Which definitions of a spec anything checked reaches. A definition
//! that no model's config names, directly or through other definitions,
//! and that no ASSUME and no module extending the spec mentions, is never
//! evaluated by TLC: an edit to it changes no run, so its mutants are not
//! mutants of anything checked (a `TypeOK` no config lists, and the sets
//! only it uses). They are reported as unchecked, not scored.

use std::collections::{BTreeSet, HashMap};

use super::source::Source;

/// The identifiers in the code (not comments, not strings) of `lines`.
fn idents(src: &Source, lines: impl Iterator<Item = usize>, out: &mut BTreeSet<String>) {
    for n in lines {
        let code = src.code(n);
        let b = code.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            if word(b[i]) && src.is_code(n, i) && (i == 0 || !word(b[i - 1])) {
                let j = (i..b.len()).find(|&j| !word(b[j])).unwrap_or(b.len());
                out.insert(code[i..j].to_string());
                i = j;
            } else {
                i += 1;
            }
        }
    }
}

/// The identifiers of a whole text (a config, another module).
pub fn idents_of(text: &str) -> BTreeSet<String> {
    let src = Source::new(text);
    let mut out = BTreeSet::new();
    idents(&src, 0..src.lines.len(), &mut out);
    out
}

/// The definitions of `text` (the spec) that `roots` (identifiers of the
/// configs and modules that use the spec) do not reach, in source order.
/// The spec's own code outside definitions (ASSUME) counts as a root.
pub fn unreached(text: &str, roots: &BTreeSet<String>) -> Vec<String> {
    let src = Source::new(text);
    let defs = src.defs();
    let mut inside = vec![false; src.lines.len()];
    let mut uses: HashMap<&str, BTreeSet<String>> = HashMap::new();
    for d in &defs {
        inside[d.start..d.end].iter_mut().for_each(|x| *x = true);
        let mut u = BTreeSet::new();
        idents(&src, d.start..d.end, &mut u);
        uses.entry(d.name.as_str()).or_default().extend(u);
    }
    let mut todo: Vec<String> = roots.iter().cloned().collect();
    let mut outside = BTreeSet::new();
    idents(&src, (0..src.lines.len()).filter(|n| !inside[*n]), &mut outside);
    todo.extend(outside);
    let mut reached: BTreeSet<String> = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        if let Some(u) = uses.get(name.as_str()) {
            todo.extend(u.iter().filter(|x| !reached.contains(*x)).cloned());
        }
    }
    let mut out: Vec<String> = Vec::new();
    for d in &defs {
        if !reached.contains(&d.name) && !out.contains(&d.name) {
            out.push(d.name.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "---- MODULE S ----\nEXTENDS Naturals\nVARIABLE x\nASSUME Bound > 0\nBound == 3\n\\* Unused is only a comment here: Typed\nTyped == x \\in Small\nSmall == 0..Bound\nInit == x = 0\nStep == x' = x + 1 /\\ Below(x)\nBelow(v) == v < Bound\nNext == Step\nSpec == Init /\\ [][Next]_x\nSafe == x <= Bound\n====\n";

    #[test]
    fn what_no_config_reaches_is_unreached() {
        let roots = idents_of("SPECIFICATION Spec\nINVARIANT Safe\n");
        assert_eq!(unreached(SPEC, &roots), ["Typed", "Small"]);
    }

    #[test]
    fn a_config_or_module_that_names_it_reaches_it() {
        let roots = idents_of("SPECIFICATION Spec\nINVARIANTS\n    Safe\n    Typed\n");
        assert!(unreached(SPEC, &roots).is_empty());
        // a comment or a string that names it does not
        let roots = idents_of("SPECIFICATION Spec \\* Typed\nINVARIANT Safe\n");
        assert_eq!(unreached(SPEC, &roots), ["Typed", "Small"]);
    }

    #[test]
    fn assume_is_a_root() {
        let roots = idents_of("SPECIFICATION Init\n");
        // Bound through ASSUME; Step, Below, Next, Spec, Safe by nothing
        assert_eq!(unreached(SPEC, &roots), ["Typed", "Small", "Step", "Below", "Next", "Spec", "Safe"]);
    }
}
