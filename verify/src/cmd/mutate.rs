//! `ringlab mutate`: the automatic mutation campaign over the specs (and,
//! with cargo-mutants, the Rust crates), its score per spec and crate, and
//! the survivors.

use clap::Args;

use ringlab_mutate::reviewed::Reviewed;
use ringlab_mutate::rust_run::{self, RustOpts, CRATES};
use ringlab_mutate::tla_run::{self, TlaOpts};
use ringlab_results::mutation::GOAL;
use ringlab_results::{MutationDoc, MutationRun};
use ringlab_tlc::check::ModelResult;
use ringlab_tlc::Tlc;

use super::args::{load, to_json, Common};
use crate::table;

#[derive(Args)]
pub struct MutateArgs {
    /// Only this spec (a file name of specs/; repeatable)
    #[arg(long = "spec", value_name = "SPEC.tla")]
    specs: Vec<String>,
    /// Only this crate (a package name; repeatable)
    #[arg(long = "crate", value_name = "PACKAGE")]
    crates: Vec<String>,
    /// The specs only (no cargo-mutants)
    #[arg(long, conflicts_with = "rust_only")]
    tla_only: bool,
    /// The crates only (no TLC)
    #[arg(long)]
    rust_only: bool,
    /// Only the fixed sample: this many mutants per spec and crate
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Only mutants whose name contains this (repeatable)
    #[arg(long, value_name = "TEXT")]
    only: Vec<String>,
    /// List the specs' mutants (with --sample, the sample's) and stop
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    common: Common,
}

pub fn run(a: &MutateArgs) -> Result<bool, String> {
    let (root, man) = load()?;
    let reviewed = Reviewed::load(&root)?;
    if a.list {
        let specs = if a.specs.is_empty() { tla_run::specs(&man) } else { a.specs.clone() };
        for spec in specs {
            let tla_run::SpecMutants { run: all, unchecked } = tla_run::mutants_of(&root, &man, &spec, &reviewed)?;
            for (d, n) in unchecked.iter().filter(|(_, n)| *n > 0) {
                eprintln!("{spec}/{d}: {n} mutants not run: no model checks {d}");
            }
            let ids: Vec<&str> = all.iter().map(|m| m.id.as_str()).collect();
            let keep = a.sample.map(|n| ringlab_mutate::sample::pick(&ids, n));
            for m in all.iter().filter(|m| keep.as_ref().is_none_or(|k| k.contains(&m.id.as_str()))) {
                println!("{}\tspecs/{}:{}\t{}", m.id, spec, m.line, m.what);
            }
        }
        return Ok(true);
    }
    for c in &a.crates {
        if !CRATES.iter().any(|k| k.package == c) {
            let known: Vec<&str> = CRATES.iter().map(|k| k.package).collect();
            return Err(format!("--crate {c}: not a crate of the campaign ({})", known.join(", ")));
        }
    }
    // Naming only specs (or only crates) means only those.
    let tla = !a.rust_only && (a.crates.is_empty() || !a.specs.is_empty());
    let rust = !a.tla_only && (a.specs.is_empty() || !a.crates.is_empty());
    let mut runs = Vec::new();
    if tla {
        let tlc = Tlc::locate()?;
        let opts = TlaOpts {
            specs: a.specs.clone(),
            sample: a.sample,
            only: a.only.clone(),
            progress: !a.common.quiet,
            known: Default::default(),
        };
        runs.extend(tla_run::run(&tlc, &root, &man, &reviewed, &opts)?);
    }
    if rust {
        let opts = RustOpts {
            crates: a.crates.clone(),
            sample: a.sample,
            only: a.only.clone(),
            progress: !a.common.quiet,
        };
        runs.extend(rust_run::run(&root, &reviewed, &opts)?);
    }
    let doc = document(if a.sample.is_some() { "sample" } else { "full" }, runs);
    let path = ringlab_tlc::check::out_dir(&root).join("mutate.json");
    let _ = std::fs::create_dir_all(path.parent().expect("a directory"));
    std::fs::write(&path, to_json(&doc)?).map_err(|e| format!("{}: {e}", path.display()))?;
    let ok = doc.scores.iter().all(|s| s.meets_goal());
    if a.common.json {
        println!("{}", to_json(&doc)?);
    } else {
        print_doc(&doc);
        println!("results: {}", path.display());
    }
    Ok(ok)
}

