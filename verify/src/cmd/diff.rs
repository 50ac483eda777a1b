//! `ringlab diff`: the model of AF_XDP copy mode against the running
//! kernel (ringlab-kernel), then every scenario they agreed on validated
//! against specs/XskCopyTx.tla (the chain, cmd::chain). Prints `SKIP:
//! <reason>` and succeeds only when this process cannot reach the
//! kernel's AF_XDP at all.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde::Serialize;

use ringlab_kernel::boundary::{self, BoundaryDoc};
use ringlab_kernel::boundary_live;
use ringlab_kernel::bpf::Redirect;
use ringlab_kernel::campaign::{self, Opts, Summary};
use ringlab_kernel::diff_doc::{ChainDoc, DiffDoc};
use ringlab_kernel::env::{release, skip_reason};
use ringlab_kernel::probe::probe;
use ringlab_kernel::txopts::TX_BATCH_SIZE;
use ringlab_model::afxdp::Profile;
use ringlab_model::schema::Header;
use ringlab_results::DiffSection;

use super::{chain, rx_chain};
use ringlab_kernel::empty::AllowEmpty;
use ringlab_kernel::iouring;

/// XSK_MAX_GENERIC_XMIT_BATCH in the series.
pub const MAX_BATCH: u32 = 1024;

#[derive(Args)]
pub struct DiffArgs {
    /// Scenarios to generate
    #[arg(long, default_value_t = 200)]
    scenarios: u64,
    /// Campaign seed (default: from the clock; always printed)
    #[arg(long)]
    seed: Option<u64>,
    /// Re-run one replay file (written by an earlier divergence) instead
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// The model's profile (default: the running kernel's, from uname -r);
    /// naming one also sets its TX options on the kernel's sockets and
    /// shrinks only the first divergence (as in the test VM)
    #[arg(long, value_enum, conflicts_with = "replay")]
    profile: Option<ProfileName>,
    #[command(flatten)]
    tx: TxArgs,
    /// Where replay files of divergences go (default target/ringlab/diff)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Do not validate the kernel traces against XskCopyTx with TLC (the
    /// test VM's guests, which have no TLC: the host validates theirs)
    #[arg(long)]
    no_chain: bool,
    /// Also write each kernel trace as an Apalache ITF file under
    /// <out>/traces/
    #[arg(long)]
    itf: bool,
    /// Print one JSON document on stdout
    #[arg(long)]
    json: bool,
    /// Workers, each with a sandbox of lanes of its own (default: one per
    /// core); the results do not depend on it
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=64), conflicts_with = "replay")]
    jobs: Option<u64>,
    /// The helper the XDP program redirects with: bpf_redirect_map(), or
    /// bpf_redirect_xsk() (kernel/patches/xsk-redirect-xsk), with which
    /// the campaign runs receive scenarios only and must take its fast
    /// path
    #[arg(long, value_enum, default_value_t = Redirect::Map, conflicts_with = "replay")]
    redirect: Redirect,
    /// io_uring SEND_ZC instead: its seeded campaign against
    /// IoUringZcNotif's model (with --replay, an io_uring replay file)
    #[arg(long, conflicts_with_all = ["profile", "redirect", "no_chain", "itf", "jobs"])]
    iouring: bool,
    /// Also write every scenario and what the kernel showed for it, a
    /// JSON line each, to FILE
    #[arg(long, value_name = "FILE", conflicts_with_all = ["replay", "iouring"])]
    observe: Option<PathBuf>,
    /// Two kernels on the same seeded scenarios: `host,vm:6.12` runs the
    /// campaign here and on 6.12.117 in the test VM, holds each to the
    /// model under its own profile and the two to each other; a
    /// difference no profile rule explains fails the run
    #[arg(long, value_name = "A,B", conflicts_with_all = ["replay", "profile", "iouring", "observe", "redirect", "itf"])]
    kernels: Option<String>,
    /// Every boundary descriptor (model::desc's grids) sent alone on
    /// aligned and unaligned umems, each accept/refuse held to the model's
    /// validator, instead of the campaign (`--kernels` runs it on both
    /// kernels too)
    #[arg(long, conflicts_with_all = ["replay", "iouring", "kernels", "profile", "observe", "itf"])]
    boundary: bool,
    #[command(flatten)]
    empty: AllowEmpty,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum ProfileName {
    #[value(name = "6.12")]
    V6_12,
    #[value(name = "6.18")]
    V6_18,
    /// the batch series (XDP_GENERIC_XMIT_BATCH)
    Batch,
}

