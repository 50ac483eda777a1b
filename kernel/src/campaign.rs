//! A campaign: N scenarios from one seed, each compared with the model;
//! each divergence shrunk and saved as a replay file. Its workers run on
//! threads of their own, each in the namespace of its sandbox of lanes
//! (lanes.rs).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use ringlab_model::afxdp::{Obs, Op, Profile, Scenario};
use ringlab_model::rng::Rng;

use crate::bpf::{Paths, Redirect};
use crate::compare::{check, Compared, Mismatch};
use crate::env::{release, Env};
use crate::lanes::{Dropper, Lanes, LANES};
use crate::xsk::{bind_waits, BindWaits};
use crate::{gen, gen_grid, shrink};

/// What `ringlab diff --replay FILE` reads back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Replay {
    pub kernel: String,
    pub profile: String,
    /// The seed of the scenario before shrinking (`gen::scenario_for`).
    pub seed: u64,
    pub scenario: Scenario,
    pub mismatch: Option<Mismatch>,
    /// The profile's batch size and TX budget (older files: 0 and 32).
    #[serde(default)]
    pub batch: u32,
    #[serde(default = "default_budget")]
    pub budget: u32,
    /// The helper the XDP program redirected with (older files: map).
    #[serde(default)]
    pub redirect: Redirect,
}

fn default_budget() -> u32 {
    crate::txopts::TX_BATCH_SIZE
}

impl Replay {
    /// The profile to replay under on a kernel of release `running`: the
    /// one recorded, with its batch and budget. A profile this model does
    /// not know, or a release profile the running kernel is not, is an
    /// error naming both: a replay under another profile would compare
    /// with other rules and could pass for the wrong reason. (Whether the
    /// running kernel has the batch series is for the probe to say.)
    pub fn profile(&self, running: &str) -> Result<Profile, String> {
        if self.profile == Profile::design_b(0).name {
            return Ok(Profile::batch(self.batch, self.budget));
        }
        let known = [Profile::for_release("6.12"), Profile::for_release("6.18")];
        let Some(recorded) = known.iter().find(|p| p.name == self.profile) else {
            let names: Vec<&str> = known.iter().map(|p| p.name).chain([Profile::design_b(0).name]).collect();
            return Err(format!("the replay's profile '{}' is not one this model has ({})", self.profile, names.join(", ")));
        };
        let here = Profile::for_release(running);
        if here.name != recorded.name {
            return Err(format!(
                "the replay was recorded under profile {} (kernel {}), but the running kernel {running} is profile {}: replay it on a {} kernel",
                recorded.name, self.kernel, here.name, recorded.name
            ));
        }
        Ok(Profile { tx_budget: self.budget, ..*recorded })
    }
}

#[derive(Debug, Clone)]
pub struct Opts {
    pub scenarios: u64,
    pub seed: u64,
    pub progress: bool,
    /// Where replay files go (none: not written).
    pub out: Option<PathBuf>,
    /// Stop after this many divergences (each is shrunk, which is slow).
    pub stop_after: Option<usize>,
    /// Workers, each with a sandbox of its own (0: one per core).
    pub jobs: usize,
    /// Keep every scenario's kernel observations (`Summary::observed`),
    /// for a comparison with another kernel's (`ringlab diff --kernels`).
    pub observe: bool,
}

impl Opts {
    /// How many workers run: `jobs`, or one per core.
    pub fn workers(&self) -> usize {
        match self.jobs {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub scenarios: u64,
    pub operations: u64,
    pub divergences: Vec<Replay>,
    pub kernel: String,
    pub profile: String,
    pub seed: u64,
    pub seconds: f64,
    pub replay_files: Vec<PathBuf>,
    /// The scenarios that did not diverge, which the host projects onto
    /// specs/XskCopyTx.tla and has TLC check (ringlab-tlc's
    /// trace::kernel_chain), under `chain_profile`.
    pub chain: Vec<ChainCandidate>,
    /// The profile the campaign compared with (its TX budget and batch).
    pub chain_profile: Option<Profile>,
    /// One agreed scenario to show, with what each side observed.
    pub example: Option<Example>,
    /// The helper the XDP program redirected with; bpf_redirect_xsk()
    /// campaigns run receive scenarios only.
    pub redirect: Redirect,
    /// Frames bpf_redirect_xsk() sent by its fast path and by its
    /// fallback, over the scenarios compared (shrinking not counted).
    pub paths: Paths,
    /// The workers that ran the scenarios.
    pub jobs: usize,
    /// Per scenario compared, in order, a digest of what the kernel showed
    /// (the same campaign run twice, on any number of workers, gives the
    /// same digests).
    #[serde(skip)]
    pub kernel_digests: Vec<u64>,
    /// With `Opts::observe`: per scenario compared, in order, what the
    /// kernel showed.
    #[serde(skip)]
    pub observed: Vec<Observed>,
    /// Binds that found their queue busy, and the time spent waiting for
    /// a free one, over the campaign.
    #[serde(skip)]
    pub bind_waits: BindWaits,
}

/// One scenario and what a kernel showed for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub seed: u64,
    pub scenario: Scenario,
    pub kernel: Vec<Obs>,
}

/// An agreed scenario kept to show the chain whole: the kernel's and the
/// model's observations side by side (the host adds the spec's steps).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Example {
    pub seed: u64,
    pub scenario: Scenario,
    pub kernel: Vec<Obs>,
    pub model: Vec<Obs>,
}

