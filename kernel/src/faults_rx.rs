//! The receive-path fault campaign: frames sent from the peer with
//! AF_PACKET into the veth whose XDP program (attached in native mode,
//! so veth's NAPI poll runs it: veth_xdp_rcv_skb) redirects them to a
//! copy-mode AF_XDP socket, while failslab and fail_page_alloc fail
//! allocations that cannot sleep (failnth::Knobs::atomic): the softirq's,
//! such as veth_convert_skb_to_xdp_buff's page-pool page and skb head.
//! fail-nth cannot reach them: it counts only calls in task context.
//!
//! Whatever failed, every frame sent must be accounted exactly once
//! (`Ledger`): refused by the sender's sendto, dropped before the
//! program (veth's rx_dropped less the socket's own drops, which veth
//! counts too as failed redirects), dropped or passed by the program, or
//! redirected; and every redirected one on the RX ring (once, by its tag)
//! or in the socket's rx_dropped or rx_ring_full. Every fill-ring buffer
//! must come back: after the rounds, with faults off, frames are sent
//! until the kernel holds no buffer, each returned exactly once.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::os::fd::AsFd;
use std::sync::atomic::Ordering::Acquire;
use std::time::{Duration, Instant};

use libbpf_rs::{MapCore, MapFlags, MapHandle, Object, ObjectBuilder, Xdp, XdpFlags};
use serde::{Deserialize, Serialize};

use ringlab_model::afxdp::XdpAct;
use ringlab_model::rng::Rng;
use ringlab_ring::{RingMem, XdpDesc};

use crate::bpf::Redirect;
use crate::env::release;
use crate::failnth::{Armed, Knobs, FAILSLAB, FAIL_PAGE_ALLOC};
use super::errno_name;
use crate::inject::Injector;
use crate::runner::frame;
use crate::sandbox::Sandbox;
use crate::xsk::{Xsk, XskConfig};

const FRAME_SIZE: u32 = 2048;
const FRAMES: u32 = 64;
/// The first frame's tag.
const TAG0: u32 = 2_000_000;
/// How long the frames of one burst may take to be accounted.
const SETTLE: Duration = Duration::from_secs(2);
/// The largest frame AF_PACKET sends on a 1500-byte MTU.
const MAX_LEN: u32 = 1514;

#[derive(Debug, Clone)]
pub struct FaultRxOpts {
    pub rounds: u64,
    pub seed: u64,
    /// Arm the faults each round (false: the same rounds without faults).
    pub inject: bool,
    /// The program's helper: bpf_redirect_xsk() sends the frames through
    /// veth's XDP_REDIRECT_XSK path (kernel/patches/xsk-redirect-xsk).
    pub redirect: Redirect,
    pub progress: bool,
}

/// The counters a campaign ends with, and what must hold between them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Frames the peer tried to send (sendto calls).
    pub sent: u64,
    /// sendto calls that failed, by errno name.
    pub send_errors: BTreeMap<String, u64>,
    /// veth's rx_dropped on the receiving end: drops before the program
    /// (a failed allocation in veth_convert_skb_to_xdp_buff) and failed
    /// redirects (the socket's rx_dropped and rx_ring_full).
    pub veth_rx_dropped: u64,
    /// veth's tx_dropped on the sending end (its ring toward the peer full).
    pub veth_tx_dropped: u64,
    /// The program's counters: redirected, and dropped (or passed: none
    /// are sent).
    pub redirected: u64,
    pub not_redirected: u64,
    /// Frames the kernel put on the RX ring.
    pub on_rx_ring: u64,
    /// The socket's XDP_STATISTICS.
    pub rx_dropped: u64,
    pub rx_ring_full: u64,
    pub rx_fill_ring_empty_descs: u64,
    /// Tags read from the RX ring more than once, and tags never sent.
    #[serde(default)]
    pub tags_twice: Vec<u32>,
    #[serde(default)]
    pub tags_unknown: Vec<u32>,
    /// Tags sent successfully that never reached the RX ring (the dropped
    /// ones among them), the first few.
    #[serde(default)]
    pub tags_missing_sample: Vec<u32>,
    /// Fill-ring buffers handed to the kernel, returned on the RX ring,
    /// returned when not held by the kernel, and held at the end.
    pub buffers_given: u64,
    pub buffers_returned: u64,
    #[serde(default)]
    pub buffers_twice: Vec<u64>,
    #[serde(default)]
    pub buffers_lost: Vec<u64>,
}

