//! The guided tour's links: every chapter is in SUMMARY.md, every relative
//! link and image resolves to a file, and every `#anchor` to a heading.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src")
}

/// `[text](target)` and `![alt](target)` targets, outside code blocks.
fn links(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(j) = after.find(')') else { break };
            out.push(after[..j].to_string());
            rest = &after[j..];
        }
    }
    out
}

/// mdBook's anchor for a heading: lower case, spaces to '-', punctuation
/// other than '-' and '_' dropped.
fn anchors(md: &str) -> BTreeSet<String> {
    md.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_link_in_the_tour_resolves() {
    let dir = docs();
    let summary = std::fs::read_to_string(dir.join("SUMMARY.md")).expect("docs/src/SUMMARY.md");
    let chapters: BTreeSet<String> = links(&summary).into_iter().collect();
    let mut bad = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name != "SUMMARY.md" && !chapters.contains(&name) {
                bad.push(format!("{name} is not in SUMMARY.md"));
            }
        }
    }
    for chapter in &chapters {
        let path = dir.join(chapter);
        let Ok(md) = std::fs::read_to_string(&path) else {
            bad.push(format!("SUMMARY.md names {chapter}, which does not exist"));
            continue;
        };
        for target in links(&md) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file_md = if file.is_empty() { md.clone() } else {
                let p = path.parent().unwrap().join(file);
                if !p.exists() {
                    bad.push(format!("{chapter}: link to {file}, which does not exist"));
                    continue;
                }
                std::fs::read_to_string(&p).unwrap_or_default()
            };
            if !anchor.is_empty() && !anchors(&file_md).contains(anchor) {
                bad.push(format!("{chapter}: no heading for #{anchor} in {}", if file.is_empty() { chapter } else { file }));
            }
        }
    }
    assert!(bad.is_empty(), "broken links in docs/src:\n{}", bad.join("\n"));
}

#[test]
fn the_checker_sees_a_broken_link() {
    let md = "see [x](nowhere.md) and ![f](figures/none.svg)\n```\n[not](a-link.md)\n```\n# A Heading, with punctuation\n";
    assert_eq!(links(md), vec!["nowhere.md".to_string(), "figures/none.svg".to_string()]);
    assert!(anchors(md).contains("a-heading-with-punctuation"));
}

/// The two commands are described once (docs/src/two-commands.txt) and
/// that text is what the README, the tour, `make help` and `ringlab
/// --help` show.
#[test]
fn the_two_commands_are_described_the_same_everywhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(docs().join("two-commands.txt")).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains(&text), "README.md does not show docs/src/two-commands.txt verbatim");
    let intro = std::fs::read_to_string(docs().join("introduction.md")).unwrap();
    assert!(intro.contains("{{#include two-commands.txt}}"), "introduction.md does not include two-commands.txt");
    let make = std::fs::read_to_string(root.join("Makefile")).unwrap();
    assert!(make.contains("@cat docs/src/two-commands.txt"), "make help does not print two-commands.txt");
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_ringlab")).arg("--help").output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains(&text), "ringlab --help does not show two-commands.txt");
    for other in ["make verify   # the main job\n", "model-check, prove, and run the mutation campaign"] {
        assert!(!readme.contains(other) && !intro.contains(other), "an older description is left: {other}");
    }
}
