//! The fault campaign: copy-mode transmit with one allocation failing
//! inside a sendto (failnth.rs), round after round, and what must hold
//! whatever failed: every frame submitted is completed exactly once, and
//! no completion slot is lost (after draining, the CQ still takes as many
//! frames as it has entries). One copy-mode socket with its own umem on
//! the sandbox's veth, the batch series' options as asked (none for batch
//! 0 and budget 32, so it also runs on kernels without the series).

#[path = "faults_rx.rs"]
pub mod rx;

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::sync::atomic::Ordering::Acquire;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use ringlab_model::afxdp::ETH_P_TXONLY;
use ringlab_ring::{RingMem, XdpDesc};
use ringlab_model::rng::Rng;

use crate::campaign::in_sandbox;
use crate::env::{release, Env};
use crate::failnth::{FailNth, Knobs};
use crate::runner::frame;
use crate::txopts::TxOpts;
use crate::xsk::{Xsk, XskConfig};

const FRAME_SIZE: u32 = 2048;
/// How long the skbs of one sendto may take to be freed.
const SETTLE: Duration = Duration::from_secs(2);
/// Calls in a row that move nothing before draining gives up.
const IDLE_CALLS: u32 = 8;

#[derive(Debug, Clone)]
pub struct FaultOpts {
    pub batch: u32,
    pub budget: u32,
    pub rounds: u64,
    pub seed: u64,
    /// Arm fail-nth before each round's sendto (false: the same rounds
    /// without faults, which any kernel must pass).
    pub inject: bool,
    pub progress: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultReport {
    pub kernel: String,
    pub batch: u32,
    pub budget: u32,
    pub rounds: u64,
    pub seed: u64,
    pub tx_size: u32,
    pub comp_size: u32,
    /// Rounds whose armed fault fired.
    pub injected: u64,
    /// The rounds' sendto results by errno name ("0": success).
    pub sendto_errnos: BTreeMap<String, u64>,
    pub submitted: u64,
    pub completed: u64,
    /// Frames submitted and never completed.
    pub lost: u64,
    /// Completions of frames not in flight (completed twice, or never
    /// submitted).
    pub double: u64,
    /// CQ slots missing after draining: comp_size frames submitted at
    /// once, fewer completed.
    pub leaks: u64,
    /// Descriptors left in the TX ring when draining stopped moving.
    pub stuck: u32,
    pub seconds: f64,
}

impl FaultReport {
    pub fn ok(&self) -> bool {
        self.lost == 0 && self.double == 0 && self.leaks == 0
    }
}

pub fn run(o: FaultOpts) -> io::Result<FaultReport> {
    in_sandbox(move |env| run_in(env, &o))
}

pub fn run_in(env: &Env, o: &FaultOpts) -> io::Result<FaultReport> {
    let start = Instant::now();
    let mut r = Rng::new(o.seed);
    let tx_size = o.budget.next_power_of_two().max(64);
    let comp_size = [16, tx_size / 2, tx_size][r.below(3) as usize];
    let x = Xsk::create(&XskConfig {
        ifindex: env.ifindex_a,
        queue: 0,
        frames: tx_size + comp_size,
        frame_size: FRAME_SIZE,
        headroom: 0,
        fill_size: 4,
        comp_size,
        rx_size: 0,
        tx_size,
        need_wakeup: false,
        sg: false,
    })?;
    TxOpts::new(o.batch, o.budget).apply(x.fd, tx_size)?;
    let (knobs, fail) = if o.inject { (Some(Knobs::set()?), Some(FailNth::open()?)) } else { (None, None) };
    let rep = FaultReport {
        kernel: release(),
        batch: o.batch,
        budget: o.budget,
        rounds: o.rounds,
        seed: o.seed,
        tx_size,
        comp_size,
        ..Default::default()
    };
    let pool = (0..(tx_size + comp_size) as u64).map(|f| f * FRAME_SIZE as u64).collect();
    let mut rig = Rig { x, pool, in_flight: HashMap::new(), rep, seq: 0 };
    for i in 0..o.rounds {
        rig.round(&mut r, fail.as_ref())?;
        if o.progress && (i + 1) % 100 == 0 {
            eprintln!("faults: {}/{} rounds, {} injected", i + 1, o.rounds, rig.rep.injected);
        }
    }
    drop(fail);
    drop(knobs);
    rig.drain()?;
    rig.rep.leaks = rig.leak_check()?;
    rig.rep.lost = rig.in_flight.values().map(|&n| n as u64).sum();
    rig.rep.seconds = start.elapsed().as_secs_f64();
    Ok(rig.rep)
}

/// The socket, the frames not in flight, the frames in flight (by
/// address, how many times).
struct Rig {
    x: Xsk,
    pool: Vec<u64>,
    in_flight: HashMap<u64, u32>,
    rep: FaultReport,
    seq: u32,
}

impl Rig {
    /// Some frames from the pool (mostly 60..1400 bytes, some that veth
    /// drops), then one sendto with the fault armed at a random 1..=8.
    fn round(&mut self, r: &mut Rng, fail: Option<&FailNth>) -> io::Result<()> {
        let room = (self.pool.len() as u32).min(self.tx_free());
        if room > 0 {
            let lens: Vec<u32> = (0..r.one_to(room))
                .map(|_| if r.chance(1, 48) { [10, 1600][r.below(2) as usize] } else { 60 + r.below(1341) })
                .collect();
            self.submit(&lens);
        }
        let nth = r.one_to(8);
        if let Some(f) = fail {
            f.arm(nth)?;
        }
        let e = self.kick();
        if let Some(f) = fail {
            self.rep.injected += f.fired()? as u64;
        }
        *self.rep.sendto_errnos.entry(errno_name(e)).or_default() += 1;
        self.settle()?;
        self.reap();
        Ok(())
    }