/// The copy-mode TX options of the batch series.
#[derive(Args, Clone, Copy, Debug)]
pub struct TxArgs {
    /// XDP_GENERIC_XMIT_BATCH (0: the per-descriptor loop)
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=MAX_BATCH as i64))]
    pub batch: u32,
    /// XDP_MAX_TX_SKB_BUDGET (its floor is TX_BATCH_SIZE)
    #[arg(long, default_value_t = TX_BATCH_SIZE, value_parser = clap::value_parser!(u32).range(TX_BATCH_SIZE as i64..=1 << 16))]
    pub budget: u32,
}

/// `ringlab diff --json`.
#[derive(Serialize)]
struct DiffOut<'a> {
    #[serde(flatten)]
    header: Header,
    #[serde(flatten)]
    doc: &'a DiffDoc,
}

/// `ringlab diff --boundary --json`.
#[derive(Serialize)]
struct BoundaryOut<'a> {
    #[serde(flatten)]
    header: Header,
    #[serde(flatten)]
    doc: &'a BoundaryDoc,
}

/// `ringlab diff --boundary`: the table (or one JSON line), SKIP where
/// this process cannot reach AF_XDP.
fn run_boundary(a: &DiffArgs) -> Result<bool, String> {
    if let Some(why) = skip_reason() {
        return Ok(a.empty.skip(&why));
    }
    let doc = boundary_live::run().map_err(|e| format!("boundary: {e}"))?;
    if a.json {
        // one line: the test VM's host reads the last JSON line of stdout
        let out = BoundaryOut { header: Header::new("diff-boundary"), doc: &doc };
        println!("{}", serde_json::to_string(&out).map_err(|e| e.to_string())?);
    } else {
        print!("{}", boundary::table(&doc));
    }
    Ok(doc.ok)
}

/// The seed given, else one from the clock; printed either way.
pub fn seed_or_clock(given: Option<u64>) -> u64 {
    let s = given.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
    });
    eprintln!("seed {s} (rerun with --seed {s})");
    s
}

/// The profile `name` names, with the TX options `tx`.
fn profile(name: ProfileName, tx: TxArgs) -> Result<Profile, String> {
    let mut p = match name {
        ProfileName::V6_12 => Profile::for_release("6.12"),
        ProfileName::V6_18 => Profile::for_release("6.18"),
        ProfileName::Batch => return Ok(Profile::batch(tx.batch, tx.budget)),
    };
    if tx.batch > 0 {
        return Err(format!("--batch {} needs --profile batch", tx.batch));
    }
    p.tx_budget = tx.budget;
    Ok(p)
}

pub fn run(a: &DiffArgs) -> Result<bool, String> {
    if a.iouring {
        return run_iouring(a);
    }
    if a.boundary {
        return run_boundary(a);
    }
    if a.replay.is_none() {
        a.empty.count("--scenarios", a.scenarios)?;
    }
    if let Some(why) = skip_reason() {
        return Ok(a.empty.skip(&why));
    }
    if let Some(pair) = &a.kernels {
        return super::diff_kernels::run(pair, a.scenarios, a.seed, a.json);
    }
    if let Some(file) = &a.replay {
        return replay(file);
    }
    let seed = seed_or_clock(a.seed);
    let out_dir = a.out.clone().or_else(|| ringlab_model::paths::find_root().ok().map(|r| r.join("target/ringlab/diff")));
    let opts = Opts { scenarios: a.scenarios, seed, progress: true, out: out_dir.clone(), stop_after: None, jobs: a.jobs.unwrap_or(0) as usize, observe: a.observe.is_some() };
    let (sum, tx) = match a.profile {
        None => {
            let p = Profile::for_release(&release());
            (campaign::run_redirect(opts, p, usize::MAX, a.redirect).map_err(|e| e.to_string())?, TxArgs { batch: 0, budget: TX_BATCH_SIZE })
        }
        Some(name) => {
            let p = profile(name, a.tx)?;
            // Batch 0 sets no batch option: make sure the series is there all the same.
            if name == ProfileName::Batch && !probe().map_err(|e| format!("probe: {e}"))?.xmit_batch_supported {
                return Err("the running kernel has no XDP_GENERIC_XMIT_BATCH (is the series applied?)".into());
            }
            eprintln!("diff: kernel {}, profile {} (batch {}, budget {}), {} scenarios", release(), p.name, a.tx.batch, a.tx.budget, a.scenarios);
            (campaign::run_redirect(opts, p, 1, a.redirect).map_err(|e| format!("campaign: {e}"))?, a.tx)
        }
    };
    if let Some(file) = &a.observe {
        ringlab_kernel::kernel_test::kernels::write_observed(file, &sum.observed)?;
    }
    let mut doc = DiffDoc::of(&sum, tx.batch, tx.budget);
    if !a.no_chain {
        let itf = a.itf.then(|| out_dir.as_ref().map(|o| o.join("traces"))).flatten();
        doc.chain = Some(chain_of(&sum, itf.as_deref(), true));
        doc.rx_chain = Some(rx_chain_of(&sum, true));
    }
    if doc.fast_path_never_taken() {
        eprintln!("diff: bpf_redirect_xsk(): the fast path was never taken: the check could not fail");
    }
    if a.json {
        // one line: the test VM's host reads the last JSON line of stdout
        let out = DiffOut { header: Header::new("diff"), doc: &doc };
        println!("{}", serde_json::to_string(&out).map_err(|e| e.to_string())?);
    } else {
        print_summary(&sum);
        if sum.redirect == Redirect::Xsk {
            println!(
                "bpf_redirect_xsk: {} frames by the fast path (XDP_REDIRECT_XSK), {} by the fallback (XDP_REDIRECT){}",
                sum.paths.fast_path,
                sum.paths.fallback,
                if doc.fast_path_never_taken() { ": the fast path was never taken: the check could not fail" } else { "" }
            );
        }
        for c in doc.chain.iter().chain(&doc.rx_chain) {
            println!("{}", chain_line(c));
        }
    }
    Ok(doc.ok())
}

