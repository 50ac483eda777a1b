//! The tables `ringlab` prints: comfy-table without borders, numbers
//! right-aligned, so that a terminal and a CI log read the same.

use comfy_table::presets::NOTHING;
use comfy_table::{CellAlignment, ContentArrangement, Table};

/// A table of `head` with the columns in `right` right-aligned.
pub fn new(head: &[&str], right: &[usize]) -> Table {
    let mut t = Table::new();
    t.load_preset(NOTHING).set_content_arrangement(ContentArrangement::Disabled).set_header(head.to_vec());
    // Two spaces between columns, none before the first.
    for col in t.column_iter_mut() {
        col.set_padding((0, 2));
    }
    for &c in right {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// A table's text, each line without trailing spaces.
pub fn render(t: &Table) -> String {
    t.lines().map(|l| l.trim_end().to_string()).collect::<Vec<_>>().join("\n")
}

/// The closing line CI reads: `what: N passed, M failed`.
pub fn closing(what: &str, flags: &[bool]) -> String {
    let passed = flags.iter().filter(|f| **f).count();
    format!("{what}: {} passed, {} failed", passed, flags.len() - passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_and_numbers_go_right() {
        let mut t = new(&["model", "states"], &[1]);
        t.add_row(vec!["a".to_string(), "5".to_string()]);
        t.add_row(vec!["longer-name".to_string(), "12345".to_string()]);
        let text = render(&t);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[1].ends_with("    5"), "{text}");
        assert!(lines[1].starts_with("a "), "{text}");
        assert!(lines.iter().all(|l| !l.ends_with(' ')));
        assert_eq!(closing("verify", &[true, false, true]), "verify: 2 passed, 1 failed");
    }
}
