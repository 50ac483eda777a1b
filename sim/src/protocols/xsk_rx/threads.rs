//! The real-thread runner: a thread for each CPU, taking the queue's
//! NAPI poll and running its packets (driver path) or receiving under the
//! rx lock (generic path), and a thread for the application, filling the
//! fill ring, reading the rx rings, binding late sockets, putting them in
//! the XSKMAP and closing sockets at packets its plan names. Every thread
//! takes the spec's actions through [`XskRx::step`], on a view of its own
//! (the shared objects, its own receive and counts), so the names stay
//! the spec's; a step not enabled is tried again, as a spinning CPU does.
//!
//! synchronize_net() is a grace period: a CPU is inside a read side over
//! each poll or each generic receive; XskReleaseDone takes the write side
//! once before it steps. The wire brings a packet only once the
//! application has gone round its loop as many times, so that the CPUs do
//! not run every packet before it has filled a buffer; a poll the wire
//! keeps waiting ends.
//!
//! What it checks as the threads run, where a thread owns what it reads:
//! a receive goes to the socket its key names, never a freed one
//! (DeliveredToKey, NoUseAfterFree); a poll takes at most its budget
//! (NapiBudget) and leaves its CPU's flush list and slot empty
//! (FlushedAtPollEnd); the free list, read by its one user, holds no
//! buffer twice nor one the application holds; each descriptor the
//! application reads hands it one buffer it did not hold, filled by a
//! packet that ended on an rx ring (BufConservation, PktAccounted).
//! Then, after the joins, every invariant at that quiescent point, the
//! drain and the quiescence check, as the scheduler does them. A run is
//! rounds of MaxPkts packets, each on a fresh system; the seed seeds each
//! thread's choices, not the interleaving. A thread yields its core after
//! one step in three, so that a window between two steps (a fill-ring
//! entry peeked, not yet taken) is open while the others run, on one core
//! as on many.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{RwLock, RwLockReadGuard};

use ringlab_model::rng::Rng;
use ringlab_model::xsk_rx::{Action, Config, Cpu, Fate, RxPath, Sock, Sst, Stage, Verdict};
use serde::Serialize;

use super::config::XskRxConfig;
use super::cost::Cost;
use super::cpu::Receive;
use super::system::XskRx;
use crate::harness::{preempt, settle, Crew, Failure, Stop};
use ringlab_ring::sync::{thread, Arc};

/// Tries in a row without a step after which a CPU gives up.
const STUCK: u64 = 10_000_000;
/// A thread yields its core after one step in PREEMPT.
const PREEMPT: u32 = 3;

/// What a run did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    pub path: &'static str,
    pub redirect: &'static str,
    pub cpus: usize,
    /// Fresh systems run, MaxPkts packets each.
    pub rounds: u64,
    /// Packets that arrived, all rounds.
    pub packets: u64,
    /// Steps of each spec action the threads took.
    pub actions: BTreeMap<&'static str, u64>,
    /// Checks the threads made as they ran.
    pub thread_checks: u64,
    /// Steps of the drains (each checked).
    pub drain_steps: u64,
    /// Checks of every invariant: at each round's joins, after each drain
    /// step.
    pub checks: u64,
    /// Packets by fate, all rounds.
    pub fates: BTreeMap<&'static str, u64>,
    pub cost: Cost,
}

impl Report {
    /// Packets that ended on an rx ring.
    pub fn received(&self) -> u64 {
        self.fates.get(Fate::Rx.id()).copied().unwrap_or(0)
    }
}

/// What the threads share besides the system: synchronize_net() (read
/// sides are the CPUs' polls and generic receives, a grace period the
/// write side taken once) and the wire.
#[derive(Debug, Default)]
struct Shared {
    rcu: RwLock<()>,
    /// Packets the wire has brought: the application's rounds.
    wire: AtomicU32,
}

impl Shared {
    fn read(&self) -> RwLockReadGuard<'_, ()> {
        self.rcu.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Every read side that began before this call has ended.
    fn synchronize(&self) {
        drop(self.rcu.write().unwrap_or_else(|e| e.into_inner()));
    }

    /// A packet is on the wire beyond the `arrived` that have come.
    fn brought(&self, arrived: u32) -> bool {
        self.wire.load(Ordering::Acquire) > arrived
    }
}

