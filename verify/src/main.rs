//! The `ringlab` command.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde_json::json;

use ringlab_tlc::check::{self, CheckOpts, ModelResult};
use ringlab_tlc::manifest::{find_root, Manifest};
use ringlab::mutants::{self, CargoRunner, MutantResult};
use ringlab_prove::{self as prove, Expect, Outcome, ProofResult};
use ringlab_tlc::Tlc;

#[derive(Parser)]
#[command(name = "ringlab", version, about = "Model checking, proofs and mutation testing of the kernel's packet-ring protocols")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run TLC on models of specs/manifest.json; each must meet its expected outcome
    Check(CheckArgs),
    /// Run the Z3 proofs of the ring index arithmetic
    Prove(ProveArgs),
    /// Re-introduce each known bug and report which checks kill it
    Mutants(MutantArgs),
    /// All of the above, with one summary (or one JSON document), then the report
    Verify(VerifyArgs),
    /// The last verify run as a static HTML site; SVG figures of the counterexamples
    Report(ReportArgs),
    /// The simulator: copy-mode transmit (default) or `devmem` tokens, seeded or on threads, then a cost table
    Sim(ringlab::cmd::sim::SimArgs),
    /// Differential testing: the AF_XDP copy-mode model against the running kernel
    Diff(ringlab::cmd::diff::DiffArgs),
    /// Performance, as ratios to peers measured in the same run: ring, simulator, TLC, live datapath
    Bench(ringlab_bench::BenchArgs),
    /// A kernel patch series against 6.12.117: checkpatch, W=1, then built, booted in qemu and tested against the model
    KernelTest(ringlab_kernel::kernel_test::KernelTestArgs),
}

#[derive(Args)]
struct Common {
    /// Print one JSON document on stdout instead of tables
    #[arg(long)]
    json: bool,
    /// No progress lines on stderr
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args)]
struct TlcArgs {
    /// TLC worker threads
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Include the deep tier (bigger rings; minutes, not seconds)
    #[arg(long)]
    deep: bool,
}

#[derive(Args)]
struct CheckArgs {
    /// Model names (default: every ci-tier model)
    models: Vec<String>,
    #[command(flatten)]
    tlc: TlcArgs,
    #[command(flatten)]
    common: Common,
    /// Write the measured state counts, depths and times into the manifest
    #[arg(long)]
    record: bool,
}

#[derive(Args)]
struct ProveArgs {
    /// Proof names (default: all)
    proofs: Vec<String>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct MutantArgs {
    /// Mutant ids (default: all)
    ids: Vec<String>,
    #[command(flatten)]
    tlc: TlcArgs,
    #[command(flatten)]
    common: Common,
}

#[derive(Args)]
struct ReportArgs {
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

#[derive(Args)]
struct VerifyArgs {
    #[command(flatten)]
    tlc: TlcArgs,
    #[command(flatten)]
    common: Common,
    /// Differential scenarios on the live kernel (default: 500, 10000 with --deep)
    #[arg(long)]
    diff_scenarios: Option<u64>,
    /// Seed of the differential campaign
    #[arg(long, default_value_t = 1)]
    diff_seed: u64,
    /// Also run `ringlab kernel-test` on the repository's series and its mutants (the "kernel" section; builds are cached)
    #[arg(long)]
    kernel: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("ringlab: {e}");
            ExitCode::from(2)
        }
    }
}

/// The differential campaign in the closing line of `verify`.
fn diff_line(d: &serde_json::Value) -> String {
    if let Some(why) = d["skipped"].as_str() {
        return format!("live-kernel diff SKIPPED ({why})");
    }
    if let Some(e) = d["error"].as_str() {
        return format!("live-kernel diff failed to run ({e})");
    }
    format!(
        "live-kernel diff {} scenarios with {} divergences{}",
        d["scenarios"], d["divergences"], ringlab::cmd::diff::chain_words(d)
    )
}

