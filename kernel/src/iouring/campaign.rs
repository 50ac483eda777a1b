//! The io_uring campaign: N scenarios from one seed, each run on the
//! kernel and replayed through the model; each divergence shrunk and
//! saved as a replay file (`ringlab diff --iouring --replay FILE`). Runs
//! on a thread of its own, the one that enters the namespaces.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use ringlab_model::rng::Rng;

use crate::env::release;

use super::class::classes;
use super::net::Net;
use super::obs::Live;
use super::project::{project, Divergence, Projection};
use super::scenario::Scenario;
use super::{gen, ring, shrink};

/// What a replay file holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Replay {
    pub kernel: String,
    /// The scenario's seed before shrinking (gen::scenario).
    pub seed: u64,
    pub scenario: Scenario,
    pub divergence: Divergence,
    pub live: Live,
}

#[derive(Debug, Clone)]
pub struct Opts {
    pub scenarios: u64,
    pub seed: u64,
    pub progress: bool,
    /// Where replay files go (none: not written).
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub kernel: String,
    pub seed: u64,
    pub scenarios: u64,
    /// Kernel CQEs compared with the model (or, plain sends, the rule).
    pub cqes: u64,
    /// Model actions the runs were replayed as.
    pub actions: u64,
    /// Notifications that reported zero copy, and a copy.
    pub zc_used: u64,
    pub zc_copied: u64,
    /// Batches the kernel flagged IORING_SQ_CQ_OVERFLOW on.
    pub flagged: u64,
    /// CQEs that went through the model's overflow list in the replays
    /// (IoCqringOverflowFlush).
    pub overflows: u64,
    /// Notifications the kernel posted later than the model under the
    /// profile rule of project.rs (cleanup flush, link before a fault).
    pub deferred: u64,
    /// Requests per failure class.
    pub classes: BTreeMap<String, u64>,
    pub divergences: Vec<Replay>,
    pub replay_files: Vec<PathBuf>,
    pub seconds: f64,
}

impl Summary {
    /// "iouring diff N/D div": scenarios and divergences.
    pub fn line(&self) -> String {
        format!(
            "iouring diff {}/{} div ({} CQEs compared, {} model actions, {} zero-copy and {} copied notifications, {} batches flagging CQ overflow, {} CQEs through the overflow list, {} notifications posted later than the model's (cleanup flush, link before a fault))",
            self.scenarios,
            self.divergences.len(),
            self.cqes,
            self.actions,
            self.zc_used,
            self.zc_copied,
            self.flagged,
            self.overflows,
            self.deferred
        )
    }
}

/// Scenario `i`'s seed from the campaign's.
pub fn scenario_seed(seed: u64, i: u64) -> u64 {
    Rng::new(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

/// One scenario on the kernel and through the model.
pub fn check(net: &Net, s: &Scenario) -> io::Result<(Live, Result<Projection, Divergence>)> {
    let live = ring::run(net, s)?;
    let p = project(s, &live);
    Ok((live, p))
}

/// Runs `f` on a fresh thread in fresh namespaces, removed when it returns.
pub fn in_net<T: Send + 'static>(f: impl FnOnce(&Net) -> io::Result<T> + Send + 'static) -> io::Result<T> {
    std::thread::spawn(move || {
        let net = Net::new()?;
        f(&net)
    })
    .join()
    .map_err(|_| io::Error::other("the io_uring campaign's thread panicked (its namespaces were removed)"))?
}

pub fn run(opts: Opts) -> io::Result<Summary> {
    in_net(move |net| campaign(net, &opts))
}

fn campaign(net: &Net, o: &Opts) -> io::Result<Summary> {
    let t = Instant::now();
    let mut sum = Summary { kernel: release(), seed: o.seed, ..Summary::default() };
    for i in 0..o.scenarios {
        let seed = scenario_seed(o.seed, i);
        let s = gen::scenario(seed);
        let (live, p) = check(net, &s)?;
        sum.scenarios += 1;
        for c in classes(&s) {
            *sum.classes.entry(format!("{c:?}")).or_default() += 1;
        }
        let (zc, copied) = live.usage();
        sum.zc_used += zc;
        sum.zc_copied += copied;
        sum.flagged += live.batches.iter().filter(|b| b.overflow_flag).count() as u64;
        match p {
            Ok(p) => {
                sum.cqes += p.compared;
                sum.actions += p.actions.len() as u64;
                sum.deferred += p.deferred;
                sum.overflows += p.actions.iter().filter(|a| a.name() == "IoCqringOverflowFlush").count() as u64;
            }
            Err(d) => {
                let again = |n: &Net, c: &Scenario| check(n, c).ok().and_then(|(_, p)| p.err());
                let (small, d) = shrink::shrink(net, &s, d, again);
                let live = ring::run(net, &small)?;
                let r = Replay { kernel: sum.kernel.clone(), seed, scenario: small, divergence: d, live };
                if let Some(dir) = &o.out {
                    sum.replay_files.push(save(dir, &r)?);
                }
                if o.progress {
                    eprintln!("iouring diff: scenario seed {seed:#x} diverges: {}", r.divergence.why);
                }
                sum.divergences.push(r);
            }
        }
        if o.progress && (i + 1) % 50 == 0 {
            eprintln!("iouring diff: {} scenarios, {} CQEs, {} divergences", i + 1, sum.cqes, sum.divergences.len());
        }
    }
    sum.seconds = t.elapsed().as_secs_f64();
    Ok(sum)
}

fn save(dir: &Path, r: &Replay) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let f = dir.join(format!("iouring-{:016x}.json", r.seed));
    std::fs::write(&f, serde_json::to_string_pretty(r).map_err(io::Error::other)?)?;
    Ok(f)
}

/// Runs a replay file's scenario again: the divergence now, if any.
pub fn replay(file: &Path) -> io::Result<(Replay, Option<Divergence>)> {
    let text = std::fs::read_to_string(file).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", file.display())))?;
    let r: Replay = serde_json::from_str(&text).map_err(|e| io::Error::other(format!("{}: not an io_uring replay file: {e}", file.display())))?;
    let s = r.scenario.clone();
    let d = in_net(move |net| Ok(check(net, &s)?.1.err()))?;
    Ok((r, d))
}
