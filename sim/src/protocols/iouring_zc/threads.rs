//! The real-thread runner: a submitter thread (the application's task:
//! it writes SQEs, enters the kernel, which preps and issues them, flushes
//! the submission's completions, runs task work and moves overflowed CQEs
//! back), a network-stack thread freeing the skbs in any order (each free
//! puts a notification reference, the last queueing the task work), and
//! a reaper thread consuming CQEs and writing into a buffer again once
//! its CQE says it may. A run is rounds of NReqs requests, each on a
//! fresh system; the seed seeds each thread's choices, not the
//! interleaving.
//!
//! What it checks as the threads run, where a thread owns what it sees:
//! the stack never transmits pages of a registered buffer that was freed
//! (FixedBufPinned); the reaper never gets a notification before its
//! request's CQE (ReqBeforeNotif) and never writes into pages an skb
//! still pins (BufferNotReused). Then, after the joins, every invariant
//! at that quiescent point, the drain and the quiescence check, as the
//! scheduler does them.

use std::collections::BTreeMap;

use ringlab_model::iouring_zc::{PrepOutcome, Req, SendOutcome, SkbId, St};
use ringlab_model::rng::Rng;
use serde::Serialize;

use super::config::IoUringZcConfig;
use super::ctx::Ctx;
use super::system::IoUringZc;
use super::user::App;
use crate::harness::{settle, Crew, Failure, Stop};
use ringlab_ring::sync::{thread, Arc};

/// Tries in a row without progress after which a thread gives up.
const STUCK: u64 = 10_000_000;

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub seed: u64,
    /// Fresh systems run, NReqs requests each.
    pub rounds: u64,
    pub requests: u64,
    /// Kernel calls of the submitter that did something, by spec name.
    pub actions: BTreeMap<&'static str, u64>,
    /// skbs the stack freed.
    pub skbs_freed: u64,
    /// CQEs the reaper consumed, notifications among them.
    pub reaped: u64,
    pub notifs: u64,
    /// Buffers written again by the reaper.
    pub reused: u64,
    /// Steps of the drains after the joins (each checked).
    pub drain_steps: u64,
}

/// An outcome of io_send_zc() for r: mostly all, sometimes a failure.
fn outcome(ctx: &Ctx, r: Req, rng: &mut Rng) -> (SendOutcome, u32) {
    let spec = &ctx.spec;
    let sent = ctx.req(r).sent();
    let left = spec.req_len - sent;
    let o = match rng.below(16) {
        0 => SendOutcome::Pipe,
        1 if sent == 0 => SendOutcome::Fault,
        2 => SendOutcome::Partial,
        3 | 4 => SendOutcome::Eagain,
        _ => SendOutcome::All,
    };
    if o.fail().is_some_and(|f| !spec.fails(f)) {
        return (SendOutcome::All, left);
    }
    let u = match o {
        SendOutcome::All => left,
        SendOutcome::Pipe | SendOutcome::Fault => 0,
        _ => rng.below(left),
    };
    (o, u)
}

/// skbs for u units of r from what the socket holds now: r's own, free
/// slots, once another notification's; None if there are not enough.
fn skbs(ctx: &Ctx, r: Req, u: u32, rng: &mut Rng) -> Option<Vec<SkbId>> {
    let uarg = |k: SkbId| ctx.skb(k).get().uarg;
    let mut free: Vec<SkbId> = ctx.spec.skb_ids().filter(|&k| uarg(k) == 0).collect();
    let own = ctx.spec.skb_ids().find(|&k| uarg(k) == r);
    let other = ctx.spec.skb_ids().find(|&k| !matches!(uarg(k), 0) && uarg(k) != r);
    let mut ks = Vec::new();
    let mut linked = false;
    for _ in 0..u {
        let k = match (own, other) {
            (_, Some(o)) if !linked && ctx.spec.link && rng.chance(1, 4) => {
                linked = true;
                o
            }
            (Some(k), _) if free.is_empty() || rng.chance(1, 3) => k,
            _ if !free.is_empty() => free.remove(rng.below(free.len() as u32) as usize),
            _ => return None,
        };
        ks.push(k);
    }
    Some(ks)
}

