//! `ringlab prove`: the Z3 proofs of the index and counter arithmetic.

use clap::Args;
use serde::Serialize;

use ringlab_model::schema::Header;
use ringlab_prove::{self as prove, ProofResult};
use ringlab_results::ProofDoc;

use super::args::{to_json, Common};
use crate::table;

#[derive(Args)]
pub struct ProveArgs {
    /// Proof names (default: all)
    proofs: Vec<String>,
    #[command(flatten)]
    common: Common,
}

#[derive(Serialize)]
struct ProveDoc {
    #[serde(flatten)]
    header: Header,
    proofs: Vec<ProofDoc>,
    ok: bool,
}

pub fn run(a: &ProveArgs) -> Result<bool, String> {
    let results = run_proofs(&a.proofs, &a.common)?;
    let ok = results.iter().all(ProofResult::as_expected);
    if a.common.json {
        let proofs = results.iter().map(ProofDoc::from).collect();
        println!("{}", to_json(&ProveDoc { header: Header::new("prove"), proofs, ok })?);
    } else {
        print_proofs(&results);
        println!("{}", table::closing("proofs", &results.iter().map(ProofResult::as_expected).collect::<Vec<_>>()));
    }
    Ok(ok)
}

pub fn run_proofs(names: &[String], c: &Common) -> Result<Vec<ProofResult>, String> {
    let list = if names.is_empty() {
        prove::catalogue()
    } else {
        names
            .iter()
            .map(|n| prove::by_name(n).ok_or_else(|| format!("no proof `{n}`; `ringlab prove` lists them all")))
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok(list
        .iter()
        .map(|p| {
            let r = prove::run(p);
            if !c.quiet {
                eprintln!("  {:<34} {:.2}s", r.name, r.seconds);
            }
            r
        })
        .collect())
}

pub fn print_proofs(results: &[ProofResult]) {
    let mut t = table::new(&["proof", "expected", "outcome", "seconds", ""], &[3]);
    let mut notes = Vec::new();
    for r in results {
        let d = ProofDoc::from(r);
        t.add_row(vec![d.name.clone(), d.expected.clone(), d.outcome.clone(), format!("{:.2}", d.seconds), if d.ok() { "ok" } else { "FAIL" }.into()]);
        match &r.outcome {
            prove::Outcome::Refuted { counterexample } => {
                let cx: Vec<String> = counterexample.iter().map(|(n, v)| format!("{n}={v:#x}")).collect();
                notes.push(format!("{}: counterexample {}", d.name, cx.join(" ")));
            }
            prove::Outcome::Unknown(why) => notes.push(format!("{}: z3 gave up: {why}", d.name)),
            prove::Outcome::Proved => {}
        }
    }
    println!("{}", table::render(&t));
    for n in notes {
        println!("  {n}");
    }
}