/// Validates the campaign's kernel traces against the spec (stderr says
/// how it went).
fn chain_of(sum: &Summary, itf: Option<&std::path::Path>, progress: bool) -> ChainDoc {
    if progress {
        eprintln!("diff: validating {} kernel traces against XskCopyTx with TLC", sum.chain.len());
    }
    let c = chain::of_summary(sum, itf);
    for x in &c.rejections {
        eprintln!("diff: chain: {x}");
    }
    if progress {
        eprintln!("diff: {}", chain_line(&c));
    }
    c
}

/// Validates the campaign's receive traces against XskRx (stderr says
/// how it went).
fn rx_chain_of(sum: &Summary, progress: bool) -> ChainDoc {
    if progress {
        eprintln!("diff: validating the receive traces against XskRx with TLC");
    }
    let c = rx_chain::of_summary(sum);
    for x in &c.rejections {
        eprintln!("diff: receive chain: {x}");
    }
    if progress {
        eprintln!("diff: {}", chain_line(&c));
    }
    c
}

/// How many kernel traces the spec accepted, for people.
pub fn chain_line(c: &ChainDoc) -> String {
    if c.error.is_some() {
        return c.words();
    }
    format!("{} ({} steps, {} TLC runs, {}s)", c.words(), c.steps, c.tlc_runs, c.seconds)
}

fn replay(file: &std::path::Path) -> Result<bool, String> {
    let (r, m) = campaign::replay(file).map_err(|e| e.to_string())?;
    println!("replay {} (recorded on {}, profile {}; now {})", file.display(), r.kernel, r.profile, release());
    Ok(match m {
        None => {
            println!("kernel and model agree on all {} operations", r.scenario.ops.len());
            true
        }
        Some(m) => {
            println!("diverges at operation {}:\n  model:  {:?}\n  kernel: {:?}", m.at, m.model, m.kernel);
            false
        }
    })
}

/// The campaign `ringlab verify` runs: its `"diff"` section (a skip is not
/// a failure; it says why).
/// `ringlab verify`'s campaign: `scenarios` compared live, the first
/// `chain_max` agreed traces of them through TLC (the chain takes a good
/// tenth of a second a trace, the diff a thousandth of one).
pub fn verify_section(scenarios: u64, chain_max: usize, seed: u64, progress: bool) -> DiffSection {
    if let Some(why) = skip_reason() {
        eprintln!("diff: SKIP: {why}");
        return DiffSection::Skipped { skipped: why, kernel: release() };
    }
    if progress {
        eprintln!("diff: {scenarios} scenarios, seed {seed} (rerun with ringlab diff --scenarios {scenarios} --seed {seed})");
    }
    let out = ringlab_model::paths::find_root().ok().map(|r| r.join("target/ringlab/diff"));
    match campaign::run(Opts { scenarios, seed, progress, out, stop_after: None, jobs: 0, observe: false }) {
        Ok(sum) => {
            // stderr: verify --json keeps stdout for its document.
            for f in &sum.replay_files {
                eprintln!("diff: divergence, replay: ringlab diff --replay {}", f.display());
            }
            eprintln!(
                "diff: kernel {} (profile {}): {} scenarios, {} operations, {} divergences",
                sum.kernel,
                sum.profile,
                sum.scenarios,
                sum.operations,
                sum.divergences.len()
            );
            let mut campaign = DiffDoc::of(&sum, 0, TX_BATCH_SIZE);
            let mut sample = sum.clone();
            if sample.chain.len() > chain_max {
                if progress {
                    eprintln!("diff: the chain takes the first {chain_max} of the {} agreed scenarios", sample.chain.len());
                }
                sample.chain.truncate(chain_max);
            }
            campaign.chain = Some(chain_of(&sample, None, progress));
            campaign.rx_chain = Some(rx_chain_of(&sample, progress));
            DiffSection::Ran { campaign }
        }
        Err(e) => {
            eprintln!("diff: error: {e}");
            DiffSection::Failed { error: e.to_string(), kernel: release(), seed }
        }
    }
}

