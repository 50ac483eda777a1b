//! `ringlab report`: the last verify run as a static site, and figures.

use std::path::{Path, PathBuf};

use clap::Args;

use ringlab_model::paths::out_dir;
use ringlab_tlc::manifest::find_root;

#[derive(Args)]
pub struct ReportArgs {
    /// The site's folder (default target/ringlab/report)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write one SVG per TLC counterexample into this folder (works
    /// from the saved counterexamples alone, without a verify run)
    #[arg(long, value_name = "DIR")]
    figures: Option<PathBuf>,
    /// With --figures: only these models' figures (default: every saved counterexample)
    #[arg(requires = "figures")]
    models: Vec<String>,
}

pub fn run(a: &ReportArgs) -> Result<bool, String> {
    let root = find_root()?;
    let start = std::time::Instant::now();
    let w = write(&root, a.out.clone(), a.figures.clone(), &a.models)?;
    for s in &w.skipped {
        eprintln!("note: left out: {s}");
    }
    for f in &w.figures {
        println!("figure: {}", f.display());
    }
    match &w.index {
        Some(index) => println!("report: {} ({:.2}s)", index.display(), start.elapsed().as_secs_f64()),
        None => println!("no verify run recorded: figures only (run `ringlab verify` for the report)"),
    }
    Ok(true)
}

/// Writes the report (default folder target/ringlab/report).
pub fn write(root: &Path, out: Option<PathBuf>, figures: Option<PathBuf>, models: &[String]) -> Result<ringlab_report::Written, String> {
    let dir = out_dir(root);
    let opts = ringlab_report::Opts { out: out.unwrap_or_else(|| dir.join("report")), figures, figure_models: models.to_vec() };
    ringlab_report::write(&dir, &opts)
}
