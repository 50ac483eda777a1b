//! The real-thread runner: one binding in one mode; an RX thread (the
//! NIC's softirq) queueing frags on the sockets; user threads receiving
//! from any socket and returning their tokens (xarray mode through the
//! socket each came from, array mode through any socket of the binding,
//! as applications do), some closing a socket mid-run; an unbind racing
//! them all; the harness joins them. What it checks: the simulator's
//! assertions as it runs (the page pool's), then, at the quiescent point
//! after the joins, every spec invariant on the projection (every
//! reference accounted, no underflow, every net_iov in the pool or
//! referenced), then a drain (close all, unbind) after which every
//! net_iov is back in its pool.

use std::collections::BTreeMap;

use ringlab_model::devmem::{Bst, Mode, Sock, Tok};

use super::binding::Binding;
use super::config::DevmemConfig;
use super::cost::Cost;
use super::dontneed::{DmabufToken, DontneedError};
use super::sock::TcpSock;
use super::system::Devmem;
use crate::harness::{Crew, Failure, Sched, Stop};
use ringlab_model::rng::Rng;
use ringlab_ring::sync::Ordering::Relaxed;
use ringlab_ring::sync::{thread, Arc};
use std::sync::atomic::AtomicU64;

/// What a run did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub seed: u64,
    pub mode: &'static str,
    pub users: usize,
    pub rounds: u64,
    /// Sockets closed while the threads ran.
    pub closed: usize,
    /// The user round after which the binding was unbound, if it was
    /// while the threads ran.
    pub unbound_after: Option<u64>,
    /// Tokens the application still held at the quiescent point.
    pub held: u64,
    /// The most tokens one SO_DEVMEM_DONTNEED examined.
    pub max_work: u32,
    /// Steps of the drain (each checked).
    pub drain_steps: u64,
    pub cost: Cost,
}

/// A token a user thread holds: the socket it came from and its value.
type Held = (usize, Tok);

/// What a user thread hands back.
struct User {
    held: Vec<Held>,
    cost: Cost,
    max_work: u32,
    closed: bool,
    stuck: bool,
}

struct Shared {
    binding: Arc<Binding>,
    socks: Vec<Arc<TcpSock>>,
    stop: Stop,
    /// User rounds done, all threads.
    progress: AtomicU64,
    limit: u32,
}

fn rx_thread(sh: Arc<Shared>, seed: u64) -> Cost {
    let mut rng = Rng::new(seed ^ 0x5f1e_0001);
    let mut cost = Cost::default();
    while !sh.stop.is_set() {
        let k = rng.below(sh.socks.len() as u32) as usize;
        match sh.binding.alloc(None) {
            Some(n) => match sh.socks[k].queue_frag(n) {
                Ok(()) => cost.frags += 1,
                Err(skb) => {
                    sh.binding.put(skb.niov, 1, &mut cost);
                }
            },
            None => thread::yield_now(),
        }
    }
    cost
}

/// Returns `give` through socket `k` in one call; the tokens the
/// application still holds afterwards.
fn give_back(sh: &Shared, k: usize, give: Vec<Held>, mode: Mode, u: &mut User) -> Vec<Held> {
    let tokens: Vec<DmabufToken> = give
        .iter()
        .map(|&(_, t)| DmabufToken {
            token_start: t,
            token_count: 1,
        })
        .collect();
    match sh.socks[k].devmem_dontneed(&tokens, sh.limit, &mut u.cost) {
        Ok(r) => {
            u.max_work = u.max_work.max(r.examined);
            // Of what the call examined, what was not freed was void:
            // released by close (xarray) or unbind's cleanup (array). What
            // MAX_DONTNEED_FRAGS left unexamined is still held.
            give.into_iter().skip(r.examined as usize).collect()
        }
        // Xarray: close released them. Array: keep them for another socket.
        Err(DontneedError::Closed) if mode == Mode::Array => give,
        Err(_) => Vec::new(),
    }
}

/// Rounds in a row in which no user thread did anything after which a
/// user thread gives up.
const STUCK: u64 = 2_000_000;