/// A thread's view of `sys`: the same objects, a receive and counts of
/// its own.
fn view(sys: &XskRx) -> XskRx {
    XskRx {
        cfg: sys.cfg.clone(),
        pool: sys.pool.clone(),
        socks: sys.socks.clone(),
        map: sys.map.clone(),
        rxq: sys.rxq.clone(),
        cpus: sys.cpus.clone(),
        app: sys.app.clone(),
        recv: vec![Receive::IDLE; sys.recv.len()],
        pend: vec![Vec::new(); sys.pend.len()],
        cost: Cost::default(),
        drain_steps: 0,
    }
}

/// One thread's side of the system and what it counted.
#[derive(Debug)]
struct Actor {
    sys: XskRx,
    actions: BTreeMap<&'static str, u64>,
    checks: u64,
    /// Tries in a row that found nothing enabled.
    idle: u64,
    /// Seeds the preemption points.
    preempt: Rng,
    /// Set when another thread has failed (or the run is over).
    stop: Stop,
}

impl Actor {
    fn new(sys: XskRx, seed: u64, stop: Stop) -> Actor {
        Actor {
            sys,
            stop,
            actions: BTreeMap::new(),
            checks: 0,
            idle: 0,
            preempt: Rng::new(seed ^ 0x9e_e3e7),
        }
    }

    /// Action `a` if it is enabled now.
    fn step(&mut self, a: Action) -> bool {
        let ok = self.sys.step(&a).is_ok();
        if ok {
            self.took(a);
        }
        ok
    }

    /// `a`, which must be enabled now.
    fn must(&mut self, a: Action) -> Result<(), String> {
        self.sys
            .step(&a)
            .map_err(|d| format!("{a} not enabled: {d}"))?;
        self.took(a);
        Ok(())
    }

    /// `a` was taken: counted, then a preemption point.
    fn took(&mut self, a: Action) {
        *self.actions.entry(a.name()).or_default() += 1;
        self.idle = 0;
        preempt(&mut self.preempt, PREEMPT);
    }

    /// Nothing was enabled: yield, or give up after STUCK tries in a row
    /// or once another thread has failed.
    fn wait(&mut self, at: impl FnOnce() -> String) -> Result<(), String> {
        if self.stop.is_set() {
            return Err(format!("stopped {}: another thread failed", at()));
        }
        self.idle += 1;
        if self.idle > STUCK {
            return Err(format!("stuck {STUCK} tries {}", at()));
        }
        thread::yield_now();
        Ok(())
    }

    /// A check made as the thread runs.
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
        self.checks += 1;
        if ok {
            Ok(())
        } else {
            Err(what())
        }
    }

    /// The free list and the application's buffers, by the free list's
    /// one user (the poller, or the holder of pool->rx_lock): no buffer
    /// twice, none in both.
    fn check_pool(&mut self) -> Result<(), String> {
        let free = self.sys.pool.free_list();
        let held = self.sys.app.held();
        let mut seen = BTreeSet::new();
        let bad = free.iter().find(|b| !seen.insert(**b) || held.contains(b)).copied();
        self.check(bad.is_none(), || {
            format!("BufConservation: buffer {} twice on the free list {free:?} or also the application's", bad.unwrap_or(0))
        })
    }
}

/// What the program does with the next packet, drawn as the scheduler
/// weighs it: redirected six times in eight when the config has it.
fn program(spec: &Config, c: Cpu, rng: &mut Rng) -> Action {
    let w: Vec<u32> = spec
        .verdicts
        .iter()
        .map(|&v| if v == Verdict::Redirect { 6 } else { 1 })
        .collect();
    Action::XdpRun {
        c,
        v: spec.verdicts[rng.weighted(&w)],
        k: rng.one_to(u32::from(spec.n_sockets)) as Sock,
        len: rng.one_to(u32::from(spec.max_len)) as u8,
    }
}

/// XdpRun on CPU c; true if a packet arrived. A receive it starts goes
/// to the socket its key names, which is not freed.
fn run_packet(a: &mut Actor, c: Cpu, rng: &mut Rng) -> Result<bool, String> {
    let x = program(&a.sys.cfg.spec, c, rng);
    if !a.step(x) {
        return Ok(false);
    }
    check_receive(a, c)?;
    Ok(true)
}

