//! `ringlab verify`: every model, proof and mutant, the live-kernel diff
//! and (with --kernel) the kernel series in the VM; one summary or one
//! JSON document (target/ringlab/verify.json); then the report.

use std::path::Path;

use clap::Args;

use ringlab_kernel::kernel_test::{self, KernelTestArgs};
use ringlab_model::paths::out_dir;
use ringlab_model::schema::Header;
use ringlab_results::{IouringDiff, KernelSection, MutantDoc, ProofDoc, VerifyDoc};
use ringlab_tlc::check;

use super::args::{load, to_json, Common, TlcArgs};
use super::check::{print_coverage, print_table, print_thresholds, run_models, run_thresholds};
use super::mutants::run_mutants;
use super::prove::{print_proofs, run_proofs};
use crate::{mutants, table};

/// The io_uring diff's scenarios in `ringlab verify` (a few seconds).
const IOURING_SCENARIOS: u64 = 100;

#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    tlc: TlcArgs,
    #[command(flatten)]
    common: Common,
    /// Differential scenarios on the live kernel (default 10000); the first 500 agreed ones (2000 with --deep) go through the TLC chain
    #[arg(long)]
    diff_scenarios: Option<u64>,
    /// Seed of the differential campaign
    #[arg(long, default_value_t = 1)]
    diff_seed: u64,
    /// Mutants of the automatic campaign's fixed sample, per spec; 0 skips it
    #[arg(long, default_value_t = 3)]
    mutate_sample: usize,
    /// Mutants of the fixed sample per crate (cargo-mutants; each is built and tested, minutes): make verify runs 1
    #[arg(long, default_value_t = 0, value_name = "N")]
    rust_mutants: usize,
    /// Also run `ringlab kernel-test` on the repository's series and its mutants (the "kernel" section; builds are cached)
    #[arg(long)]
    kernel: bool,
    #[command(flatten)]
    first_kill: super::mutants::FirstKill,
    #[command(flatten)]
    empty: ringlab_kernel::empty::AllowEmpty,
}

