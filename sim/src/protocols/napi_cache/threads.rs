//! The real-thread runner: one thread per CPU and a receiver. Each CPU
//! thread runs its NAPI polls (net_rx_action(): the defer list flushed,
//! frames built on heads of the cache, some consumed in the poll, the
//! rest handed to a socket; napi_complete()), answers the IPI that asks
//! it to flush, and frees its transmitted skbs outside the poll as
//! netpoll does (kfree_skb, budget 0); CPU 1 is also vhost-net's worker,
//! handing tun batches (tun_sendmsg, tun_xdp_one for each frame,
//! XDP_PASS or XDP_DROP, then its end). The receiver is a task on the
//! last CPU reading the socket: it frees each skb with
//! skb_attempt_defer_free(), so skbs allocated on another CPU go onto
//! that CPU's defer list (remote frees), and its own ones into its cache
//! with BH off, against that CPU's softirq. A run is rounds of fresh
//! systems; the seed seeds each thread's choices, not the interleaving.
//!
//! What it checks as the threads run: every cache access is its CPU's
//! with BH off (the lock's assertion, kept by the cache), every skb a
//! flush finds is its CPU's, the slab never frees a free head. Then,
//! after the joins, every invariant at that quiescent point, the drain
//! and the quiescence check, as the scheduler does them.

use std::collections::VecDeque;
use std::sync::Mutex;

use ringlab_model::rng::Rng;
use serde::Serialize;

use super::config::NapiCacheConfig;
use super::net::{Net, TunPath};
use super::system::NapiSkbCache;
use crate::harness::{settle, Crew, Failure, Stop};
use ringlab_ring::sync::Ordering::Relaxed;
use ringlab_ring::sync::{thread, Arc, AtomicU32};

/// Tries in a row without progress after which a thread gives up.
const STUCK: u64 = 10_000_000;

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    /// Fresh systems run, NFrames frames each.
    pub rounds: u64,
    pub frames: u64,
    /// Frames delivered as skbs, dropped.
    pub rcvd: u64,
    pub dropped: u64,
    /// NAPI polls, tun batches.
    pub polls: u64,
    pub batches: u64,
    /// skbs the receiver freed, those deferred to another CPU's list.
    pub freed: u64,
    pub deferred: u64,
    /// Defer lists flushed with skbs on them, IPIs sent.
    pub flushes: u64,
    pub kicks: u64,
    /// Steps of the drains after the joins (each checked).
    pub drain_steps: u64,
}

/// The socket the CPUs deliver to and the receiver reads.
#[derive(Default)]
struct Socket {
    q: Mutex<VecDeque<u8>>,
    /// CPU threads that delivered their last frame.
    done: AtomicU32,
}

impl Socket {
    fn push(&self, s: u8) {
        self.q.lock().unwrap_or_else(|e| e.into_inner()).push_back(s);
    }
    fn pop(&self) -> Option<u8> {
        self.q.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
    }
}

/// One NAPI poll on CPU c: a few frames built, each consumed in the poll,
/// kept for a netpoll free or delivered to the socket.
fn poll(net: &Net, c: u8, sock: &Socket, tx: &mut Vec<u8>, fail: bool, rng: &mut Rng) {
    net.net_rx_action(c);
    for _ in 0..1 + rng.below(4) {
        if net.frames.take(1) == 0 {
            break;
        }
        let Some(s) = net.napi_build_skb(c, fail && rng.chance(1, 8)) else { continue };
        match rng.below(8) {
            0 => net.napi_consume_skb(net.cpu(c).here(), c, s),
            1 => tx.push(s),
            _ => sock.push(s),
        }
    }
    net.napi_complete(c);
}

/// The transmitted skbs freed outside the poll (netpoll): with budget 0,
/// kfree_skb(); virtio_net's bug passed a budget, so napi_consume_skb()
/// touched the cache from task context.
fn netpoll_free(net: &Net, c: u8, tx: &mut Vec<u8>) {
    for s in tx.drain(..) {
        if ringlab_mutant::on("mutant-napi-virtio-cache") {
            net.napi_consume_skb(net.cpu(c).here(), c, s);
        } else {
            net.kfree_skb(s);
        }
    }
}

/// One tun batch on CPU c: every frame through XDP, most passed.
fn batch(net: &Net, c: u8, sock: &Socket, fail: bool, rng: &mut Rng) {
    let bulk_fail = fail && net.shape.path != TunPath::Slab && rng.chance(1, 8);
    net.tun_sendmsg(c, bulk_fail);
    while net.cpu(c).tun.pending() > 0 {
        let pass = rng.below(4) != 0;
        let f = fail && pass && net.shape.path == TunPath::Slab && rng.chance(1, 8);
        if let Some(s) = net.tun_xdp_one(c, pass, f) {
            sock.push(s);
        }
    }
    net.tun_sendmsg_end(c);
}