/// The receive CPU c has begun goes to the socket its key named, which
/// is not freed.
fn check_receive(a: &mut Actor, c: Cpu) -> Result<(), String> {
    let r = a.sys.recv[usize::from(c)].clone();
    if r.stage != Stage::Idle {
        a.check(r.sock == r.tgt, || {
            format!("DeliveredToKey: CPU {c} receives packet {} into socket {}, its XSKMAP entry named {}", r.pkt, r.sock, r.tgt)
        })?;
        let st = a.sys.socks[usize::from(r.sock) - 1].state();
        a.check(st != Sst::Freed, || {
            format!("NoUseAfterFree: CPU {c} receives packet {} into freed socket {}", r.pkt, r.sock)
        })?;
    }
    Ok(())
}

/// xsk_rcv_batch() of every packet CPU c keeps, each to its end and
/// checked as run_packet() checks a receive; true if there was one.
fn receive_batch(a: &mut Actor, c: Cpu) -> Result<bool, String> {
    let ci = usize::from(c);
    let any = !a.sys.pend[ci].is_empty();
    while !a.sys.pend[ci].is_empty() {
        a.must(Action::XskRcvBatch { c })?;
        check_receive(a, c)?;
        finish_receive(a, c)?;
    }
    Ok(any)
}

/// The receive CPU c is in, to its end: the action its stage allows,
/// tried again while it is not enabled (the lock held, a buffer not yet
/// on the fill ring).
fn finish_receive(a: &mut Actor, c: Cpu) -> Result<(), String> {
    let ci = usize::from(c);
    loop {
        let r = &a.sys.recv[ci];
        let tries = match r.stage {
            Stage::Idle => return Ok(()),
            Stage::Lock => vec![Action::RxLock { c }],
            Stage::Flush => {
                let s = r.sock;
                if std::ptr::eq(a.sys.rx_lock_of(s), &a.sys.pool.rx_lock) {
                    a.check_pool()?;
                }
                vec![Action::XskFlush { c }]
            }
            _ if r.peek.is_some() => vec![Action::XpAllocTake { c }],
            _ if r.bufs.len() == usize::from(r.len) => vec![Action::XskRcvReserve { c }],
            Stage::Alloc if r.len > 1 && r.bufs.is_empty() => vec![Action::XskRcvCheckRoom { c }],
            _ => vec![
                Action::XpAllocFree { c },
                Action::XpAllocPeek { c },
                Action::XpAllocFail { c },
            ],
        };
        if !tries.iter().any(|&t| a.step(t)) {
            let stage = a.sys.recv[ci].stage;
            a.wait(|| format!("on CPU {c}'s receive at {}", stage.id()))?;
        }
    }
}

/// The driver path on CPU c: polls until every packet has arrived, each
/// within its budget, ending some early.
fn driver_cpu(a: &mut Actor, c: Cpu, sh: &Shared, rng: &mut Rng) -> Result<(), String> {
    let (max, budget) = (u32::from(a.sys.cfg.spec.max_pkts), a.sys.cfg.spec.poll_budget);
    while a.sys.rxq.arrived() < max {
        if !sh.brought(a.sys.rxq.arrived()) {
            a.wait(|| format!("on CPU {c} for the wire"))?;
            continue;
        }
        let guard = sh.read();
        if !a.step(Action::NapiPoll { c }) {
            drop(guard);
            a.wait(|| format!("for CPU {c}'s poll"))?;
            continue;
        }
        let mut ran = 0;
        while ran == 0 || (!rng.chance(1, 4) && sh.brought(a.sys.rxq.arrived())) {
            // a packet the batch makes wait (another action, another
            // socket, a full batch) is run once the batch is received
            if !run_packet(a, c, rng)? && !(receive_batch(a, c)? && run_packet(a, c, rng)?) {
                break;
            }
            ran += 1;
            a.check(ran <= budget, || {
                format!("NapiBudget: CPU {c}'s poll ran {ran} packets on a budget of {budget}")
            })?;
            finish_receive(a, c)?;
            a.check_pool()?;
        }
        // the driver receives its batch before the poll's flush (the
        // mutant leaves it there)
        if !ringlab_mutant::on("mutant-redirect-xsk-batch-tail-lost") {
            receive_batch(a, c)?;
        }
        a.must(Action::XdpDoFlush { c })?;
        let cpu = &a.sys.cpus[usize::from(c)];
        let (listed, slot, kept) = (cpu.listed(), cpu.slot(), a.sys.pend[usize::from(c)].len());
        a.check(listed.is_empty() && slot == 0 && kept == 0, || {
            format!("FlushedAtPollEnd: CPU {c}'s poll ended with flush list {listed:?}, slot {slot}, {kept} packets in its batch")
        })?;
        drop(guard);
    }
    Ok(())
}

