//! Lanes: the veth pairs of one sandbox, taken in turn, so that a
//! campaign never waits for a queue to come free.
//!
//! A closed AF_XDP socket keeps its queue for a while: xsk_release() waits
//! for one RCU grace period (xsk_unbind_dev()'s synchronize_net()), the
//! socket is freed after another (SOCK_RCU_FREE), and only then does
//! xsk_destruct() drop the buffer pool, whose release runs from a work
//! item under the RTNL lock (xp_put_pool(), xp_release_deferred()). A
//! bind to the queue meanwhile fails with EBUSY. So each scenario runs on
//! the next lane, its sockets are closed on the [`Dropper`]'s threads, and
//! a lane comes round again only after the others have had a scenario
//! each. Should both of a lane's queues not be free yet, the scenario
//! opens its sockets on the next lane instead; only when every lane is
//! busy does it wait, and the wait is counted (xsk::bind_waits()).
//!
//! Every lane is the same: a veth pair made the same way, the same XDP
//! program, queue 0, fresh sockets and umem for every scenario. What a
//! scenario observes cannot tell which lane (or which worker's sandbox)
//! ran it.

use std::io;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ringlab_model::afxdp::{predict, Obs, Profile, Scenario};

use crate::bpf::{Paths, Redirect, XdpProg};
use crate::compare::{first_mismatch, Compared};
use crate::env::Lane;
use crate::runner::{run_on, Opened, Sockets, Spare};
use crate::sandbox::Sandbox;
use crate::txopts::TxOpts;
use crate::xsk::count_wait;

/// Lanes per sandbox: a lane comes round again after this many
/// scenarios, one or two milliseconds each, by when the two grace periods
/// and the work item that free its queues are mostly over (some 25 to
/// 50 ms here).
pub const LANES: usize = 32;
/// How long a scenario may wait for a lane with both queues free.
const BUSY_LIMIT: Duration = Duration::from_secs(5);
/// The pause once every lane has been found busy.
/// The pause once every lane has been found busy (each bind takes the
/// RTNL lock, which the work items releasing the queues need too).
const ALL_BUSY_PAUSE: Duration = Duration::from_micros(500);

/// Stack of a closing thread.
const CLOSER_STACK: usize = 256 << 10;

/// Threads that close sockets, each close waiting for its grace period
/// apart from the scenarios; [`Dropper::run`] returns once all are closed.
pub struct Dropper {
    send: mpsc::Sender<Box<dyn Send>>,
}

impl Dropper {
    /// Runs `f` with a dropper of `threads` threads; every socket handed
    /// to it is closed before this returns.
    pub fn run<T>(threads: usize, f: impl FnOnce(&Dropper) -> T) -> T {
        let (send, recv) = mpsc::channel::<Box<dyn Send>>();
        let recv = Mutex::new(recv);
        std::thread::scope(|sc| {
            for _ in 0..threads.max(1) {
                let closer = || loop {
                    let next = recv.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    match next {
                        Ok(x) => drop(x),
                        Err(_) => return,
                    }
                };
                // Closing needs little stack; many threads wait at once.
                std::thread::Builder::new().name("ringlab-close".into()).stack_size(CLOSER_STACK).spawn_scoped(sc, closer).expect("a thread to close sockets");
            }
            let d = Dropper { send };
            let out = f(&d);
            // Dropping the sender ends the threads once the queue is empty.
            drop(d);
            out
        })
    }

    /// Closes `x` on one of the threads.
    pub fn close(&self, x: Box<dyn Send>) {
        // The threads outlive every Dropper (Dropper::run); were they
        // gone, send would hand x back, and it would be closed here.
        if let Err(mpsc::SendError(x)) = self.send.send(x) {
            drop(x);
        }
    }
}

/// A sandbox of [`LANES`] lanes, entered by the thread that made it; its
/// scenarios run on one lane after another.
pub struct Lanes<'d> {
    lanes: Vec<Lane>,
    next: usize,
    dropper: &'d Dropper,
    // Dropped after the lanes: detach, then delete the namespace.
    sandbox: Sandbox,
}