/// Nothing more can happen for a user thread: every socket is closed (in
/// array mode its tokens wait for unbind), or it holds nothing and the
/// binding is unbound and (xarray mode) the open sockets' queues are empty
/// (array mode: unbound, nothing more is handed out).
fn finished(sh: &Shared, mode: Mode, holding: bool) -> bool {
    let open: Vec<&Arc<TcpSock>> = sh.socks.iter().filter(|s| s.is_open()).collect();
    open.is_empty()
        || (!holding
            && !sh.binding.is_bound()
            && (mode == Mode::Array || open.iter().all(|s| s.skbs().is_empty())))
}

/// Receives and releases until the user threads have made `total` of
/// them together (so that none stops while the others need the net_iovs
/// its tokens hold), closing socket `me` once they have made `close_at`.
fn user_thread(sh: Arc<Shared>, seed: u64, me: usize, total: u64, close_at: Option<u64>) -> User {
    let mut rng = Rng::new(seed ^ (0x05e7_0000 + me as u64));
    let mode = sh.binding.mode();
    let n = sh.socks.len() as u32;
    let most = sh.limit.clamp(1, 4);
    let mut u = User {
        held: Vec::new(),
        cost: Cost::default(),
        max_work: 0,
        closed: false,
        stuck: false,
    };
    let mut close_at = close_at.filter(|_| me < sh.socks.len());
    let (mut seen, mut idle) = (0, 0);
    loop {
        let now = sh.progress.load(Relaxed);
        if now >= total {
            break;
        }
        if close_at.is_some_and(|at| now >= at) {
            close_at = None;
            u.closed = sh.socks[me].close(&mut u.cost).is_ok();
        }
        let did = match rng.below(10) {
            0..=5 => {
                let k = rng.below(n) as usize;
                match sh.socks[k].recvmsg_dmabuf(true, &mut u.cost) {
                    Ok(p) => {
                        u.held.push((k, p.token));
                        true
                    }
                    Err(_) => false,
                }
            }
            _ if !u.held.is_empty() => {
                let before = u.held.len();
                let take = (rng.one_to(most) as usize).min(before);
                let mut give: Vec<Held> = (0..take)
                    .map(|_| u.held.swap_remove(rng.below(u.held.len() as u32) as usize))
                    .collect();
                let mut keep = Vec::new();
                while let Some(&(k, _)) = give.first() {
                    let (mine, rest): (Vec<Held>, Vec<Held>) =
                        give.into_iter().partition(|h| h.0 == k);
                    give = rest;
                    let through = match mode {
                        Mode::Xarray => k,
                        Mode::Array => rng.below(n) as usize,
                    };
                    keep.extend(give_back(&sh, through, mine, mode, &mut u));
                }
                u.held.extend(keep);
                u.held.len() < before
            }
            _ => false,
        };
        if did {
            idle = 0;
            sh.progress.fetch_add(1, Relaxed);
        } else if finished(&sh, mode, !u.held.is_empty()) {
            break;
        } else {
            if now != seen {
                (seen, idle) = (now, 0);
            }
            idle += 1;
            if idle > STUCK {
                u.stuck = true;
                break;
            }
            thread::yield_now();
        }
    }
    u
}

fn unbind_thread(sh: Arc<Shared>, at: Option<u64>) -> (Cost, Option<u64>) {
    let mut cost = Cost::default();
    let Some(at) = at else { return (cost, None) };
    loop {
        let done = sh.progress.load(Relaxed);
        if done >= at || sh.stop.is_set() {
            sh.binding
                .unbind(&sh.socks, &mut cost)
                .expect("only this thread unbinds");
            return (cost, Some(done));
        }
        thread::yield_now();
    }
}

