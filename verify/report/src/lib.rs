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
pub mod svg;
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
        return Err(NO_VERIFY_RUN.into());
    }
    let mut w = Written { skipped: inputs.skipped.clone(), ..Default::default() };
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
        put(&out.join(&rel), &trace_page::trace_page(t, t.ring.is_some(), stamp))?;
        pages.insert(name.clone(), rel);
    }
    let index = index_page::index_page(
        &index_page::IndexInput { doc, verify_time: inputs.verify_time, pages: &pages, sim: &sim, skipped: &inputs.skipped },
        stamp,
    );
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