impl Example {
    /// Short enough to read, and showing the transmit path: descriptors
    /// submitted, a sendto, and completions taken.
    fn worth_showing(s: &Scenario) -> bool {
        let at = |f: fn(&Op) -> bool| s.ops.iter().position(f);
        let tx = at(|o| matches!(o, Op::Tx(d) if (2..=6).contains(&d.len())));
        let kick = at(|o| matches!(o, Op::Kick | Op::KickIdle));
        let drain = s.ops.iter().rposition(|o| matches!(o, Op::DrainCq(_)));
        s.ops.len() <= 12 && !s.setup.shared && matches!((tx, kick, drain), (Some(t), Some(k), Some(d)) if t < k && k < d)
    }
}

/// A scenario the kernel and the model agreed on. The seed and the
/// profile give it again (`gen::scenario_for(seed, profile)`).
#[derive(Debug, Clone, Serialize)]
pub struct ChainCandidate {
    pub seed: u64,
    #[serde(skip)]
    pub scenario: Scenario,
}

impl Summary {
    /// The chain's candidates as (seed, scenario) pairs.
    pub fn chain_scenarios(&self) -> Vec<(u64, Scenario)> {
        self.chain.iter().map(|c| (c.seed, c.scenario.clone())).collect()
    }
}

/// The chain's candidates of a campaign that ran elsewhere (a VM guest),
/// from what it printed: its seed, how many scenarios, whether only
/// receive scenarios, the seeds of those that diverged, and its profile.
pub fn chain_candidates(seed: u64, scenarios: u64, receive_only: bool, diverged: &[u64], p: &Profile) -> Vec<ChainCandidate> {
    (0..scenarios)
        .map(|i| scenario_seed_of(seed, i, receive_only))
        .filter(|s| !diverged.contains(s))
        .map(|s| ChainCandidate { seed: s, scenario: gen::scenario_for(s, p) })
        .collect()
}

/// Scenario `i`'s draw from the campaign's seed.
fn draw(seed: u64, i: u64) -> u64 {
    Rng::new(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

/// The seed of scenario `i` of a campaign seeded `seed`. The first one
/// carries the boundary grid (gen_grid.rs), so every campaign sends it.
pub fn scenario_seed(seed: u64, i: u64) -> u64 {
    let s = draw(seed, i);
    if i == 0 {
        gen_grid::with_grid(s)
    } else {
        s
    }
}

/// The seed of scenario `i` of a campaign of receive scenarios only
/// (gen_rx.rs): scenario_seed's draw moved to a receive seed, no grid.
pub fn scenario_seed_rx(seed: u64, i: u64) -> u64 {
    let s = draw(seed, i);
    s - s % 8 + 3
}

/// scenario_seed, or scenario_seed_rx for a receive-only campaign.
pub fn scenario_seed_of(seed: u64, i: u64, receive_only: bool) -> u64 {
    if receive_only {
        scenario_seed_rx(seed, i)
    } else {
        scenario_seed(seed, i)
    }
}

/// Runs `f` on a fresh thread inside a fresh sandbox; the sandbox is gone
/// when this returns, also if `f` panicked.
pub fn in_sandbox<T: Send + 'static>(f: impl FnOnce(&Env) -> io::Result<T> + Send + 'static) -> io::Result<T> {
    in_sandbox_with(Redirect::Map, f)
}

/// The same, the XDP program redirecting with `redirect`.
pub fn in_sandbox_with<T: Send + 'static>(redirect: Redirect, f: impl FnOnce(&Env) -> io::Result<T> + Send + 'static) -> io::Result<T> {
    std::thread::spawn(move || {
        let env = Env::with(redirect)?;
        f(&env)
    })
    .join()
    .map_err(|_| io::Error::other("the campaign thread panicked (its sandbox was removed)"))?
}