pub fn run(a: &VerifyArgs) -> Result<bool, String> {
    let scenarios = a.diff_scenarios.unwrap_or(10_000);
    let chain_max = if a.tlc.deep { 2_000 } else { 500 };
    a.empty.count("--diff-scenarios", scenarios)?;
    let (root, man) = load()?;
    let mut clock = Clock::default();
    let models = check::select(&man, &[], a.tlc.deep)?;
    let mresults = clock.time("models", || run_models(&root, &man, &models, &a.tlc, &a.common))?;
    let coverage = check::spec_coverage(&man, &mresults);
    let thresholds = clock.time("thresholds", || run_thresholds(&root, &man, &a.tlc, &a.common))?;
    let presults = clock.time("proofs", || run_proofs(&[], &a.common))?;
    let all: Vec<_> = man.mutants.iter().collect();
    let uresults = clock.time("mutants", || run_mutants(&root, &all, &mresults, a.tlc.jobs, a.first_kill.first_kill, &a.common));
    let mutation = clock.time("mutation sample", || {
        (a.mutate_sample > 0).then(|| super::mutate::sample(a.mutate_sample, a.rust_mutants, a.common.quiet, &mresults))
    });
    let diff = clock.time("diff", || super::diff::verify_section(scenarios, chain_max, a.diff_seed, !a.common.quiet));
    // io_uring SEND_ZC against IoUringZcNotif's model, beside the AF_XDP diff.
    let (iouring_ok, iouring_line) = clock.time("iouring diff", || {
        super::diff::iouring_verify(IOURING_SCENARIOS, a.diff_seed, !a.common.quiet, a.empty.allow_empty)
    });
    eprintln!("{iouring_line}");
    let empty = diff.tested_nothing(a.empty.allow_empty);
    if empty {
        eprintln!("verify: the live-kernel diff was skipped, which fails this run (add --allow-empty to accept it)");
    }
    let kernel = clock.time("kernel", || kernel_section(&root, a.kernel));
    let flags: Vec<bool> = mresults
        .iter()
        .map(|r| r.ok())
        .chain(coverage.iter().map(|s| s.ok()))
        .chain(thresholds.iter().map(|t| t.ok))
        .chain(presults.iter().map(|r| r.as_expected()))
        .chain(uresults.iter().map(|r| r.ok()))
        .chain(mutation.iter().map(|m| m.sample_ok()))
        // a skipped live diff tested nothing: a pass only with --allow-empty
        .chain([diff.ok() && !empty, iouring_ok, kernel.iter().all(KernelSection::ok)])
        .collect();
    let doc = VerifyDoc {
        header: Header::new(VerifyDoc::DOCUMENT),
        models: mresults,
        coverage,
        thresholds,
        proofs: presults.iter().map(ProofDoc::from).collect(),
        mutants: uresults.iter().map(MutantDoc::from).collect(),
        mutation,
        diff,
        iouring: Some(IouringDiff { ok: iouring_ok, line: iouring_line.clone() }),
        kernel,
        allow_empty: a.empty.allow_empty,
        seconds: clock.0,
        ok: flags.iter().all(|f| *f),
    };
    let text = to_json(&doc)?;
    let saved = out_dir(&root).join("verify.json");
    let recorded = std::fs::create_dir_all(out_dir(&root)).and_then(|_| std::fs::write(&saved, &text));
    if let Err(e) = &recorded {
        eprintln!("ringlab: could not save {}: {e}", saved.display());
    }
    if a.common.json {
        println!("{text}");
    } else {
        println!("== TLC models");
        print_table(&doc.models);
        println!("\n== Action coverage");
        print_coverage(&doc.coverage);
        println!("\n== Thresholds");
        print_thresholds(&doc.thresholds);
        println!("\n== Z3 proofs");
        print_proofs(&presults);
        println!("\n== Mutants");
        mutants::print_table(&uresults);
        if let Some(m) = &doc.mutation {
            println!("\n== Mutation campaign (fixed sample; `ringlab mutate` for all)");
            super::mutate::print_doc(m);
        }
        println!("\n{}, {iouring_line}", summary(&doc));
        println!("{}", timing(&doc.seconds));
        println!("{}", performance(&doc));
        println!("{}", table::closing("verify", &flags));
        // what failed, last, where CI logs are read from the end
        for p in doc.problems().iter().filter(|_| !doc.ok) {
            println!("FAILED {p}");
        }
        if !doc.ok {
            println!("detail: {} (every check, its outcome and error)", saved.display());
        }
    }
    // the report is of the run just recorded, never of an older one
    match recorded.map_err(|e| e.to_string()).and_then(|_| super::report::write(&root, None, None, &[])) {
        Ok(w) => {
            if let Some(index) = w.index {
                let line = format!("report: {}", index.display());
                if a.common.json {
                    eprintln!("{line}")
                } else {
                    println!("{line}")
                }
            }
        }
        Err(e) => eprintln!("ringlab: could not write the report: {e}"),
    }
    Ok(doc.ok)
}

/// Wall-clock seconds per section.
#[derive(Default)]
struct Clock(Vec<(String, f64)>);

impl Clock {
    fn time<R>(&mut self, section: &str, f: impl FnOnce() -> R) -> R {
        let t = std::time::Instant::now();
        let r = f();
        self.0.push((section.to_string(), t.elapsed().as_secs_f64()));
        r
    }
}

/// "time: models 171 s, ..., total 612 s": where a run's time went.
pub fn timing(seconds: &[(String, f64)]) -> String {
    let parts: Vec<String> = seconds.iter().map(|(s, t)| format!("{s} {t:.0} s")).collect();
    format!("time: {}, total {:.0} s", parts.join(", "), seconds.iter().map(|(_, t)| t).sum::<f64>())
}