impl Ledger {
    fn refused(&self) -> u64 {
        self.send_errors.values().sum()
    }

    /// Frames dropped before the program: veth's rx_dropped less the
    /// failed redirects it also counts (None if that is negative).
    pub fn dropped_before_program(&self) -> Option<u64> {
        self.veth_rx_dropped.checked_sub(self.rx_dropped + self.rx_ring_full)
    }

    /// Frames in no counter (negative: counted more than once).
    pub fn unaccounted(&self) -> i64 {
        let before = self.veth_rx_dropped as i64 - (self.rx_dropped + self.rx_ring_full) as i64;
        self.sent as i64 - (self.refused() + self.redirected + self.not_redirected) as i64 - before
    }

    /// Redirected frames neither on the RX ring nor in a socket counter.
    pub fn redirect_unaccounted(&self) -> i64 {
        self.redirected as i64 - (self.on_rx_ring + self.rx_dropped + self.rx_ring_full) as i64
    }

    /// Every way the ledger does not balance, one line each, naming the
    /// frames and buffers.
    pub fn check(&self) -> Vec<String> {
        let mut p = Vec::new();
        let tags = |t: &[u32]| t.iter().take(16).map(u32::to_string).collect::<Vec<_>>().join(", ");
        let addrs = |a: &[u64]| a.iter().take(16).map(|a| format!("{a:#x}")).collect::<Vec<_>>().join(", ");
        if self.dropped_before_program().is_none() {
            p.push(format!(
                "veth counted {} frames dropped, fewer than the socket's {} rx_dropped + {} rx_ring_full",
                self.veth_rx_dropped, self.rx_dropped, self.rx_ring_full
            ));
        }
        let u = self.unaccounted();
        if u != 0 {
            p.push(format!(
                "{} frames {}: {} sent = {} refused by sendto + {} dropped before the program ({} veth rx_dropped - {} - {}) + {} redirected + {} dropped or passed by it; sent and not on the RX ring: tags {}",
                u.abs(),
                if u > 0 { "in no counter" } else { "counted twice" },
                self.sent,
                self.refused(),
                self.veth_rx_dropped as i64 - (self.rx_dropped + self.rx_ring_full) as i64,
                self.veth_rx_dropped,
                self.rx_dropped,
                self.rx_ring_full,
                self.redirected,
                self.not_redirected,
                tags(&self.tags_missing_sample)
            ));
        }
        let r = self.redirect_unaccounted();
        if r != 0 {
            p.push(format!(
                "{} redirected frames {}: {} redirected = {} on the RX ring + {} rx_dropped + {} rx_ring_full",
                r.abs(),
                if r > 0 { "neither on the RX ring nor in a socket counter" } else { "counted twice" },
                self.redirected,
                self.on_rx_ring,
                self.rx_dropped,
                self.rx_ring_full
            ));
        }
        if !self.tags_twice.is_empty() {
            p.push(format!("{} frames on the RX ring twice: tags {}", self.tags_twice.len(), tags(&self.tags_twice)));
        }
        if !self.tags_unknown.is_empty() {
            p.push(format!("{} frames on the RX ring that were never sent: tags {}", self.tags_unknown.len(), tags(&self.tags_unknown)));
        }
        if !self.buffers_twice.is_empty() {
            p.push(format!("{} buffers returned while not held by the kernel: {}", self.buffers_twice.len(), addrs(&self.buffers_twice)));
        }
        if !self.buffers_lost.is_empty() {
            p.push(format!(
                "{} of {} fill-ring buffers never came back: {}",
                self.buffers_lost.len(),
                self.buffers_given,
                addrs(&self.buffers_lost)
            ));
        }
        p
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultRxReport {
    pub kernel: String,
    pub rounds: u64,
    pub seed: u64,
    pub fill_size: u32,
    pub rx_size: u32,
    pub headroom: u32,
    /// Faults that fired: failslab's and fail_page_alloc's (any
    /// allocation that could not sleep while armed, on either vCPU).
    pub injected_slab: u64,
    pub injected_page: u64,
    pub injected: u64,
    /// The program's helper, and with bpf_redirect_xsk() the frames it
    /// answered XDP_REDIRECT_XSK (the driver's fast path) and XDP_REDIRECT.
    #[serde(default)]
    pub redirect: Redirect,
    #[serde(default)]
    pub fast_path: u64,
    #[serde(default)]
    pub fallback: u64,
    pub ledger: Ledger,
    /// Frames dropped before the program (dropped_before_program).
    pub dropped_before_program: u64,
    /// Frames in no counter; frames or buffers counted twice; buffers lost.
    pub lost: u64,
    pub double: u64,
    pub leaks: u64,
    /// Ledger::check's lines.
    #[serde(default)]
    pub problems: Vec<String>,
    pub seconds: f64,
}

impl FaultRxReport {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// /proc/net/dev's rx and tx drop columns by interface.
pub fn parse_net_dev(text: &str) -> HashMap<String, (u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.split_once(':')?;
            let v: Vec<u64> = rest.split_whitespace().map(|w| w.parse().ok()).collect::<Option<_>>()?;
            // rx: bytes packets errs drop fifo frame compressed multicast;
            // tx: bytes packets errs drop ...
            (v.len() >= 12).then(|| (name.trim().to_string(), (v[3], v[11])))
        })
        .collect()
}

/// The drops of `dev` in the calling thread's namespace.
fn net_dev_drops(dev: &str) -> io::Result<(u64, u64)> {
    let t = std::fs::read_to_string("/proc/thread-self/net/dev")?;
    parse_net_dev(&t).remove(dev).ok_or_else(|| io::Error::other(format!("{dev} not in /proc/thread-self/net/dev")))
}

/// xsk_redirect (bpf/xsk_redirect.bpf.c) attached in native (driver)
/// mode: veth runs it in its NAPI poll. Detached on drop.
struct NativeProg {
    obj: Object,
    ifindex: i32,
    xsks: MapHandle,
    seen: MapHandle,
}

impl NativeProg {
    fn attach(ifindex: u32, redirect: Redirect) -> io::Result<NativeProg> {
        fn e(what: String) -> impl Fn(libbpf_rs::Error) -> io::Error {
            move |err| io::Error::other(format!("{what}: {err:#}"))
        }
        let (bytes, name) = redirect.obj();
        let obj = ObjectBuilder::default()
            .open_memory(bytes)
            .map_err(e(format!("opening {name}")))?
            .load()
            .map_err(e(format!("loading {name} (bpf_redirect_xsk() needs a kernel with kernel/patches/xsk-redirect-xsk)")))?;
        let map = |name: &str| -> io::Result<MapHandle> {
            let m = obj.maps().find(|m| m.name() == name).ok_or_else(|| io::Error::other(format!("no map {name}")))?;
            MapHandle::try_from(&m).map_err(e("map".into()))
        };
        let (xsks, seen) = (map("xsks")?, map("seen")?);
        let ifindex = ifindex as i32;
        {
            let prog = obj.progs().find(|p| p.name() == "xsk_redirect").ok_or_else(|| io::Error::other("no program xsk_redirect"))?;
            Xdp::new(prog.as_fd()).attach(ifindex, XdpFlags::DRV_MODE).map_err(e("bpf_xdp_attach(native mode)".into()))?;
        }
        Ok(NativeProg { obj, ifindex, xsks, seen })
    }

