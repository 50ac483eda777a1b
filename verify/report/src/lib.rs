//! `ringlab report`: the verify run as a static site (index.html, a page
//! per counterexample, the ring explorer with every trace), and on demand
//! one SVG figure per counterexample.

pub mod assets;
pub mod figure;
pub mod index_page;
pub mod input;
pub mod layout;
pub mod markup;
pub mod page;
pub mod sections;
pub mod svg;
pub mod templates;
pub mod trace_page;
pub mod view;
pub mod words;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ringlab_tlc::explorer::RingTrace;
use input::{Inputs, NO_VERIFY_RUN};
use markup::file_stem;
use page::Stamp;

pub struct Opts {
    /// The site's folder.
    pub out: PathBuf,
    /// Where to write the figures, if at all.
    pub figures: Option<PathBuf>,
    /// Only these models' figures (all when empty).
    pub figure_models: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Written {
    /// The site's index.html; None when there was no verify run to show.
    pub index: Option<PathBuf>,
    pub figures: Vec<PathBuf>,
    /// Inputs left out, and why.
    pub skipped: Vec<String>,
}

/// Reads `dir` (target/ringlab) and writes what `opts` asks for.
pub fn write(dir: &Path, opts: &Opts) -> Result<Written, String> {
    let inputs = input::read(dir)?;
    if inputs.verify.is_none() && opts.figures.is_none() {
        return Err(inputs.verify_error.unwrap_or_else(|| NO_VERIFY_RUN.into()));
    }
    let mut w = Written { skipped: inputs.skipped.clone(), ..Default::default() };
    w.skipped.extend(inputs.verify_error.clone());
    if let Some(fig_dir) = &opts.figures {
        w.figures = write_figures(&inputs, fig_dir, &opts.figure_models)?;
    }
    if inputs.verify.is_some() {
        w.index = Some(write_site(&inputs, &opts.out, &Stamp::now())?);
    }
    Ok(w)
}

fn write_figures(inputs: &Inputs, dir: &Path, only: &[String]) -> Result<Vec<PathBuf>, String> {
    for m in only {
        if !inputs.counterexamples.contains_key(m) {
            return Err(format!("no saved counterexample of `{m}` (`ringlab check {m} --workers 1` saves one when the model fails)"));
        }
    }
    mkdir(dir)?;
    let mut out = Vec::new();
    for (name, t) in &inputs.counterexamples {
        if !only.is_empty() && !only.contains(name) {
            continue;
        }
        let Some(svg) = figure::figure_svg(t) else { continue };
        let path = dir.join(format!("{}.svg", file_stem(&t.title)));
        put(&path, &svg)?;
        out.push(path);
    }
    Ok(out)
}

fn write_site(inputs: &Inputs, out: &Path, stamp: &Stamp) -> Result<PathBuf, String> {
    let doc = inputs.verify.as_ref().expect("a verify run");
    let pages_dir = out.join("traces");
    mkdir(&pages_dir)?;
    // pages of an earlier report must not linger
    if let Ok(rd) = std::fs::read_dir(&pages_dir) {
        for e in rd.flatten() {
            if e.path().extension().is_some_and(|x| x == "html") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let sim = unique_titles(&inputs.sim);
    let embedded: Vec<&RingTrace> = inputs.counterexamples.values().chain(sim.iter()).filter(|t| t.ring.is_some()).collect();
    let mut pages = BTreeMap::new();
    for (name, t) in &inputs.counterexamples {
        let rel = format!("traces/{}.html", file_stem(&t.title));
        put(&out.join(&rel), &trace_page::trace_page(t, t.ring.is_some(), stamp)?)?;
        pages.insert(name.clone(), rel);
    }
    let index = index_page::index_page(
        &index_page::IndexInput { doc, verify_time: inputs.verify_time, pages: &pages, sim: &sim, skipped: &inputs.skipped },
        stamp,
    )?;
    put(&out.join("index.html"), &index)?;
    put(&out.join("report.css"), page::CSS)?;
    for (name, text) in assets::EXPLORER {
        put(&out.join(name), text)?;
    }
    put(&out.join("traces.js"), &assets::traces_js(&embedded))?;
    Ok(out.join("index.html"))
}

/// Simulator traces with titles made unique (` (2)`, ...), as the explorer
/// would, so links by title find the right one.
fn unique_titles(sim: &[RingTrace]) -> Vec<RingTrace> {
    let mut seen: Vec<String> = Vec::new();
    sim.iter()
        .map(|t| {
            let mut t = t.clone();
            let base = t.title.clone();
            let mut n = 2;
            while seen.contains(&t.title) {
                t.title = format!("{base} ({n})");
                n += 1;
            }
            seen.push(t.title.clone());
            t
        })
        .collect()
}

fn mkdir(d: &Path) -> Result<(), String> {
    std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))
}

fn put(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str, verify: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ringlab-report-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("verify.json"), verify).unwrap();
        d
    }

    fn opts(d: &Path, figures: bool) -> Opts {
        Opts { out: d.join("report"), figures: figures.then(|| d.join("figures")), figure_models: vec![] }
    }

    #[test]
    fn a_verify_json_that_does_not_read_is_named_with_what_is_wrong() {
        let d = dir("bad", r#"{"schema": "ringlab/0", "document": "verify", "models": 3}"#);
        let e = write(&d, &opts(&d, false)).unwrap_err();
        assert!(e.starts_with(&format!("{}: schema \"ringlab/0\", this ringlab reads \"ringlab/1\"", d.join("verify.json").display())), "{e}");
        // figures need no verify run: they are drawn, and the file is noted
        let w = write(&d, &opts(&d, true)).unwrap();
        assert!(w.index.is_none() && w.skipped[0].contains("ringlab/0"), "{:?}", w.skipped);
        std::fs::write(d.join("verify.json"), r#"{"schema": "ringlab/1", "document": "verify", "models": ["#).unwrap();
        assert!(write(&d, &opts(&d, false)).unwrap_err().contains("verify.json: not JSON (EOF while parsing"));
        std::fs::write(d.join("verify.json"), r#"{"schema": "ringlab/1", "document": "bench"}"#).unwrap();
        assert!(write(&d, &opts(&d, false)).unwrap_err().contains("verify.json: a \"bench\" document, not \"verify\""));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_verify_run_gives_the_whole_site() {
        let doc = index_page::tests::doc();
        let d = dir("site", &serde_json::to_string(&doc).unwrap());
        let w = write(&d, &opts(&d, false)).unwrap();
        assert_eq!(w.index.as_deref(), Some(d.join("report/index.html").as_path()));
        for f in ["index.html", "report.css", "explorer.html", "explorer-trace.js", "explorer-draw.js", "explorer.js", "style.css", "traces.js"] {
            assert!(d.join("report").join(f).is_file(), "{f}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