/// "performance: ...": the run's own rates, one line (`ringlab bench`
/// measures them apart, against peers).
pub fn performance(d: &VerifyDoc) -> String {
    let secs = |name: &str| d.seconds.iter().find(|(s, _)| s == name).map_or(0.0, |(_, t)| *t);
    let rate = |n: f64, s: f64| if s > 0.0 { format!("{:.0}/s", n / s) } else { "-".into() };
    let states: u64 = d.models.iter().filter_map(|m| m.distinct_states).sum();
    let mut parts = vec![format!(
        "TLC {states} distinct states over {} models in {:.0} s ({})",
        d.models.len(),
        secs("models"),
        rate(states as f64, secs("models"))
    )];
    if let ringlab_results::verify::DiffSection::Ran { campaign: c } = &d.diff {
        let chain: f64 = c.chain.iter().chain(&c.rx_chain).map(|x| x.seconds).sum();
        parts.push(format!(
            "live diff {} scenarios in {:.1} s ({}), its TLC chains {:.0} s",
            c.scenarios,
            c.seconds,
            rate(c.scenarios as f64, c.seconds),
            chain
        ));
    }
    let rust: Vec<_> = d
        .mutants
        .iter()
        .flat_map(|m| &m.result.checks)
        .filter(|c| !c.check.starts_with("tlc:") && !c.check.starts_with("proof:"))
        .collect();
    let skipped = rust.iter().filter(|c| c.result == ringlab_results::mutants::Kill::Skipped).count();
    let skipped = if skipped > 0 { format!(" ({skipped} skipped after a first kill)") } else { String::new() };
    parts.push(format!("mutants {} with {} Rust checks{skipped} in {:.0} s", d.mutants.len(), rust.len(), secs("mutants")));
    format!("performance: {}", parts.join("; "))
}

/// The line above verify's closing line: every section's count.
pub fn summary(d: &VerifyDoc) -> String {
    format!(
        "models {}/{} as expected, specs {}/{} with every action covered, thresholds {}/{} crossed, proofs {}/{} as expected, mutants {}/{} killed, {}{}, {}",
        d.models.iter().filter(|r| r.ok()).count(),
        d.models.len(),
        d.coverage.iter().filter(|s| s.ok()).count(),
        d.coverage.len(),
        d.thresholds.iter().filter(|t| t.ok).count(),
        d.thresholds.len(),
        d.proofs.iter().filter(|r| r.ok()).count(),
        d.proofs.len(),
        d.mutants.iter().filter(|r| r.ok).count(),
        d.mutants.len(),
        d.mutation.as_ref().map_or(String::new(), |m| match &m.error {
            Some(_) => "mutation sample did not run, ".to_string(),
            None => format!(
                "mutation sample {}/{} killed or reviewed, ",
                m.runs.len() - m.survivors().count(),
                m.runs.len()
            ),
        }),
        d.diff.line(),
        d.kernel.iter().map(KernelSection::line).collect::<Vec<_>>().join("; ")
    )
}

/// The "kernel" section: `ringlab kernel-test` on each series of
/// kernel/patches/ with its mutants (kernel/patches/mutants/<series>/).
fn kernel_section(root: &Path, wanted: bool) -> Vec<KernelSection> {
    if !wanted {
        return vec![KernelSection::Skipped { skipped: "not requested (verify --kernel, or make kernel-vm-test)".into() }];
    }
    let series = match kernel_test::all_series(root) {
        Ok(s) if !s.is_empty() => s,
        Ok(_) => return vec![KernelSection::Failed { error: "kernel/patches/ holds no series (a folder with 0000-cover-letter.patch)".into() }],
        Err(e) => return vec![KernelSection::Failed { error: e }],
    };
    series
        .into_iter()
        .map(|dir| {
            let args = KernelTestArgs {
                mutants: kernel_test::mutants_of(root, &dir),
                series: Some(dir.clone()),
                scenarios: kernel_test::SCENARIOS,
                fault_rounds: kernel_test::FAULT_ROUNDS,
                seed: 1,
                json: false,
                no_vm: false,
                empty: Default::default(),
            };
            match super::kernel_test::test(root, &args) {
                Ok(doc) => KernelSection::Ran(Box::new(doc)),
                Err(e) => KernelSection::Failed { error: format!("{}: {e}", dir.strip_prefix(root).unwrap_or(&dir).display()) },
            }
        })
        .collect()
}