/// The generic path on CPU c: receives until every packet has arrived.
fn generic_cpu(a: &mut Actor, c: Cpu, sh: &Shared, rng: &mut Rng) -> Result<(), String> {
    let max = u32::from(a.sys.cfg.spec.max_pkts);
    while a.sys.rxq.arrived() < max {
        if !sh.brought(a.sys.rxq.arrived()) {
            a.wait(|| format!("on CPU {c} for the wire"))?;
            continue;
        }
        let guard = sh.read();
        if run_packet(a, c, rng)? {
            finish_receive(a, c)?;
        }
        drop(guard);
    }
    Ok(())
}

/// What the application does, and when: each step at the first packet
/// count at or past its own.
fn plan(spec: &Config, rng: &mut Rng) -> Vec<(u32, Action)> {
    let max = u32::from(spec.max_pkts);
    let mut plan = Vec::new();
    for s in spec.sockets() {
        if spec.late(s) {
            plan.push((rng.below(max / 2 + 1), Action::XskBind { s }));
            plan.push((rng.below(max / 2 + 1), Action::XskMapUpdate { k: s, s }));
        }
        if spec.remap && rng.chance(1, 2) {
            let k = 1 + rng.below(u32::from(spec.n_sockets)) as u8;
            plan.push((rng.below(max / 2 + 1), Action::XskMapUpdate { k, s }));
        }
        if spec.closes && rng.chance(1, 3) {
            plan.push((max / 4 + rng.below(max - max / 4), Action::XskRelease { s }));
        }
    }
    plan.sort_by_key(|&(at, _)| at);
    plan
}

/// UserRecv(s), checked: one buffer comes back, which the application
/// did not hold, holding a packet that ended on an rx ring.
fn user_recv(a: &mut Actor, s: Sock) -> Result<bool, String> {
    let before = a.sys.app.held();
    if !a.step(Action::UserRecv { s }) {
        return Ok(false);
    }
    let after = a.sys.app.held();
    let new: Vec<u8> = after.difference(&before).copied().collect();
    a.check(new.len() == 1 && after.len() == before.len() + 1, || {
        format!("BufConservation: a descriptor on socket {s}'s rx ring handed back a buffer the application held: {before:?} then {after:?}")
    })?;
    let p = a.sys.pool.chunk(new[0]);
    let f = a.sys.rxq.fates().get(usize::from(p).wrapping_sub(1)).copied();
    a.check(f == Some(Fate::Rx), || {
        format!("PktAccounted: buffer {} on socket {s}'s rx ring holds packet {p}, which is {}", new[0], f.map_or("no packet", Fate::id))
    })?;
    Ok(true)
}

/// The application until the crew's stop flag: its plan's steps, each release's end
/// after a grace period, fills and reads.
fn application(a: &mut Actor, sh: &Shared, mut todo: Vec<(u32, Action)>, rng: &mut Rng) -> Result<(), String> {
    let spec = a.sys.cfg.spec.clone();
    while !a.stop.is_set() {
        sh.wire.fetch_add(1, Ordering::Release);
        let now = a.sys.rxq.arrived();
        let mut i = 0;
        while i < todo.len() && todo[i].0 <= now {
            // A release waits for its socket's bind.
            if a.step(todo[i].1) {
                todo.remove(i);
            } else {
                i += 1;
            }
        }
        for s in spec.sockets() {
            if a.sys.socks[usize::from(s) - 1].state() == Sst::Unbinding {
                sh.synchronize();
                a.must(Action::XskReleaseDone { s })?;
            }
        }
        let mut did = false;
        for _ in 0..rng.one_to(4) {
            let held: Vec<u8> = a.sys.app.held().into_iter().collect();
            if held.is_empty() {
                break;
            }
            let b = held[rng.below(held.len() as u32) as usize];
            did |= a.step(Action::UserFill { b });
        }
        for _ in 0..rng.one_to(4) {
            let s = rng.one_to(u32::from(spec.n_sockets)) as Sock;
            did |= user_recv(a, s)?;
        }
        if !did {
            // The application may wait as long as the CPUs run.
            a.idle = 0;
            thread::yield_now();
        }
    }
    Ok(())
}

/// A seed for round `round`'s thread `who`.
fn seed_of(seed: u64, round: u64, who: u64) -> u64 {
    seed ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (who << 40)
}