/// CPU c: polls, IPIs answered, netpoll frees, and on CPU 1 tun batches,
/// until every frame arrived; then only IPIs until the receiver is done.
fn cpu(net: Arc<Net>, c: u8, sock: Arc<Socket>, stop: Stop, fail: bool, seed: u64) -> Result<(u64, u64), String> {
    let mut rng = Rng::new(seed ^ (0xc0_0000 + u64::from(c)));
    let (mut polls, mut batches) = (0, 0);
    let mut tx = Vec::new();
    let mut delivered = false;
    let mut idle = 0u64;
    loop {
        if net.cpu(c).kicked() {
            net.net_rx_action(c);
            net.napi_complete(c);
            idle = 0;
        }
        if net.frames.left() > 0 {
            if c == 1 && rng.chance(1, 2) {
                batch(&net, c, &sock, fail, &mut rng);
                batches += 1;
            } else {
                poll(&net, c, &sock, &mut tx, fail, &mut rng);
                polls += 1;
            }
            netpoll_free(&net, c, &mut tx);
        } else if !delivered {
            delivered = true;
            sock.done.fetch_add(1, Relaxed);
        } else if stop.is_set() {
            return Ok((polls, batches));
        } else {
            idle += 1;
            if idle > STUCK {
                return Err(format!("CPU {c}: the receiver never finished"));
            }
        }
        thread::yield_now();
    }
}

/// The receiver, a task on CPU r: each skb of the socket freed with
/// skb_attempt_defer_free(), until every CPU delivered its last frame
/// and the socket is empty.
fn receiver(net: Arc<Net>, r: u8, sock: Arc<Socket>) -> Result<(u64, u64), String> {
    let (mut freed, mut deferred) = (0, 0);
    let mut idle = 0u64;
    loop {
        match sock.pop() {
            Some(s) => {
                let skb = net.skbs.get(s);
                if skb.users() != 1 || skb.held() != 1 {
                    return Err(format!("skb {s} reached the socket with users {}, held {}", skb.users(), skb.held()));
                }
                if net.skb_attempt_defer_free(r, s) {
                    deferred += 1;
                }
                freed += 1;
                idle = 0;
            }
            None if sock.done.load(Relaxed) == u32::from(net.shape.n_cpu) => return Ok((freed, deferred)),
            None => {
                idle += 1;
                if idle > STUCK {
                    return Err("the CPUs never delivered every frame".to_string());
                }
                thread::yield_now();
            }
        }
    }
}

/// One fresh system: the threads, the joins, then every invariant at the
/// quiescent point and the drain.
fn round(cfg: &NapiCacheConfig, k: u64, r: &mut Report) -> Result<(), Failure> {
    let seed = cfg.seed.wrapping_add(k);
    let sys = NapiSkbCache::new(cfg.clone().seed(seed)).map_err(|m| Failure::at_start(seed, m))?;
    let net = sys.net.clone();
    let sock = Arc::new(Socket::default());
    let fail = cfg.slab_fail();
    let mut crew = Crew::new();
    let stop = crew.stop();
    let cpus: Vec<_> = (1..=net.shape.n_cpu)
        .map(|c| {
            let (net, sock, stop) = (net.clone(), sock.clone(), stop.clone());
            crew.spawn(format!("cpu{c}"), move || cpu(net, c, sock, stop, fail, seed))
        })
        .collect();
    let rcv = {
        let (net, sock) = (net.clone(), sock.clone());
        let last = net.shape.n_cpu;
        crew.spawn("receiver", move || receiver(net, last, sock))
    };
    let got = crew.join(rcv);
    stop.set();
    let did: Vec<_> = cpus.into_iter().map(|w| crew.join(w)).collect();
    crew.finish(seed)?;
    let Some((freed, deferred)) = got else {
        return Err(Failure::at_start(seed, "the receiver handed nothing back"));
    };
    for (polls, batches) in did.into_iter().flatten() {
        r.polls += polls;
        r.batches += batches;
    }
    r.rounds += 1;
    r.frames += u64::from(net.shape.n_frames);
    r.rcvd += u64::from(net.frames.rcvd());
    r.dropped += u64::from(net.frames.dropped());
    r.freed += freed;
    r.deferred += deferred;
    r.flushes += u64::from(net.counters.flushes.load(Relaxed));
    r.kicks += u64::from(net.counters.kicks.load(Relaxed));
    let s = settle(sys)?;
    r.drain_steps += s.steps();
    Ok(())
}

/// `rounds` fresh systems on real threads.
pub fn run(cfg: NapiCacheConfig, rounds: u64) -> Result<Report, Failure> {
    let seed = cfg.seed;
    cfg.validate().map_err(|m| Failure::at_start(seed, m))?;
    if cfg.shape().n_cpu < 2 {
        return Err(Failure::at_start(seed, "threads need two CPUs at least (NCpu), one to free the other's skbs"));
    }
    if rounds == 0 {
        return Err(Failure::at_start(seed, "threads run at least one round"));
    }
    let mut r = Report { seed, ..Report::default() };
    for k in 0..rounds {
        round(&cfg, k, &mut r).map_err(|mut f| {
            f.message = format!("round {k}: {}", f.message);
            f
        })?;
    }
    Ok(r)
}