    fn submit(&mut self, lens: &[u32]) {
        let Some(tx) = self.x.tx.as_mut() else { return };
        let n = lens.len() as u32;
        let Some(idx) = tx.reserve(n) else { return };
        for (k, len) in lens.iter().enumerate() {
            let addr = self.pool.pop().expect("submit: more frames than the pool holds");
            self.x.umem.write(addr, &frame(*len, ETH_P_TXONLY, self.seq));
            self.seq += 1;
            tx.write(idx.wrapping_add(k as u32), XdpDesc { addr, len: *len, options: 0 });
            *self.in_flight.entry(addr).or_default() += 1;
        }
        tx.submit(n);
        self.rep.submitted += n as u64;
    }

    fn kick(&self) -> i32 {
        self.x.kick().err().unwrap_or(0)
    }

    /// Every skb freed (SO_MEMINFO wmem_alloc 0), or SETTLE passed.
    fn settle(&self) -> io::Result<()> {
        let start = Instant::now();
        while self.x.wmem_alloc()? != 0 && start.elapsed() < SETTLE {
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(())
    }

    /// Takes every completion, each back to the pool.
    fn reap(&mut self) {
        loop {
            let (m, idx) = self.x.comp.peek(u32::MAX);
            if m == 0 {
                return;
            }
            for k in 0..m {
                let addr = self.x.comp.read(idx.wrapping_add(k));
                match self.in_flight.get_mut(&addr) {
                    Some(n) => {
                        *n -= 1;
                        if *n == 0 {
                            self.in_flight.remove(&addr);
                        }
                        self.pool.push(addr);
                        self.rep.completed += 1;
                    }
                    None => self.rep.double += 1,
                }
            }
            self.x.comp.release(m);
        }
    }

    fn tx_counters(&self) -> (u32, u32) {
        let ring = self.x.tx.as_ref().expect("a TX ring").ring();
        (ring.producer().load(Acquire), ring.consumer().load(Acquire))
    }

    /// Submitted descriptors the kernel has not published as consumed.
    fn tx_pending(&self) -> u32 {
        let (p, c) = self.tx_counters();
        p.wrapping_sub(c)
    }

    fn tx_free(&self) -> u32 {
        self.x.tx.as_ref().map_or(0, |t| t.ring().size()) - self.tx_pending()
    }

    fn cq_published(&self) -> u32 {
        self.x.comp.ring().producer().load(Acquire)
    }

    /// sendto, settle, until the TX ring is empty and every skb freed,
    /// or IDLE_CALLS calls in a row move nothing; completions reaped
    /// after each call when `reap`.
    fn kick_until_empty(&mut self, reap: bool) -> io::Result<()> {
        let mut idle = 0;
        while idle < IDLE_CALLS {
            if self.tx_pending() == 0 && self.x.wmem_alloc()? == 0 {
                return Ok(());
            }
            let before = (self.tx_counters(), self.cq_published());
            self.kick();
            self.settle()?;
            if reap {
                self.reap();
            }
            idle = if (self.tx_counters(), self.cq_published()) == before { idle + 1 } else { 0 };
        }
        Ok(())
    }

    /// Faults disarmed: everything in the TX ring sent and completed.
    fn drain(&mut self) -> io::Result<()> {
        self.kick_until_empty(true)?;
        self.rep.stuck = self.tx_pending();
        Ok(())
    }

    /// comp_size frames in the TX ring at once (those the drain left
    /// stuck, then fresh ones from the pool), sent without reaping into
    /// the emptied CQ: each must find a CQ slot. The missing ones. Frames
    /// stuck behind leaked slots count: a TX ring they fill leaves no room
    /// for fresh ones, and would otherwise make the check vacuous.
    fn leak_check(&mut self) -> io::Result<u64> {
        let stuck = self.tx_pending();
        let fresh = self.rep.comp_size.saturating_sub(stuck).min(self.pool.len() as u32).min(self.tx_free());
        self.submit(&vec![60; fresh as usize]);
        let n = (stuck + fresh).min(self.rep.comp_size);
        let base = self.cq_published();
        self.kick_until_empty(false)?;
        let fit = self.cq_published().wrapping_sub(base);
        self.reap();
        self.drain()?;
        Ok(n.saturating_sub(fit) as u64)
    }
}

/// An errno by name: "0", "EAGAIN", ... (sendto's results, and
/// NETDEV_CMD_BIND_RX's refusals).
pub fn errno_name(e: i32) -> String {
    let name = match e {
        0 => "0",
        libc::EAGAIN => "EAGAIN",
        libc::EBUSY => "EBUSY",
        libc::ENOBUFS => "ENOBUFS",
        libc::ENOMEM => "ENOMEM",
        libc::EINVAL => "EINVAL",
        libc::EFAULT => "EFAULT",
        libc::ENXIO => "ENXIO",
        libc::ENETDOWN => "ENETDOWN",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::EOVERFLOW => "EOVERFLOW",
        libc::EEXIST => "EEXIST",
        libc::ENODEV => "ENODEV",
        libc::ERANGE => "ERANGE",
        libc::ENODATA => "ENODATA",
        _ => return format!("errno {e}"),
    };
    name.into()
}