/// A campaign against the running kernel's profile, every divergence
/// shrunk.
pub fn run(opts: Opts) -> io::Result<Summary> {
    run_with(opts, Profile::for_release(&release()), usize::MAX)
}

/// A campaign against `profile` (its TX options set on the kernel's
/// sockets, its budget fitted by the generator); the first `shrunk`
/// divergences are shrunk, the rest kept as generated.
pub fn run_with(opts: Opts, profile: Profile, shrunk: usize) -> io::Result<Summary> {
    run_redirect(opts, profile, shrunk, Redirect::Map)
}

/// run_with, the XDP program redirecting with `redirect`; with
/// bpf_redirect_xsk() only receive scenarios, the ones it routes.
///
/// `opts.jobs` workers each make a sandbox of [`LANES`] lanes (lanes.rs)
/// and take the next scenario in turn; the results are put back in
/// scenario order, so the summary (chain candidates, divergences, the
/// example, the progress lines) is the one a single worker gives. The
/// divergences to shrink are shrunk afterwards, one after another, on a
/// sandbox of their own.
pub fn run_redirect(opts: Opts, profile: Profile, shrunk: usize, redirect: Redirect) -> io::Result<Summary> {
    let jobs = opts.workers();
    Dropper::run(DROP_THREADS_PER_JOB * jobs, |dropper| run_lanes(dropper, jobs, &opts, &profile, shrunk, redirect))
}

/// Threads closing sockets, per worker: a worker starts a scenario every
/// few milliseconds, and each of the scenario's one to four sockets waits
/// a grace period as it closes (some milliseconds).
const DROP_THREADS_PER_JOB: usize = 32;

/// A scenario a worker ran, on the kernel and on the model.
struct Ran {
    seed: u64,
    scenario: Scenario,
    compared: Compared,
    paths: Paths,
}

/// What a worker sends back.
enum Msg {
    /// Its sandbox could not be made.
    Setup(io::Error),
    /// Scenario `i`, or the error that stopped it.
    Ran(u64, io::Result<Box<Ran>>),
}

/// The campaign's shared counter and stop flag.
struct Feed<'a> {
    opts: &'a Opts,
    profile: &'a Profile,
    receive_only: bool,
    next: AtomicU64,
    stop: AtomicBool,
}

/// A worker: a sandbox of lanes, then scenarios until there are none left,
/// the campaign stops, or one fails.
fn worker(feed: &Feed, dropper: &Dropper, redirect: Redirect, out: mpsc::Sender<Msg>) {
    let mut lanes = match Lanes::new(LANES, redirect, dropper) {
        Ok(l) => l,
        Err(e) => {
            let _ = out.send(Msg::Setup(e));
            return;
        }
    };
    while !feed.stop.load(Relaxed) {
        let i = feed.next.fetch_add(1, Relaxed);
        if i >= feed.opts.scenarios {
            return;
        }
        let seed = scenario_seed_of(feed.opts.seed, i, feed.receive_only);
        let scenario = gen::scenario_for(seed, feed.profile);
        let r = lanes.compare(&scenario, feed.profile).map(|(compared, paths)| Box::new(Ran { seed, scenario, compared, paths }));
        let failed = r.is_err();
        if out.send(Msg::Ran(i, r)).is_err() || failed {
            return;
        }
    }
}