/// The "kernel" section of `verify`: `ringlab kernel-test` on the
/// repository's series with every patch of kernel/patches/mutants/.
fn kernel_section(root: &Path, wanted: bool) -> (serde_json::Value, bool) {
    if !wanted {
        return (json!({ "skipped": "not requested (verify --kernel, or make kernel-vm-test)" }), true);
    }
    let mut mutants: Vec<PathBuf> = std::fs::read_dir(root.join("kernel/patches/mutants"))
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "patch")).collect())
        .unwrap_or_default();
    mutants.sort();
    let args = ringlab_kernel::kernel_test::KernelTestArgs { series: None, mutants, scenarios: ringlab_kernel::kernel_test::SCENARIOS, fault_rounds: ringlab_kernel::kernel_test::FAULT_ROUNDS, seed: 1, json: false, no_vm: false };
    match ringlab_kernel::kernel_test::test(root, &args) {
        Ok(doc) => {
            let ok = doc["ok"].as_bool().unwrap_or(false);
            (doc, ok)
        }
        Err(e) => (json!({ "error": e }), false),
    }
}

/// The kernel section in the closing line of `verify`.
fn kernel_line(k: &serde_json::Value) -> String {
    if k["skipped"].is_string() {
        return "kernel VM test not run (--kernel)".into();
    }
    if let Some(e) = k["error"].as_str() {
        return format!("kernel VM test failed to run ({e})");
    }
    format!(
        "kernel series {} patches, checkpatch {} warnings, xskxceiver {} passed {} failed, diff {}+{} divergences, faults {} injected {} leaks{}",
        k["patches"],
        k["checkpatch_warnings"],
        k["xskxceiver"]["pass"],
        k["xskxceiver"]["fail"],
        k["diff"]["baseline"]["divergences"],
        k["diff"]["patched"]["divergences"],
        k["faults"]["injected"],
        k["faults"]["leaks"],
        if k["ok"].as_bool().unwrap_or(false) { "" } else { " (FAILED)" }
    )
}

fn load() -> Result<(PathBuf, Manifest), String> {
    let root = find_root()?;
    let man = Manifest::load(&root.join("specs/manifest.json"))?;
    Ok((root, man))
}

