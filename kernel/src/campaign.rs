//! A campaign: N scenarios from one seed on one sandbox, each compared
//! with the model; each divergence shrunk and saved as a replay file. Runs
//! on a thread of its own, the one that enters the namespace.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use ringlab_model::afxdp::{Obs, Op, Profile, Scenario};
use ringlab_model::rng::Rng;

use crate::bpf::{Paths, Redirect};
use crate::compare::{check, compare, Mismatch};
use crate::env::{release, Env};
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
pub fn run_redirect(opts: Opts, profile: Profile, shrunk: usize, redirect: Redirect) -> io::Result<Summary> {
    in_sandbox_with(redirect, move |env| run_in(env, &opts, &profile, shrunk))
}

/// A campaign in `env`, receive scenarios only where its program
/// redirects with bpf_redirect_xsk().
pub fn run_in(env: &Env, opts: &Opts, profile: &Profile, shrunk: usize) -> io::Result<Summary> {
    let kernel = release();
    let profile = *profile;
    let start = Instant::now();
    let mut sum = Summary {
        kernel: kernel.clone(),
        profile: profile.name.into(),
        seed: opts.seed,
        chain_profile: Some(profile),
        redirect: env.redirect,
        ..Default::default()
    };
    let receive_only = env.redirect == Redirect::Xsk;
    for i in 0..opts.scenarios {
        let seed = scenario_seed_of(opts.seed, i, receive_only);
        let s = gen::scenario_for(seed, &profile);
        sum.scenarios += 1;
        sum.operations += s.len() as u64;
        let before = env.prog.paths()?;
        let c = compare(env, &s, &profile)?;
        sum.paths += env.prog.paths()? - before;
        let Some(m) = c.mismatch else {
            if sum.example.is_none() && !gen_grid::carries_grid(seed) && Example::worth_showing(&s) {
                sum.example = Some(Example { seed, scenario: s.clone(), kernel: c.kernel, model: c.model });
            }
            sum.chain.push(ChainCandidate { seed, scenario: s });
            progress(opts, i, &sum);
            continue;
        };
        let shrinking = sum.divergences.len() < shrunk;
        if opts.progress {
            let what = if shrinking { "; shrinking" } else { "" };
            eprintln!("diff: scenario {i} (seed {seed:#x}) diverges at op {}{what}", m.at);
        }
        let (small, mm) = if shrinking { shrink::shrink(env, &s, &profile, m) } else { (s, m) };
        let rep = Replay {
            kernel: kernel.clone(),
            profile: profile.name.into(),
            seed,
            scenario: small,
            mismatch: Some(mm),
            batch: profile.tx_batch,
            budget: profile.tx_budget,
            redirect: env.redirect,
        };
        if let Some(dir) = &opts.out {
            let path = dir.join(format!("diverge-{seed:016x}.json"));
            write_replay(&path, &rep)?;
            if opts.progress {
                eprintln!("diff: replay written to {}", path.display());
            }
            sum.replay_files.push(path);
        }
        sum.divergences.push(rep);
        if opts.stop_after.is_some_and(|n| sum.divergences.len() >= n) {
            break;
        }
        progress(opts, i, &sum);
    }
    sum.seconds = start.elapsed().as_secs_f64();
    Ok(sum)
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