fn run_lanes(dropper: &Dropper, jobs: usize, opts: &Opts, profile: &Profile, shrunk: usize, redirect: Redirect) -> io::Result<Summary> {
    let kernel = release();
    let start = Instant::now();
    let waits0 = bind_waits();
    let mut sum = Summary {
        kernel: kernel.clone(),
        profile: profile.name.into(),
        seed: opts.seed,
        chain_profile: Some(*profile),
        redirect,
        jobs,
        ..Default::default()
    };
    if opts.progress {
        eprintln!("diff: {jobs} workers, each on a sandbox of {} lanes", LANES);
    }
    let feed = Feed { opts, profile, receive_only: redirect == Redirect::Xsk, next: AtomicU64::new(0), stop: AtomicBool::new(false) };
    let (send, recv) = mpsc::channel();
    std::thread::scope(|sc| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                let (feed, send) = (&feed, send.clone());
                sc.spawn(move || worker(feed, dropper, redirect, send))
            })
            .collect();
        drop(send);
        let merged = merge(&recv, &mut sum, opts, shrunk);
        feed.stop.store(true, Relaxed);
        // The workers' threads end before their sandboxes are gone.
        let joined: Vec<bool> = workers.into_iter().map(|w| w.join().is_err()).collect();
        let panicked = joined.contains(&true);
        match merged {
            Err(e) => Err(e),
            Ok(()) if panicked => Err(io::Error::other("a campaign worker panicked (its sandbox was removed)")),
            Ok(()) => Ok(()),
        }
    })?;
    let n = sum.divergences.len().min(shrunk);
    if n > 0 {
        shrink_all(&mut sum.divergences[..n], dropper, redirect, profile, opts.progress)?;
    }
    for rep in &sum.divergences {
        if let Some(dir) = &opts.out {
            let path = dir.join(format!("diverge-{:016x}.json", rep.seed));
            write_replay(&path, rep)?;
            if opts.progress {
                eprintln!("diff: replay written to {}", path.display());
            }
            sum.replay_files.push(path);
        }
    }
    sum.seconds = start.elapsed().as_secs_f64();
    sum.bind_waits = bind_waits() - waits0;
    if opts.progress {
        eprintln!("diff: {} binds found their queue busy; {:.3} s spent waiting for one", sum.bind_waits.busy, sum.bind_waits.waited.as_secs_f64());
    }
    Ok(sum)
}

/// Takes the workers' results in scenario order into `sum`, until every
/// scenario is in or `opts.stop_after` divergences are.
fn merge(recv: &mpsc::Receiver<Msg>, sum: &mut Summary, opts: &Opts, shrunk: usize) -> io::Result<()> {
    let mut pending = BTreeMap::new();
    let mut at = 0;
    while at < opts.scenarios {
        let Some(r) = pending.remove(&at) else {
            match recv.recv() {
                Ok(Msg::Setup(e)) => return Err(e),
                Ok(Msg::Ran(i, r)) => {
                    pending.insert(i, r);
                }
                Err(_) => return Err(io::Error::other(format!("scenario {at} never came back: every campaign worker stopped"))),
            }
            continue;
        };
        if !take(at, *r?, sum, opts, shrunk) {
            break;
        }
        at += 1;
    }
    Ok(())
}

/// Scenario `i`'s result into `sum`; false once `opts.stop_after`
/// divergences are in.
fn take(i: u64, r: Ran, sum: &mut Summary, opts: &Opts, shrunk: usize) -> bool {
    let Ran { seed, scenario: s, compared: c, paths } = r;
    sum.scenarios += 1;
    sum.operations += s.len() as u64;
    sum.paths += paths;
    sum.kernel_digests.push(digest(&c.kernel));
    if opts.observe {
        sum.observed.push(Observed { seed, scenario: s.clone(), kernel: c.kernel.clone() });
    }
    let Some(m) = c.mismatch else {
        if sum.example.is_none() && !gen_grid::carries_grid(seed) && Example::worth_showing(&s) {
            sum.example = Some(Example { seed, scenario: s.clone(), kernel: c.kernel, model: c.model });
        }
        sum.chain.push(ChainCandidate { seed, scenario: s });
        progress(opts, i, sum);
        return true;
    };
    if opts.progress {
        let what = if sum.divergences.len() < shrunk { "; to be shrunk" } else { "" };
        eprintln!("diff: scenario {i} (seed {seed:#x}) diverges at op {}{what}", m.at);
    }
    let profile = sum.chain_profile.expect("set by run_lanes");
    sum.divergences.push(Replay {
        kernel: sum.kernel.clone(),
        profile: profile.name.into(),
        seed,
        scenario: s,
        mismatch: Some(m),
        batch: profile.tx_batch,
        budget: profile.tx_budget,
        redirect: sum.redirect,
    });
    if opts.stop_after.is_some_and(|n| sum.divergences.len() >= n) {
        return false;
    }
    progress(opts, i, sum);
    true
}