    fn insert(&self, fd: libc::c_int) -> io::Result<()> {
        self.xsks.update(&0u32.to_ne_bytes(), &(fd as u32).to_ne_bytes(), MapFlags::ANY).map_err(|e| io::Error::other(format!("xsks: {e:#}")))
    }

    fn counter(&self, k: u32) -> io::Result<u64> {
        let mut v = [0u8; 8];
        self.seen.lookup_into(&k.to_ne_bytes(), &mut v, MapFlags::ANY).map_err(|e| io::Error::other(format!("seen: {e:#}")))?;
        Ok(u64::from_ne_bytes(v))
    }
}

impl Drop for NativeProg {
    fn drop(&mut self) {
        let _ = self.xsks.delete(&0u32.to_ne_bytes());
        if let Some(prog) = self.obj.progs().find(|p| p.name() == "xsk_redirect") {
            let _ = Xdp::new(prog.as_fd()).detach(self.ifindex, XdpFlags::DRV_MODE);
        }
    }
}

/// Runs the campaign in a sandbox of its own, on a thread of its own.
pub fn run(o: FaultRxOpts) -> io::Result<FaultRxReport> {
    std::thread::spawn(move || {
        let sandbox = Sandbox::new()?;
        sandbox.enter()?;
        let r = run_in(&sandbox, &o);
        drop(sandbox);
        r
    })
    .join()
    .map_err(|_| io::Error::other("the campaign thread panicked (its sandbox was removed)"))?
}

fn run_in(sb: &Sandbox, o: &FaultRxOpts) -> io::Result<FaultRxReport> {
    let start = Instant::now();
    let mut r = Rng::new(o.seed);
    let (a, b) = (Sandbox::ifindex(&sb.a)?, Sandbox::ifindex(&sb.b)?);
    let prog = NativeProg::attach(b, o.redirect)?;
    let rx_size = [8, 16, FRAMES][r.below(3) as usize];
    let headroom = [0, 512][r.below(2) as usize];
    let x = Xsk::create(&XskConfig {
        ifindex: b,
        queue: 0,
        frames: FRAMES,
        frame_size: FRAME_SIZE,
        headroom,
        fill_size: FRAMES,
        comp_size: 4,
        rx_size,
        tx_size: 0,
        need_wakeup: false,
        sg: false,
    })?;
    prog.insert(x.fd)?;
    let base = Counters::read(&prog, &x, sb)?;
    let mut rig = Rig {
        x,
        prog,
        sb,
        injector: Injector::new(a)?,
        base,
        pool: (0..FRAMES as u64).map(|f| f * FRAME_SIZE as u64).collect(),
        held: BTreeSet::new(),
        sent_ok: BTreeSet::new(),
        got: BTreeSet::new(),
        ledger: Ledger::default(),
        tag: TAG0,
    };
    let mut rep = FaultRxReport { kernel: release(), rounds: o.rounds, seed: o.seed, fill_size: FRAMES, rx_size, headroom, redirect: o.redirect, ..Default::default() };
    let knobs = if o.inject { Some(Knobs::atomic()?) } else { None };
    rig.fill(FRAMES / 2 + r.below(FRAMES / 2 + 1));
    for i in 0..o.rounds {
        let (slab, page) = rig.round(&mut r, o.inject)?;
        rep.injected_slab += slab;
        rep.injected_page += page;
        if o.progress && (i + 1) % 100 == 0 {
            eprintln!("faults-rx: {}/{} rounds, {} injected", i + 1, o.rounds, rep.injected_slab + rep.injected_page);
        }
    }
    drop(knobs);
    rig.flush()?;
    rig.close_ledger()?;
    rep.injected = rep.injected_slab + rep.injected_page;
    rep.dropped_before_program = rig.ledger.dropped_before_program().unwrap_or(0);
    let l = &rig.ledger;
    rep.lost = l.unaccounted().max(0) as u64 + l.redirect_unaccounted().max(0) as u64;
    rep.double = (-l.unaccounted()).max(0) as u64 + (-l.redirect_unaccounted()).max(0) as u64 + (l.tags_twice.len() + l.tags_unknown.len() + l.buffers_twice.len()) as u64;
    rep.leaks = l.buffers_lost.len() as u64;
    rep.problems = l.check();
    if o.redirect == Redirect::Xsk {
        (rep.fast_path, rep.fallback) = (rig.prog.counter(2)?, rig.prog.counter(3)?);
        if rep.fast_path == 0 {
            rep.problems.push(format!(
                "bpf_redirect_xsk() answered XDP_REDIRECT_XSK for no frame ({} fell back to XDP_REDIRECT): the campaign never reached the driver's fast path",
                rep.fallback
            ));
        }
    }
    rep.ledger = rig.ledger;
    rep.seconds = start.elapsed().as_secs_f64();
    Ok(rep)
}

/// The counters the ledger reads, as absolute values.
#[derive(Clone, Copy, Default)]
struct Counters {
    veth_rx_dropped: u64,
    veth_tx_dropped: u64,
    redirected: u64,
    not_redirected: u64,
    on_rx_ring: u64,
    rx_dropped: u64,
    rx_ring_full: u64,
    fill_empty: u64,
}

impl Counters {
    fn read(prog: &NativeProg, x: &Xsk, sb: &Sandbox) -> io::Result<Counters> {
        let s = x.stats()?;
        Ok(Counters {
            veth_rx_dropped: net_dev_drops(&sb.b)?.0,
            veth_tx_dropped: net_dev_drops(&sb.a)?.1,
            redirected: prog.counter(0)?,
            not_redirected: prog.counter(1)?,
            on_rx_ring: x.rx.as_ref().map_or(0, |r| r.ring().producer().load(Acquire)) as u64,
            rx_dropped: s.rx_dropped,
            rx_ring_full: s.rx_ring_full,
            fill_empty: s.rx_fill_ring_empty_descs,
        })
    }
}

struct Rig<'s> {
    x: Xsk,
    prog: NativeProg,
    sb: &'s Sandbox,
    injector: Injector,
    base: Counters,
    /// Buffers the application holds, and those the kernel holds.
    pool: Vec<u64>,
    held: BTreeSet<u64>,
    /// Tags sent successfully, and read from the RX ring.
    sent_ok: BTreeSet<u32>,
    got: BTreeSet<u32>,
    ledger: Ledger,
    tag: u32,
}