/// The submitter's task: io_uring_enter() rounds until every request is
/// done and nothing of theirs is left in the kernel (skbs freed, task
/// work run, overflowed CQEs back in the CQ).
fn submitter(
    ctx: Arc<Ctx>,
    app: Arc<App>,
    failed: Stop,
    seed: u64,
) -> Result<BTreeMap<&'static str, u64>, String> {
    let mut rng = Rng::new(seed ^ 0x5b_0001);
    let mut did: BTreeMap<&'static str, u64> = BTreeMap::new();
    let spec = ctx.spec.clone();
    let mut idle = 0u64;
    loop {
        let mut any = false;
        let mut count = |name: &'static str, ok: bool| {
            if ok {
                *did.entry(name).or_default() += 1;
                any = true;
            }
        };
        // The application writes the SQEs it has room for.
        for r in spec.reqs() {
            if ctx.req(r).st() == St::User && app.submit(r, spec.req_len, spec.fixed) {
                ctx.req(r).set_st(St::Sq);
                count("UserSubmit", true);
            }
        }
        // A request still being issued (its draw was not one the socket
        // took) goes first, then retries whose poll fired, then the SQEs.
        for r in spec.reqs() {
            if ctx.req(r).st() == St::Retry {
                count("IoPollRetry", ctx.io_poll_retry(r).is_ok());
            }
            if ctx.req(r).st() == St::Issue {
                count("IoSendZc", issue(&ctx, r, &mut rng));
            }
        }
        if ctx.io_submit_sqes().is_ok() {
            count("IoUringEnter", true);
            while ctx.submit_state().0 > 0 {
                let o = match rng.below(16) {
                    0 => PrepOutcome::Nomem,
                    1 => PrepOutcome::Inval,
                    _ => PrepOutcome::Ok,
                };
                let o = if o.fail().is_some_and(|f| !spec.fails(f)) { PrepOutcome::Ok } else { o };
                ctx.io_send_zc_prep(o).map_err(|d| format!("in a submission: {d}"))?;
                count("IoSendZcPrep", true);
                if let Some(r) = spec.reqs().find(|&r| ctx.req(r).st() == St::Issue) {
                    while !issue(&ctx, r, &mut rng) {
                        thread::yield_now();
                    }
                    count("IoSendZc", true);
                }
            }
        }
        count("IoSubmitFlushCompletions", ctx.io_submit_flush_completions().is_ok());
        while ctx.io_run_task_work().is_ok() {
            count("IoRunTaskWork", true);
        }
        while ctx.io_cqring_overflow_flush().is_ok() {
            count("IoCqringOverflowFlush", true);
        }
        let done = spec.reqs().all(|r| ctx.req(r).st() == St::Done)
            && ctx.skbs.iter().all(|k| k.get().uarg == 0)
            && ctx.task_work().is_empty()
            && !ctx.cq.overflowed()
            && ctx.submit_state().1.is_empty();
        // Another thread saw something break: its error is the run's.
        if done || failed.is_set() {
            return Ok(did);
        }
        idle = if any { 0 } else { idle + 1 };
        if idle > STUCK {
            return Err(format!("nothing to do for {STUCK} rounds and not done"));
        }
        thread::yield_now();
    }
}

/// io_send_zc() for r being issued: an outcome and skbs drawn from the
/// socket as it is; with no skb to be had, -EAGAIN if the run allows it.
/// False if it must wait for the stack to free one.
fn issue(ctx: &Ctx, r: Req, rng: &mut Rng) -> bool {
    if ctx.req(r).st() != St::Issue {
        return false;
    }
    let (o, u) = outcome(ctx, r, rng);
    let (o, u, ks) = match skbs(ctx, r, u, rng) {
        Some(ks) => (o, u, ks),
        None if ctx.spec.fails(ringlab_model::iouring_zc::Fail::Eagain) => {
            (SendOutcome::Eagain, 0, Vec::new())
        }
        None => return false,
    };
    ctx.io_send_zc(r, u, o, &ks).is_ok()
}

/// The network stack: skbs freed in any order until the submitter is
/// done. It checks that no skb it transmits carries pages of a
/// registered buffer that was freed.
fn stack(ctx: Arc<Ctx>, stop: Stop, failed: Stop, seed: u64) -> Result<u64, String> {
    let mut rng = Rng::new(seed ^ 0x57ac_0002);
    let mut freed = 0;
    loop {
        let used: Vec<SkbId> = ctx.spec.skb_ids().filter(|&k| ctx.skb(k).get().uarg != 0).collect();
        if used.is_empty() {
            if stop.is_set() {
                return Ok(freed);
            }
            thread::yield_now();
            continue;
        }
        let k = used[rng.below(used.len() as u32) as usize];
        if ctx.spec.fixed && ctx.bufs.freed() && ctx.skb(k).get().uarg != 0 {
            failed.set();
            return Err(format!(
                "skb {k} transmits pages of the registered buffer after they were freed (FixedBufPinned)"
            ));
        }
        if ctx.skb_free(k).is_ok() {
            freed += 1;
        }
        if rng.chance(1, 2) {
            thread::yield_now();
        }
    }
}