/// The campaign's document: runs and their scores.
pub fn document(scope: &str, runs: Vec<MutationRun>) -> MutationDoc {
    let scores = MutationDoc::tally(&runs, |g| if g.ends_with(".tla") { "spec" } else { "crate" });
    let stale_reviews = runs
        .iter()
        .filter(|r| r.detail.starts_with("listed as equivalent"))
        .map(|r| r.id.clone())
        .collect();
    MutationDoc {
        scope: scope.to_string(),
        scores,
        runs,
        stale_reviews,
        error: None,
    }
}

/// `ringlab verify`'s fixed sample: `per` mutants of each spec and
/// `per_crate` of each crate (0: none); its verdict is that none survives.
/// `checked` are the models verify has just run: those as expected are
/// the campaign's baselines, so no model runs twice unmutated.
pub fn sample(per: usize, per_crate: usize, quiet: bool, checked: &[ModelResult]) -> MutationDoc {
    let known = checked.iter().filter(|r| r.ok()).map(|r| (r.name.clone(), r.seconds)).collect();
    let run = || -> Result<Vec<MutationRun>, String> {
        let (root, man) = load()?;
        let reviewed = Reviewed::load(&root)?;
        let only = Vec::new();
        let mut runs = tla_run::run(
            &Tlc::locate()?,
            &root,
            &man,
            &reviewed,
            &TlaOpts { specs: Vec::new(), sample: Some(per), only: only.clone(), progress: !quiet, known },
        )?;
        if per_crate > 0 {
            runs.extend(rust_run::run(&root, &reviewed, &RustOpts { crates: Vec::new(), sample: Some(per_crate), only, progress: !quiet })?);
        }
        Ok(runs)
    };
    match run() {
        Ok(runs) => document("sample", runs),
        Err(e) => MutationDoc { scope: "sample".into(), error: Some(e), ..MutationDoc::default() },
    }
}

/// The score table, then each survivor.
pub fn print_doc(doc: &MutationDoc) {
    if let Some(e) = &doc.error {
        println!("the campaign could not run: {e}");
        return;
    }
    let mut t = table::new(
        &["spec or crate", "mutants", "killed", "timeout", "survived", "equivalent", "unviable", "score"],
        &[1, 2, 3, 4, 5, 6, 7],
    );
    for s in &doc.scores {
        t.add_row(vec![
            s.group.clone(),
            s.total.to_string(),
            s.killed.to_string(),
            s.timeout.to_string(),
            s.survived.to_string(),
            s.equivalent.to_string(),
            s.unviable.to_string(),
            s.ratio().map_or("-".into(), |r| format!("{:.1}%", 100.0 * r)),
        ]);
    }
    println!("{}", table::render(&t));
    let survivors: Vec<&MutationRun> = doc.survivors().collect();
    if !survivors.is_empty() {
        println!("\nsurvivors (kill each with a check, or list it in verify/mutate/reviewed.json with a reason):");
        for r in survivors {
            println!("  {}  {}  {}", r.id, r.at, r.what);
        }
    }
    for id in &doc.stale_reviews {
        println!("stale review: {id} is listed as equivalent but a check kills it");
    }
    let below: Vec<&str> = doc.scores.iter().filter(|s| !s.meets_goal()).map(|s| s.group.as_str()).collect();
    if doc.scope == "sample" {
        let survived = doc.survivors().count();
        println!(
            "mutation sample: {} mutants, {} survived (every one must be killed or reviewed)",
            doc.runs.len(),
            survived
        );
        return;
    }
    println!(
        "mutation ({}): {} of {} specs and crates at or above {:.0}%{}",
        doc.scope,
        doc.scores.len() - below.len(),
        doc.scores.len(),
        100.0 * GOAL,
        if below.is_empty() { String::new() } else { format!(" (below: {})", below.join(", ")) }
    );
}