impl Rig<'_> {
    /// Counters since the campaign began, into the ledger.
    fn update(&mut self) -> io::Result<()> {
        let c = Counters::read(&self.prog, &self.x, self.sb)?;
        let b = self.base;
        let l = &mut self.ledger;
        l.veth_rx_dropped = c.veth_rx_dropped - b.veth_rx_dropped;
        l.veth_tx_dropped = c.veth_tx_dropped - b.veth_tx_dropped;
        l.redirected = c.redirected - b.redirected;
        l.not_redirected = c.not_redirected - b.not_redirected;
        l.on_rx_ring = (c.on_rx_ring as u32).wrapping_sub(b.on_rx_ring as u32) as u64;
        l.rx_dropped = c.rx_dropped - b.rx_dropped;
        l.rx_ring_full = c.rx_ring_full - b.rx_ring_full;
        l.rx_fill_ring_empty_descs = c.fill_empty - b.fill_empty;
        Ok(())
    }

    /// Every frame sent is in a counter (or SETTLE passed).
    fn settle(&mut self) -> io::Result<()> {
        let start = Instant::now();
        loop {
            self.update()?;
            let l = &self.ledger;
            if (l.unaccounted() <= 0 && l.redirect_unaccounted() <= 0) || start.elapsed() > SETTLE {
                return Ok(());
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// Up to `n` buffers the application holds onto the fill ring.
    fn fill(&mut self, n: u32) {
        let n = n.min(self.pool.len() as u32);
        let Some(idx) = self.x.fill.reserve(n) else { return };
        for k in 0..n {
            let addr = self.pool.pop().expect("fill: the pool holds n buffers");
            self.x.fill.write(idx.wrapping_add(k), addr);
            self.held.insert(addr);
        }
        self.x.fill.submit(n);
        self.ledger.buffers_given += n as u64;
    }

    /// Up to `n` descriptors from the RX ring: each frame's tag and
    /// buffer checked, the buffer back to the application.
    fn consume(&mut self, n: u32) -> u32 {
        let Some(rx) = self.x.rx.as_mut() else { return 0 };
        let (m, idx) = rx.peek(n);
        for k in 0..m {
            let d: XdpDesc = rx.read(idx.wrapping_add(k));
            let bytes = self.x.umem.read(d.addr, d.len.min(18));
            let tag = (bytes.len() >= 18).then(|| u32::from_le_bytes([bytes[14], bytes[15], bytes[16], bytes[17]]));
            match tag {
                Some(t) if !self.sent_ok.contains(&t) => self.ledger.tags_unknown.push(t),
                Some(t) if !self.got.insert(t) => self.ledger.tags_twice.push(t),
                None => self.ledger.tags_unknown.push(u32::MAX),
                _ => {}
            }
            let chunk = d.addr & !(FRAME_SIZE as u64 - 1);
            if self.held.remove(&chunk) {
                self.pool.push(chunk);
                self.ledger.buffers_returned += 1;
            } else {
                self.ledger.buffers_twice.push(chunk);
            }
        }
        rx.release(m);
        m
    }

    /// `n` frames from the peer, each given an action.
    fn send(&mut self, frames: &[(u32, XdpAct)]) {
        for &(len, act) in frames {
            let tag = self.tag;
            self.tag += 1;
            self.ledger.sent += 1;
            match self.injector.send(&frame(len, act.ethertype(), tag)) {
                Ok(()) => {
                    self.sent_ok.insert(tag);
                }
                Err(e) => *self.ledger.send_errors.entry(errno_name(e.raw_os_error().unwrap_or(0))).or_default() += 1,
            }
        }
    }

    /// Refill some, arm, a burst of frames, wait until each is counted,
    /// disarm, read some of the RX ring. The faults that fired.
    fn round(&mut self, r: &mut Rng, inject: bool) -> io::Result<(u64, u64)> {
        if r.chance(3, 4) {
            let n = r.below(self.pool.len() as u32 + 1);
            self.fill(n);
        }
        let frames: Vec<(u32, XdpAct)> = (0..r.one_to(24))
            .map(|_| {
                let len = if r.chance(1, 8) { 1200 + r.below(MAX_LEN - 1200 + 1) } else { 60 + r.below(1141) };
                // no XDP_PASS: the stack, with no handler for the
                // EtherType, would count the frame in the same rx_dropped
                // as veth's own drops
                let act = if r.chance(1, 8) { XdpAct::Drop } else { XdpAct::Redirect };
                (len, act)
            })
            .collect();
        let armed = if inject {
            let (p, ts, tp) = (5 + r.below(46), r.below(5), r.below(5));
            Some((Armed::arm(FAILSLAB, p, ts)?, Armed::arm(FAIL_PAGE_ALLOC, p, tp)?))
        } else {
            None
        };
        self.send(&frames);
        let settled = self.settle();
        let fired = match armed {
            Some((s, p)) => (s.disarm()?, p.disarm()?),
            None => (0, 0),
        };
        settled?;
        let n = r.below(self.x.rx.as_ref().map_or(0, |x| x.ring().size()) + 1);
        self.consume(n);
        Ok(fired)
    }

    /// Faults off: the RX ring read, then frames sent until every buffer
    /// the kernel holds (on the fill ring or its free list) is back, and
    /// one more, which must find no buffer.
    fn flush(&mut self) -> io::Result<()> {
        let rx_size = self.x.rx.as_ref().map_or(0, |x| x.ring().size());
        loop {
            self.settle()?;
            while self.consume(u32::MAX) > 0 {}
            if self.held.is_empty() {
                break;
            }
            let before = self.ledger.buffers_returned;
            let n = (self.held.len() as u32).min(rx_size);
            self.send(&vec![(60, XdpAct::Redirect); n as usize]);
            self.settle()?;
            while self.consume(u32::MAX) > 0 {}
            if self.ledger.buffers_returned == before {
                break;
            }
        }
        self.ledger.buffers_lost = self.held.iter().copied().collect();
        // the kernel holds none: this one finds the fill ring empty
        self.send(&[(60, XdpAct::Redirect)]);
        self.settle()?;
        while self.consume(u32::MAX) > 0 {}
        Ok(())
    }

    /// The last counters, and the tags that never reached the RX ring.
    fn close_ledger(&mut self) -> io::Result<()> {
        self.update()?;
        self.ledger.tags_missing_sample = self.sent_ok.difference(&self.got).take(16).copied().collect();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn balanced() -> Ledger {
        Ledger {
            sent: 100,
            send_errors: [("ENOBUFS".to_string(), 2)].into(),
            veth_rx_dropped: 9,
            veth_tx_dropped: 2,
            redirected: 70,
            not_redirected: 25,
            on_rx_ring: 64,
            rx_dropped: 4,
            rx_ring_full: 2,
            buffers_given: 64,
            buffers_returned: 64,
            ..Default::default()
        }
    }

    #[test]
    fn a_balanced_ledger_passes() {
        let l = balanced();
        assert_eq!(l.dropped_before_program(), Some(3));
        assert_eq!((l.unaccounted(), l.redirect_unaccounted()), (0, 0));
        assert_eq!(l.check(), Vec::<String>::new());
    }

    #[test]
    fn a_frame_in_no_counter_fails_naming_the_frames() {
        let mut l = balanced();
        l.not_redirected -= 1;
        l.tags_missing_sample = vec![2_000_007, 2_000_042];
        let p = l.check();
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("1 frames in no counter: 100 sent = 2 refused by sendto + 3 dropped before the program"), "{p:?}");
        assert!(p[0].contains("tags 2000007, 2000042"), "{p:?}");
    }

    #[test]
    fn redirected_frames_and_buffers_are_checked_too() {
        let mut l = balanced();
        l.on_rx_ring += 1;
        l.redirected += 1;
        l.not_redirected -= 1;
        assert_eq!(l.check(), Vec::<String>::new());
        l.on_rx_ring -= 2;
        l.tags_twice = vec![2_000_003];
        l.buffers_lost = vec![0x1000, 0x3000];
        let p = l.check();
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("2 redirected frames neither on the RX ring nor in a socket counter"), "{p:?}");
        assert!(p[1].contains("on the RX ring twice: tags 2000003"), "{p:?}");
        assert!(p[2].contains("2 of 64 fill-ring buffers never came back: 0x1000, 0x3000"), "{p:?}");
        // veth counting fewer drops than the socket: frames in no counter
        let mut l = balanced();
        l.veth_rx_dropped = 5;
        let p = l.check();
        assert!(p[0].contains("fewer than the socket's 4 rx_dropped + 2 rx_ring_full"), "{p:?}");
        assert!(p[1].starts_with("4 frames in no counter"), "{p:?}");
        // more: frames counted twice
        l.veth_rx_dropped = 12;
        let p = l.check();
        assert!(p[0].starts_with("3 frames counted twice"), "{p:?}");
    }

    #[test]
    fn net_dev_columns() {
        let t = "Inter-|   Receive                                                |  Transmit\n \
face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    \
lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n\
rl9n0b:  123456     100    0    7    0     0          0         0        0       0    0    3    0     0       0          0\n";
        let m = parse_net_dev(t);
        assert_eq!(m["rl9n0b"], (7, 3));
        assert_eq!(m["lo"], (0, 0));
        assert_eq!(m.len(), 2);
    }
}