/// Shrinks each of `reps` in turn, on a sandbox of lanes of its own.
fn shrink_all(reps: &mut [Replay], dropper: &Dropper, redirect: Redirect, profile: &Profile, progress: bool) -> io::Result<()> {
    std::thread::scope(|sc| {
        sc.spawn(|| {
            let mut lanes = Lanes::new(LANES, redirect, dropper)?;
            for rep in reps.iter_mut() {
                let m = rep.mismatch.take().expect("a divergence has its mismatch");
                if progress {
                    eprintln!("diff: shrinking scenario seed {:#x} ({} ops)", rep.seed, rep.scenario.ops.len());
                }
                let (small, mm) = shrink::shrink(|c| lanes.compare(c, profile).ok().and_then(|(c, _)| c.mismatch), &rep.scenario, m);
                rep.scenario = small;
                rep.mismatch = Some(mm);
            }
            Ok(())
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the shrinking thread panicked (its sandbox was removed)")))
    })
}

/// A digest of a scenario's kernel observations (of their Debug text):
/// two runs of a campaign saw the same if their digests are equal.
pub fn digest(obs: &[Obs]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    format!("{obs:?}").hash(&mut h);
    h.finish()
}

fn progress(opts: &Opts, i: u64, sum: &Summary) {
    if opts.progress && ((i + 1) % 10 == 0 || i + 1 == opts.scenarios) {
        eprintln!(
            "diff: {}/{} scenarios, {} operations, {} divergences",
            i + 1,
            opts.scenarios,
            sum.operations,
            sum.divergences.len()
        );
    }
}

pub fn write_replay(path: &Path, r: &Replay) -> io::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    std::fs::write(path, serde_json::to_string_pretty(r).map_err(io::Error::other)?)
}

pub fn read_replay(path: &Path) -> io::Result<Replay> {
    let text = std::fs::read_to_string(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| io::Error::other(format!("{}: {e}", path.display())))
}

/// Re-runs a replay file's scenario on the kernel and the model (under
/// Replay::profile).
pub fn replay(path: &Path) -> io::Result<(Replay, Option<Mismatch>)> {
    let r = read_replay(path)?;
    let p = r.profile(&release()).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{}: {e}", path.display())))?;
    if p.tx_batch > 0 && !crate::probe::probe().is_ok_and(|k| k.xmit_batch_supported) {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("{}: the replay was recorded under profile {} (kernel {}), but the running kernel {} has no XDP_GENERIC_XMIT_BATCH", path.display(), r.profile, r.kernel, release()),
        ));
    }
    let s = r.scenario.clone();
    let m = in_sandbox_with(r.redirect, move |env| check(env, &s, &p))?;
    Ok((r, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_keeps_the_batch_profile() {
        let s = crate::gen::scenario(1);
        let r = Replay {
            kernel: "k".into(),
            profile: "6.12+batch".into(),
            seed: 1,
            scenario: s,
            mismatch: None,
            batch: 16,
            budget: 64,
            redirect: Redirect::Map,
        };
        let back: Replay = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back.profile("6.18.44"), Ok(Profile::batch(16, 64)));
        // Files written before the batch fields: budget 32.
        let mut v = serde_json::to_value(&r).unwrap();
        v.as_object_mut().unwrap().retain(|k, _| k != "batch" && k != "budget");
        let old: Replay = serde_json::from_value(v).unwrap();
        assert_eq!((old.batch, old.budget), (0, 32));
    }

    #[test]
    fn a_receive_only_campaign_draws_receive_scenarios() {
        let p = Profile::for_release("6.12");
        for i in 0..64 {
            let s = scenario_seed_rx(7, i);
            assert!(crate::gen_rx::carries_rx(s) && !gen_grid::carries_grid(s), "{s:#x}");
            assert!(gen::scenario_for(s, &p).setup.rx_socket);
            assert_eq!(scenario_seed_of(7, i, true), s);
            assert_eq!(scenario_seed_of(7, i, false), scenario_seed(7, i));
        }
        let c = chain_candidates(7, 4, true, &[scenario_seed_rx(7, 1)], &p);
        assert_eq!(c.iter().map(|c| c.seed).collect::<Vec<_>>(), [0, 2, 3].map(|i| scenario_seed_rx(7, i)));
    }

    #[test]
    fn replay_refuses_another_or_an_unknown_profile() {
        let mut r = Replay { kernel: "6.12.117".into(), profile: "6.12".into(), seed: 1, scenario: crate::gen::scenario(1), mismatch: None, batch: 0, budget: 32, redirect: Redirect::Map };
        assert_eq!(r.profile("6.12.117").map(|p| p.name), Ok("6.12"));
        let e = r.profile("6.18.44").unwrap_err();
        assert!(e.contains("profile 6.12 (kernel 6.12.117)") && e.contains("6.18.44 is profile 6.18"), "{e}");
        r.profile = "6.99-custom".into();
        let e = r.profile("6.12.117").unwrap_err();
        assert!(e.contains("'6.99-custom'") && e.contains("6.12, 6.18, 6.12+batch"), "{e}");
    }
}