/// Run `cfg` (one binding, one mode) with a user thread per socket (at
/// least two), making `rounds` receives or releases each on average; then
/// check at the quiescent point and drain.
pub fn run(cfg: DevmemConfig, rounds: u64) -> Result<Report, Failure> {
    let seed = cfg.seed;
    let fail = |m: String| Failure::at_start(seed, m);
    if cfg.bindings() != 1 || cfg.spec.modes.len() != 1 {
        return Err(fail("threads run one binding in one mode".into()));
    }
    let mode = cfg.spec.modes[0];
    let mut sys = Devmem::new(cfg).map_err(fail)?;
    sys.bind_rx(0, mode).map_err(|d| fail(d.to_string()))?;
    let mut crew = Crew::new();
    let sh = Arc::new(Shared {
        binding: sys.bindings[0].clone(),
        socks: sys.socks.clone(),
        stop: crew.stop(),
        progress: AtomicU64::new(0),
        limit: sys.cfg.spec.dontneed_limit,
    });
    let users = sys.socks.len().max(2);
    let mut rng = Rng::new(seed);
    let total = rounds * users as u64;
    let closes: Vec<Option<u64>> = (0..users)
        .map(|_| {
            rng.chance(1, 2)
                .then(|| total / 2 + rng.below((total / 2).max(1) as u32) as u64)
        })
        .collect();
    let unbind_at = rng
        .chance(2, 3)
        .then(|| rng.below(total.max(1) as u32) as u64);

    let rx = {
        let sh = sh.clone();
        crew.spawn("rx", move || Ok(rx_thread(sh, seed)))
    };
    let ub = {
        let sh = sh.clone();
        crew.spawn("unbind", move || Ok(unbind_thread(sh, unbind_at)))
    };
    let handles: Vec<_> = closes
        .iter()
        .enumerate()
        .map(|(me, &close_at)| {
            let sh = sh.clone();
            crew.spawn(format!("user {me}"), move || {
                Ok(user_thread(sh, seed, me, total, close_at))
            })
        })
        .collect();
    let done: Vec<Option<User>> = handles.into_iter().map(|h| crew.join(h)).collect();
    sh.stop.set();
    let (rx, ub) = (crew.join(rx), crew.join(ub));
    crew.finish(seed)?;
    let (Some(done), Some(rx), Some(ub)) = (done.into_iter().collect::<Option<Vec<User>>>(), rx, ub) else {
        return Err(fail("a thread handed nothing back".into()));
    };
    let (rx_cost, (ub_cost, unbound_after)) = (rx, ub);
    sys.cost += rx_cost;
    sys.cost += ub_cost;

    // The quiescent point: what the application still holds, less what
    // close (xarray) or unbind (array) made void.
    let dead = sh.binding.state() == Bst::Dead;
    let mut held: BTreeMap<(usize, Tok), u32> = BTreeMap::new();
    let mut report = Report {
        seed,
        mode: mode.id(),
        users,
        rounds,
        closed: 0,
        unbound_after,
        held: 0,
        max_work: 0,
        drain_steps: 0,
        cost: Cost::default(),
    };
    if let Some(i) = done.iter().position(|u| u.stuck) {
        return Err(fail(format!(
            "user {i}: no user did anything for {STUCK} of its rounds"
        )));
    }
    for u in &done {
        sys.cost += u.cost;
        report.max_work = report.max_work.max(u.max_work);
        report.closed += usize::from(u.closed);
        for &(k, t) in &u.held {
            let void = match mode {
                Mode::Xarray => !sh.socks[k].is_open(),
                Mode::Array => dead,
            };
            if !void {
                *held.entry((k, t)).or_default() += 1;
            }
        }
    }
    let socks: Vec<Sock> = sys.cfg.spec.socks();
    for (&(k, t), &c) in &held {
        for _ in 0..c {
            sys.app.received(socks[k], t, true);
        }
        report.held += u64::from(c);
    }
    sys.work = report.max_work;
    // The harness checks the quiescent point, then (after the pool's own
    // check here) drains.
    let mut sched = Sched::over(sys);
    sched.check_now("after the threads")?;
    let b = &sh.binding;
    let pooled = b.pool.pooled();
    for (n, niov) in b.niovs.iter().enumerate() {
        let (p, _) = niov.counts();
        if (pooled[n] == 1) == (p > 0) {
            return Err(fail(format!(
                "after the threads: net_iov {n}: in the pool {}x with pp_ref_count {p}",
                pooled[n]
            )));
        }
    }
    drop(sh);
    sched.drain()?;
    report.drain_steps = sched.steps();
    report.cost = sched.sys.cost;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(mode: Mode, seed: u64) -> DevmemConfig {
        DevmemConfig::new(&[mode], 1, 3, 8, 2)
            .limit(4, 8)
            .seed(seed)
    }

    #[test]
    fn threads_account_every_reference_in_both_modes() {
        for mode in Mode::ALL {
            for seed in 0..4 {
                let r =
                    run(cfg(mode, seed), 3_000).unwrap_or_else(|f| panic!("{}: {f}", mode.id()));
                assert!(r.cost.tokens > 100, "{r:?}");
                assert!(r.cost.released > 0, "{r:?}");
                assert!(r.max_work <= 4);
            }
        }
    }
}