impl Drop for Lanes<'_> {
    fn drop(&mut self) {
        // Each lane's packet socket waits for a grace period as it closes
        // (packet_release()): on the dropper's threads, the waits overlap.
        for lane in self.lanes.drain(..) {
            self.dropper.close(Box::new(lane));
        }
    }
}

impl<'d> Lanes<'d> {
    /// Makes the sandbox with `n` lanes (at least one) and moves the
    /// calling thread into it.
    pub fn new(n: usize, redirect: Redirect, dropper: &'d Dropper) -> io::Result<Lanes<'d>> {
        let sandbox = Sandbox::with_pairs(n.max(1))?;
        sandbox.enter()?;
        // One program for every lane: a worker runs one scenario at a
        // time, on one lane, and the program's counters are read as
        // differences over that scenario, whose frames have all been
        // counted when it ends. Attached everywhere, it is added to the
        // kernel's XDP dispatcher once (XdpProg::attach_to).
        let (first_b, rest) = sandbox.pairs.split_first().map(|(f, r)| (&f.1, r)).expect("a sandbox has a pair");
        let mut prog = XdpProg::attach(Sandbox::ifindex(first_b)?, redirect)?;
        for (_, b) in rest {
            prog.attach_to(Sandbox::ifindex(b)?)?;
        }
        // Removing the namespace detaches it.
        prog.leave_attached();
        let prog = Arc::new(prog);
        let lanes = sandbox.pairs.iter().map(|(a, b)| Lane::with(a, b, redirect, prog.clone())).collect::<io::Result<Vec<_>>>()?;
        Ok(Lanes { lanes, next: 0, dropper, sandbox })
    }

    pub fn len(&self) -> usize {
        self.lanes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lanes.is_empty()
    }

    /// The sandbox's namespace.
    pub fn netns(&self) -> &str {
        &self.sandbox.netns
    }

    /// Runs `s` on the next lane whose queues are free, with `opts` set on
    /// its TX sockets; its sockets are closed by the dropper. Also gives
    /// the lane's bpf_redirect_xsk() path counts over the scenario.
    pub fn run(&mut self, s: &Scenario, opts: &TxOpts) -> io::Result<(Vec<Obs>, Paths)> {
        let start = Instant::now();
        let mut busy = 0;
        let mut spare = Spare::default();
        loop {
            let k = self.next;
            self.next = (k + 1) % self.lanes.len();
            let lane = &self.lanes[k];
            match Sockets::open_now(lane, &s.setup, opts, &mut spare)? {
                Opened::Ready(sockets) => {
                    if busy > 0 {
                        count_wait(start.elapsed());
                    }
                    let before = lane.prog.paths()?;
                    let (obs, sockets) = run_on(lane, *sockets, s);
                    let paths = lane.prog.paths();
                    for x in sockets.into_parts() {
                        self.dropper.close(x);
                    }
                    return Ok((obs?, paths? - before));
                }
                Opened::Busy(bound) => {
                    for x in bound {
                        self.dropper.close(x);
                    }
                    busy += 1;
                    if busy % self.lanes.len() == 0 {
                        if start.elapsed() > BUSY_LIMIT {
                            count_wait(start.elapsed());
                            return Err(io::Error::new(
                                io::ErrorKind::ResourceBusy,
                                format!("bind(XDP_COPY): every one of the {} lanes of {} stayed busy for {BUSY_LIMIT:?}", self.lanes.len(), self.sandbox.netns),
                            ));
                        }
                        std::thread::sleep(ALL_BUSY_PAUSE);
                    }
                }
            }
        }
    }

    /// Runs `s` on the kernel (as [`Lanes::run`], the kernel's sockets set
    /// up as `p` says) and on the model.
    pub fn compare(&mut self, s: &Scenario, p: &Profile) -> io::Result<(Compared, Paths)> {
        let (kernel, paths) = self.run(s, &TxOpts::of(p))?;
        let model = predict(s, p);
        let mismatch = first_mismatch(&model, &kernel);
        Ok((Compared { kernel, model, mismatch }, paths))
    }
}