fn print_summary(s: &Summary) {
    for (d, f) in s.divergences.iter().zip(s.replay_files.iter().map(Some).chain(std::iter::repeat(None))) {
        if let Some(m) = &d.mismatch {
            println!("divergence (scenario seed {:#x}, {} ops after shrinking) at op {}:", d.seed, d.scenario.ops.len(), m.at);
            println!("  model:  {:?}\n  kernel: {:?}", m.model, m.kernel);
        }
        if let Some(f) = f {
            println!("  replay: ringlab diff --replay {}", f.display());
        }
    }
    let per_s = |n: u64| if s.seconds > 0.0 { n as f64 / s.seconds } else { 0.0 };
    println!(
        "kernel {} (profile {}), seed {}: {} scenarios, {} operations, {} divergences; {:.0} scenarios/s, {:.0} operations/s on {} workers",
        s.kernel,
        s.profile,
        s.seed,
        s.scenarios,
        s.operations,
        s.divergences.len(),
        per_s(s.scenarios),
        per_s(s.operations),
        s.jobs
    );
}

/// `ringlab diff --iouring`: the io_uring campaign, or one of its replay
/// files. SKIP where io_uring is disabled or not permitted.
fn run_iouring(a: &DiffArgs) -> Result<bool, String> {
    if a.replay.is_none() {
        a.empty.count("--scenarios", a.scenarios)?;
    }
    if let Some(why) = iouring::sys::skip_reason() {
        return Ok(a.empty.skip(&why));
    }
    if let Some(file) = &a.replay {
        let (r, d) = iouring::campaign::replay(file).map_err(|e| e.to_string())?;
        println!("replay {} (recorded on {}; now {})", file.display(), r.kernel, release());
        return Ok(match d {
            None => {
                println!("kernel and model agree on all {} requests", r.scenario.requests().count());
                true
            }
            Some(d) => {
                println!("diverges at step {} (CQE {:?}): {}", d.step, d.cqe, d.why);
                false
            }
        });
    }
    let seed = seed_or_clock(a.seed);
    let out = a.out.clone().or_else(|| ringlab_model::paths::find_root().ok().map(|r| r.join("target/ringlab/diff")));
    let sum = iouring::campaign::run(iouring::campaign::Opts { scenarios: a.scenarios, seed, progress: !a.json, out })
        .map_err(|e| format!("io_uring campaign: {e}"))?;
    if a.json {
        println!("{}", serde_json::to_string(&sum).map_err(|e| e.to_string())?);
    } else {
        print_iouring(&sum);
    }
    Ok(sum.divergences.is_empty())
}

fn print_iouring(s: &iouring::campaign::Summary) {
    for (d, f) in s.divergences.iter().zip(s.replay_files.iter().map(Some).chain(std::iter::repeat(None))) {
        println!("divergence (scenario seed {:#x}, {} requests after shrinking) at step {}: {}", d.seed, d.scenario.requests().count(), d.divergence.step, d.divergence.why);
        if let Some(f) = f {
            println!("  replay: ringlab diff --iouring --replay {}", f.display());
        }
    }
    let classes: Vec<String> = s.classes.iter().map(|(c, n)| format!("{c} {n}")).collect();
    println!("requests by class: {}", classes.join(", "));
    println!("kernel {}, seed {}: {} ({:.1} s)", s.kernel, s.seed, s.line(), s.seconds);
}

/// The io_uring diff `ringlab verify` runs beside the AF_XDP one: its
/// result line, and whether it passed (a SKIP passes only with
/// `allow_empty`).
pub fn iouring_verify(scenarios: u64, seed: u64, progress: bool, allow_empty: bool) -> (bool, String) {
    if let Some(why) = iouring::sys::skip_reason() {
        return (allow_empty, format!("iouring diff SKIP: {why}"));
    }
    if progress {
        eprintln!("iouring diff: {scenarios} scenarios, seed {seed} (rerun with ringlab diff --iouring --scenarios {scenarios} --seed {seed})");
    }
    let out = ringlab_model::paths::find_root().ok().map(|r| r.join("target/ringlab/diff"));
    match iouring::campaign::run(iouring::campaign::Opts { scenarios, seed, progress, out }) {
        Ok(sum) => {
            for f in &sum.replay_files {
                eprintln!("iouring diff: divergence, replay: ringlab diff --iouring --replay {}", f.display());
            }
            (sum.divergences.is_empty(), sum.line())
        }
        Err(e) => (false, format!("iouring diff error: {e}")),
    }
}