/// What the reaper hands back.
#[derive(Default)]
struct Reaped {
    cqes: u64,
    notifs: u64,
    reused: u64,
}

/// The application's completion side: CQEs reaped until the submitter is
/// done and the CQ is empty; a buffer written again once its CQE allows
/// (which, with a registered buffer, may unregister it midway).
fn reaper(ctx: Arc<Ctx>, app: Arc<App>, stop: Stop, failed: Stop, seed: u64) -> Result<Reaped, String> {
    let mut rng = Rng::new(seed ^ 0x7ea9_0003);
    let mut out = Reaped::default();
    let unregister_at = ctx.spec.fixed.then(|| u64::from(rng.below(4 * u32::from(ctx.spec.n_reqs))));
    loop {
        match app.reap() {
            Some(c) => {
                out.cqes += 1;
                if c.is_notif() {
                    out.notifs += 1;
                    if !app.got(c.r()).cqe {
                        failed.set();
                        return Err(format!(
                            "the notification of request {} came before its CQE (ReqBeforeNotif)",
                            c.r()
                        ));
                    }
                }
                if unregister_at == Some(out.cqes) {
                    ctx.bufs.unregister();
                }
            }
            None if stop.is_set() => return Ok(out),
            None => thread::yield_now(),
        }
        for r in ctx.spec.reqs() {
            if !ctx.bufs.reused(r) && app.may_reuse(r, ctx.spec.reuse) {
                if ctx.bufs.pins(r) > 0 {
                    failed.set();
                    return Err(format!(
                        "request {r}: the application writes into pages an skb still carries (BufferNotReused)"
                    ));
                }
                ctx.bufs.reuse(r);
                out.reused += 1;
            }
        }
    }
}

/// One fresh system: the three threads, the joins, then every invariant
/// at the quiescent point and the drain.
fn round(cfg: &IoUringZcConfig, k: u64, r: &mut Report) -> Result<(), Failure> {
    let seed = cfg.seed.wrapping_add(k);
    let sys = IoUringZc::new(cfg.clone().seed(seed)).map_err(|m| Failure::at_start(seed, m))?;
    let mut crew = Crew::new();
    let stop = crew.stop();
    // Set by a thread whose check failed, so that the others end.
    let failed = Stop::default();
    let sub = {
        let (ctx, app, failed) = (sys.ctx.clone(), sys.app.clone(), failed.clone());
        crew.spawn("submitter", move || submitter(ctx, app, failed, seed))
    };
    let st = {
        let (ctx, stop, failed) = (sys.ctx.clone(), stop.clone(), failed.clone());
        crew.spawn("stack", move || stack(ctx, stop, failed, seed))
    };
    let rp = {
        let (ctx, app, stop, failed) = (sys.ctx.clone(), sys.app.clone(), stop.clone(), failed.clone());
        crew.spawn("reaper", move || reaper(ctx, app, stop, failed, seed))
    };
    let did = crew.join(sub);
    stop.set();
    let (freed, reaped) = (crew.join(st), crew.join(rp));
    crew.finish(seed)?;
    let (Some(did), Some(freed), Some(reaped)) = (did, freed, reaped) else {
        return Err(Failure::at_start(seed, "a thread handed nothing back"));
    };
    for (a, n) in did {
        *r.actions.entry(a).or_default() += n;
    }
    r.rounds += 1;
    r.requests += u64::from(cfg.spec.n_reqs);
    r.skbs_freed += freed;
    r.reaped += reaped.cqes;
    r.notifs += reaped.notifs;
    r.reused += reaped.reused;
    let s = settle(sys)?;
    r.drain_steps += s.steps();
    Ok(())
}

/// At least `requests` requests on real threads, NReqs a round.
pub fn run(cfg: IoUringZcConfig, requests: u64) -> Result<Report, Failure> {
    let seed = cfg.seed;
    cfg.validate().map_err(|m| Failure::at_start(seed, m))?;
    if requests == 0 {
        return Err(Failure::at_start(seed, "threads run at least one request"));
    }
    let mut r = Report {
        seed,
        ..Report::default()
    };
    let rounds = requests.div_ceil(u64::from(cfg.spec.n_reqs));
    for k in 0..rounds {
        round(&cfg, k, &mut r).map_err(|mut f| {
            f.message = format!("round {k}: {}", f.message);
            f
        })?;
    }
    Ok(r)
}