fn run(cli: Cli) -> Result<bool, String> {
    match cli.cmd {
        Cmd::Check(a) => {
            let (root, man) = load()?;
            let models = check::select(&man, &a.models, a.tlc.deep)?;
            let results = run_models(&root, &models, &a.tlc, &a.common)?;
            if a.record {
                check::record(&root.join("specs/manifest.json"), &results)?;
            }
            let ok = results.iter().all(|r| r.ok());
            if a.common.json {
                println!("{}", serde_json::to_string_pretty(&json!({ "models": results, "ok": ok })).unwrap());
            } else {
                check::print_table(&results);
                closing("models", &results.iter().map(|r| r.ok()).collect::<Vec<_>>());
            }
            Ok(ok)
        }
        Cmd::Prove(a) => {
            let results = run_proofs(&a.proofs, &a.common)?;
            let ok = results.iter().all(|r| r.as_expected());
            if a.common.json {
                println!("{}", serde_json::to_string_pretty(&json!({ "proofs": proofs_json(&results), "ok": ok })).unwrap());
            } else {
                print_proofs(&results);
                closing("proofs", &results.iter().map(|r| r.as_expected()).collect::<Vec<_>>());
            }
            Ok(ok)
        }
        Cmd::Mutants(a) => {
            let (root, man) = load()?;
            let chosen = mutants::select(&man, &a.ids)?;
            let mut needed: Vec<&ringlab_tlc::manifest::Model> = Vec::new();
            for mu in &chosen {
                for k in &mu.killers {
                    if let ringlab_tlc::manifest::Killer::Tlc { model } = k {
                        if let Some(m) = man.model(model) {
                            if !needed.iter().any(|n| n.name == m.name) {
                                needed.push(m);
                            }
                        }
                    }
                }
            }
            let models = run_models(&root, &needed, &a.tlc, &a.common)?;
            let results = run_mutants(&root, &chosen, &models, &a.common);
            let ok = results.iter().all(|r| r.ok());
            if a.common.json {
                println!("{}", serde_json::to_string_pretty(&json!({ "mutants": mutants_json(&results), "ok": ok })).unwrap());
            } else {
                mutants::print_table(&results);
                closing("mutants", &results.iter().map(|r| r.ok()).collect::<Vec<_>>());
            }
            Ok(ok)
        }
        Cmd::Verify(a) => {
            let (root, man) = load()?;
            let models = check::select(&man, &[], a.tlc.deep)?;
            let mresults = run_models(&root, &models, &a.tlc, &a.common)?;
            let presults = run_proofs(&[], &a.common)?;
            let all: Vec<_> = man.mutants.iter().collect();
            let uresults = run_mutants(&root, &all, &mresults, &a.common);
            let scenarios = a.diff_scenarios.unwrap_or(if a.tlc.deep { 10_000 } else { 500 });
            let (diff, diff_ok) = ringlab::cmd::diff::verify_section(scenarios, a.diff_seed, !a.common.quiet);
            let (kernel, kernel_ok) = kernel_section(&root, a.kernel);
            let ok = mresults.iter().all(|r| r.ok())
                && presults.iter().all(|r| r.as_expected())
                && uresults.iter().all(|r| r.ok())
                && diff_ok
                && kernel_ok;
            let doc = json!({
                "models": mresults,
                "proofs": proofs_json(&presults),
                "mutants": mutants_json(&uresults),
                "diff": diff,
                "kernel": kernel,
                "ok": ok,
            });
            let text = serde_json::to_string_pretty(&doc).unwrap();
            let saved = check::out_dir(&root).join("verify.json");
            let recorded = std::fs::create_dir_all(check::out_dir(&root)).and_then(|_| std::fs::write(&saved, &text));
            if let Err(e) = &recorded {
                eprintln!("ringlab: could not save {}: {e}", saved.display());
            }
            if a.common.json {
                println!("{text}");
            } else {
                println!("== TLC models");
                check::print_table(&mresults);
                println!("\n== Z3 proofs");
                print_proofs(&presults);
                println!("\n== Mutants");
                mutants::print_table(&uresults);
                println!();
                let flags: Vec<bool> = mresults
                    .iter()
                    .map(|r| r.ok())
                    .chain(presults.iter().map(|r| r.as_expected()))
                    .chain(uresults.iter().map(|r| r.ok()))
                    .chain([diff_ok, kernel_ok])
                    .collect();
                println!(
                    "models {}/{} as expected, proofs {}/{} as expected, mutants {}/{} killed, {}, {}",
                    mresults.iter().filter(|r| r.ok()).count(),
                    mresults.len(),
                    presults.iter().filter(|r| r.as_expected()).count(),
                    presults.len(),
                    uresults.iter().filter(|r| r.ok()).count(),
                    uresults.len(),
                    diff_line(&diff),
                    kernel_line(&kernel)
                );
                closing("verify", &flags);
            }
            // the report is of the run just recorded, never of an older one
            match recorded.map_err(|e| e.to_string()).and_then(|_| write_report(&root, None, None, &[])) {
                Ok(w) => {
                    if let Some(index) = w.index {
                        let line = format!("report: {}", index.display());
                        if a.common.json { eprintln!("{line}") } else { println!("{line}") }
                    }
                }
                Err(e) => eprintln!("ringlab: could not write the report: {e}"),
            }
            Ok(ok)
        }
        Cmd::Sim(a) => ringlab::cmd::sim::run(&a),
        Cmd::Diff(a) => ringlab::cmd::diff::run(&a),
        Cmd::Bench(a) => ringlab_bench::run(&a),
        Cmd::KernelTest(a) => ringlab_kernel::kernel_test::run(&a),
        Cmd::Report(a) => {
            let root = find_root()?;
            let start = std::time::Instant::now();
            let w = write_report(&root, a.out, a.figures, &a.models)?;
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
    }
}

/// Writes the report (default folder target/ringlab/report).
fn write_report(root: &Path, out: Option<PathBuf>, figures: Option<PathBuf>, models: &[String]) -> Result<ringlab_report::Written, String> {
    let dir = check::out_dir(root);
    let opts = ringlab_report::Opts {
        out: out.unwrap_or_else(|| dir.join("report")),
        figures,
        figure_models: models.to_vec(),
    };
    ringlab_report::write(&dir, &opts)
}

/// The closing line CI reads.
fn closing(what: &str, flags: &[bool]) {
    let passed = flags.iter().filter(|f| **f).count();
    println!("{what}: {} passed, {} failed", passed, flags.len() - passed);
}

fn run_models(
    root: &Path,
    models: &[&ringlab_tlc::manifest::Model],
    t: &TlcArgs,
    c: &Common,
) -> Result<Vec<ModelResult>, String> {
    if models.is_empty() {
        return Ok(Vec::new());
    }
    let tlc = Tlc::locate()?;
    let opts = CheckOpts { workers: t.workers.max(1), progress: !c.quiet, show_traces: !c.json && !c.quiet };
    Ok(models.iter().map(|m| check::run_model(&tlc, root, m, &opts)).collect())
}

fn run_proofs(names: &[String], c: &Common) -> Result<Vec<ProofResult>, String> {
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

fn run_mutants(
    root: &Path,
    chosen: &[&ringlab_tlc::manifest::Mutant],
    models: &[ModelResult],
    c: &Common,
) -> Vec<MutantResult> {
    let by_name: HashMap<String, ModelResult> = models.iter().map(|m| (m.name.clone(), m.clone())).collect();
    let mut cargo = CargoRunner::new(root);
    cargo.verbose = !c.quiet;
    chosen.iter().map(|mu| mutants::run_mutant(mu, &by_name, &mut cargo, !c.quiet)).collect()
}

fn outcome_label(o: &Outcome) -> &'static str {
    match o {
        Outcome::Proved => "proved",
        Outcome::Refuted { .. } => "refuted",
        Outcome::Unknown(_) => "unknown",
    }
}

fn print_proofs(results: &[ProofResult]) {
    println!("{:<34} {:<9} {:<9} {:>7}", "proof", "expected", "outcome", "seconds");
    for r in results {
        let exp = match r.expect {
            Expect::Proved => "proved",
            Expect::Refuted => "refuted",
        };
        println!(
            "{:<34} {:<9} {:<9} {:>7.2}  {}",
            r.name,
            exp,
            outcome_label(&r.outcome),
            r.seconds,
            if r.as_expected() { "ok" } else { "FAIL" }
        );
        if let Outcome::Refuted { counterexample } = &r.outcome {
            let cx: Vec<String> = counterexample.iter().map(|(n, v)| format!("{n}={v:#x}")).collect();
            println!("{:<34} counterexample: {}", "", cx.join(" "));
        }
        if let Outcome::Unknown(why) = &r.outcome {
            println!("{:<34} z3 gave up: {why}", "");
        }
    }
}

fn proofs_json(results: &[ProofResult]) -> serde_json::Value {
    results
        .iter()
        .map(|r| {
            let mut v = json!({
                "name": r.name,
                "about": r.about,
                "expected": match r.expect { Expect::Proved => "proved", Expect::Refuted => "refuted" },
                "outcome": outcome_label(&r.outcome),
                "mutant": r.mutant,
                "seconds": r.seconds,
            });
            if let Outcome::Refuted { counterexample } = &r.outcome {
                v["counterexample"] = counterexample.iter().map(|(n, x)| (n.clone(), json!(x))).collect::<serde_json::Map<_, _>>().into();
            }
            v
        })
        .collect::<Vec<_>>()
        .into()
}

fn mutants_json(results: &[MutantResult]) -> serde_json::Value {
    results
        .iter()
        .map(|r| {
            json!({
                "id": r.id, "kind": r.kind, "bug": r.bug, "year": r.year, "what": r.what, "link": r.link,
                "killed_by": r.killed_by, "checks": r.checks, "ok": r.ok(),
            })
        })
        .collect::<Vec<_>>()
        .into()
}