/// One fresh system: the threads until every packet has arrived, then
/// the checks at the joins and the drain; its figures added to `r`.
fn round(cfg: &XskRxConfig, round: u64, r: &mut Report) -> Result<(), Failure> {
    let seed = cfg.seed;
    let fail = |m: String| Failure::at_start(seed, m);
    let mut sys = XskRx::new(cfg.clone()).map_err(fail)?;
    let sh = Arc::new(Shared::default());
    let mut crew = Crew::new();
    let cpus: Vec<_> = cfg
        .spec
        .cpu_ids()
        .map(|c| {
            let who = seed_of(seed, round, 1 + u64::from(c));
            let (mut a, sh) = (Actor::new(view(&sys), who, crew.stop()), sh.clone());
            let mut rng = Rng::new(who);
            crew.spawn(format!("cpu {c}"), move || {
                match a.sys.cfg.spec.path {
                    RxPath::Driver => driver_cpu(&mut a, c, &sh, &mut rng),
                    RxPath::Generic => generic_cpu(&mut a, c, &sh, &mut rng),
                }
                .map(|()| a)
            })
        })
        .collect();
    let user = {
        let who = seed_of(seed, round, 0);
        let (mut a, sh) = (Actor::new(view(&sys), who, crew.stop()), sh.clone());
        let mut rng = Rng::new(who);
        let todo = plan(&cfg.spec, &mut rng);
        crew.spawn("application", move || {
            application(&mut a, &sh, todo, &mut rng).map(|()| a)
        })
    };
    let cpus: Vec<Option<Actor>> = cpus.into_iter().map(|w| crew.join(w)).collect();
    crew.stop().set();
    let user = crew.join(user);
    crew.finish(seed)?;
    let (Some(cpus), Some(user)) = (cpus.into_iter().collect::<Option<Vec<Actor>>>(), user) else {
        return Err(fail("a thread handed nothing back".into()));
    };
    for (ci, a) in cpus.iter().enumerate() {
        sys.recv[ci] = a.sys.recv[ci].clone();
        sys.pend[ci] = a.sys.pend[ci].clone();
    }
    for a in cpus.iter().chain([&user]) {
        sys.cost += a.sys.cost;
        r.thread_checks += a.checks;
        for (&n, &k) in &a.actions {
            *r.actions.entry(n).or_default() += k;
        }
    }
    let s = settle(sys)?;
    r.rounds += 1;
    r.packets += u64::from(s.sys.rxq.arrived());
    r.drain_steps += s.steps();
    r.checks += 1 + s.stats().checks;
    for f in s.sys.rxq.fates() {
        *r.fates.entry(f.id()).or_default() += 1;
    }
    r.cost += s.sys.cost;
    Ok(())
}

/// Run `cfg` on threads for at least `packets` packets, in rounds of
/// MaxPkts on fresh systems, each checked at its joins and drained.
pub fn run(cfg: XskRxConfig, packets: u64) -> Result<Report, Failure> {
    let seed = cfg.seed;
    cfg.validate().map_err(|m| Failure::at_start(seed, m))?;
    if packets == 0 {
        return Err(Failure::at_start(seed, "threads run at least one packet"));
    }
    let mut r = Report {
        seed,
        path: cfg.spec.path.id(),
        redirect: cfg.spec.redirect.id(),
        cpus: cfg.spec.cpus.len(),
        rounds: 0,
        packets: 0,
        actions: BTreeMap::new(),
        thread_checks: 0,
        drain_steps: 0,
        checks: 0,
        fates: BTreeMap::new(),
        cost: Cost::default(),
    };
    let rounds = packets.div_ceil(u64::from(cfg.spec.max_pkts));
    for k in 0..rounds {
        round(&cfg, k, &mut r).map_err(|mut f| {
            f.message = format!("round {k}: {}", f.message);
            f
        })?;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driver_run_receives_and_drains() {
        let spec = Config {
            max_pkts: 64,
            n_bufs: 4,
            fq_size: 4,
            rx_size: 2,
            ..Config::driver()
        };
        let r = run(XskRxConfig::from_spec(spec).seed(3), 128).unwrap_or_else(|f| panic!("{f}"));
        assert_eq!((r.rounds, r.packets), (2, 128));
        assert!(r.received() > 0, "{r:?}");
        assert!(r.thread_checks > 0 && r.checks >= 2, "{r:?}");
    }

    #[test]
    fn no_packet_is_refused() {
        let e = run(XskRxConfig::from_spec(Config::driver()), 0).unwrap_err();
        assert!(e.message.contains("at least one packet"), "{e}");
    }
}
