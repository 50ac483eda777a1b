//! `ringlab devmem`: the devmem TCP receiver of the devmem-autorelease
//! series, held step by step against model::devmem (Lifetime mode).
//!
//! Each round binds a fresh udmabuf to RX queue 0 of a netdevsim device
//! (the VM's test-only devmem RX path), opens `socks` TCP connections to
//! it from a peer netdevsim in another namespace, and draws a seeded
//! sequence: sends (each received in full with MSG_SOCK_DEVMEM, every
//! frag's bytes checked in the dma-buf), SO_DEVMEM_DONTNEED of tokens held,
//! freed already, or never given, then socket closes and the unbind in a
//! random order with more DONTNEEDs between them. The model answers each
//! step first: the token each frag must carry, the frags each DONTNEED
//! must free, whether a net_iov may be handed out at all. At the end the
//! binding must be freed in both: the kernel lists no page pool of it.

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use ringlab_model::devmem::Mode;
use ringlab_model::rng::Rng;

use super::doc::{DevmemDoc, LiveTrace, ModeRule, ModeRun};
use super::genl::{self, BindError};
use super::net::Net;
use super::oracle::{Divergence, Oracle};
use super::recv;
use super::udmabuf::Udmabuf;
use crate::failnth::{FailNth, Knobs};

const PAGE: u32 = 4096;
/// The most tokens one release names in the round TLC checks.
const TRACE_COUNT: u32 = 4;
/// How long a send may take to arrive, and a binding to be freed.
const WAIT: Duration = Duration::from_secs(10);

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeArg {
    /// autorelease on: the socket's xarray (6.12's only mode)
    Xarray,
    /// autorelease off: the binding's net_iov array (the series)
    Array,
}

#[derive(Args, Clone, Debug)]
pub struct DevmemArgs {
    /// Token modes to run, each its own rounds
    #[arg(long, value_delimiter = ',', default_values_t = [ModeArg::Xarray, ModeArg::Array], value_enum)]
    pub modes: Vec<ModeArg>,
    /// Rounds per mode (each a fresh binding)
    #[arg(long, default_value_t = 10)]
    pub rounds: u32,
    /// Steps per round before the teardown
    #[arg(long, default_value_t = 40)]
    pub steps: u32,
    /// Pages of the dma-buf (net_iovs of the binding; at most 255)
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u8).range(8..))]
    pub niovs: u8,
    /// TCP connections per round
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub socks: u8,
    /// Seed (printed; the same seed replays the same steps)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Percentage of recvmsg and SO_DEVMEM_DONTNEED calls made with an allocation fault armed (fail-nth, sleeping allocations failable): the kernel may refuse or cut such a call short, but every net_iov must still come back
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub faults: u32,
    /// Also check the one-mode rule on a second device (needs the series)
    #[arg(long)]
    pub mode_rule: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

impl ModeArg {
    fn mode(self) -> Mode {
        match self {
            ModeArg::Xarray => Mode::Xarray,
            ModeArg::Array => Mode::Array,
        }
    }

    /// The attribute that asks for the mode.
    fn autorelease(self) -> u8 {
        match self {
            ModeArg::Xarray => 1,
            ModeArg::Array => 0,
        }
    }
}

pub fn main(a: &DevmemArgs) -> Result<bool, String> {
    let doc = run(a).map_err(|e| format!("devmem: {e}"))?;
    let problems = doc.problems();
    if a.json {
        println!("{}", serde_json::to_string(&doc).map_err(|e| e.to_string())?);
    } else {
        println!("devmem on {} (seed {})", doc.kernel, doc.seed);
        for r in &doc.runs {
            match &r.skipped {
                Some(why) => println!("  {:6}: SKIP: {why}", r.mode),
                None => print!(
                    "  {:6}: {} rounds, {} sends, {} frags ({} bytes), {} DONTNEED freeing {}, {} bindings freed, {} divergences{} ({:.1} s)",
                    r.mode,
                    r.rounds,
                    r.sends,
                    r.frags,
                    r.bytes,
                    r.dontneeds,
                    r.freed,
                    r.released,
                    r.divergences.len(),
                    if r.fault_pct > 0 { format!(", {} allocation faults fired ({}% of calls armed)", r.faults, r.fault_pct) } else { String::new() },
                    r.seconds
                ),
            }
            match r.zero_token {
                Some(t) => println!("; after DONTNEED of xarray id 0 the next token is {t}{}", if t == 0 { " (id 0 handed out)" } else { "" }),
                None if r.skipped.is_none() => println!(),
                None => {}
            }
        }
        if let Some(m) = &doc.mode_rule {
            println!(
                "  mode rule: other mode while bound {}, same mode {}, other mode after unbind {}",
                m.other_mode_while_bound, m.same_mode_while_bound, m.other_mode_after_unbind
            );
        }
        for p in &problems {
            println!("problem: {p}");
        }
    }
    Ok(problems.is_empty())
}

pub fn run(a: &DevmemArgs) -> Result<DevmemDoc, String> {
    let net = Net::new(2).map_err(|e| e.to_string())?;
    let mut doc = DevmemDoc { kernel: uname_r(), seed: a.seed, ..Default::default() };
    for (i, &m) in a.modes.iter().enumerate() {
        doc.runs.push(run_mode(a, &net, m, a.seed.wrapping_add(i as u64 * 1_000_003))?);
    }
    if a.mode_rule {
        doc.mode_rule = Some(mode_rule(&net)?);
    }
    Ok(doc)
}

fn uname_r() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string()).unwrap_or_default()
}

/// Binds `buf` to queue 0 of the receiving device asking for `m`, and
/// says whether the attribute went: a kernel without the series refuses
/// it (EINVAL), and its only mode, xarray, needs none.
fn bind(net: &Net, buf: &Udmabuf, m: ModeArg) -> Result<(genl::Binding, Option<u8>), BindError> {
    let with = |attr| net.in_b(|| genl::bind_rx(net.ifindex_b(), buf.dmabuf_fd(), &[0], attr));
    match with(Some(m.autorelease())) {
        Err(e) if m == ModeArg::Xarray && e.errno() == Some(libc::EINVAL) => with(None).map(|b| (b, None)),
        r => r.map(|b| (b, Some(m.autorelease()))),
    }
}

fn run_mode(a: &DevmemArgs, net: &Net, m: ModeArg, seed: u64) -> Result<ModeRun, String> {
    let t0 = Instant::now();
    let mut run = ModeRun { mode: m.mode().id().into(), autorelease: Some(m.autorelease()), fault_pct: a.faults, ..Default::default() };
    // sleeping allocations failable while faults are armed; put back on drop
    let _knobs = if a.faults > 0 { Some(Knobs::set().map_err(|e| format!("fault knobs: {e}"))?) } else { None };
    for round in 0..a.rounds {
        let buf = Udmabuf::create(usize::from(a.niovs)).map_err(|e| e.to_string())?;
        let binding = match bind(net, &buf, m) {
            Ok((b, attr)) => {
                run.autorelease = attr;
                b
            }
            Err(e) if round == 0 => {
                run.skipped = Some(format!("the kernel refused the binding: {e}"));
                return Ok(run);
            }
            Err(e) => return Err(format!("round {round}: {e}")),
        };
        // the first round is the one TLC checks: its releases name at
        // most TRACE_COUNT tokens, so that the spec's MaxCount stays small
        let traced = round == 0;
        let mut r = Round::new(a, net, &buf, binding, m.mode(), seed.wrapping_add(u64::from(round)), traced)?;
        if a.faults > 0 {
            r.fail = Some((FailNth::open().map_err(|e| format!("fail-nth: {e}"))?, a.faults));
        }
        let res = r.play(a.steps);
        run.rounds += 1;
        run.sends += r.sends;
        run.frags += r.frags;
        run.bytes += r.bytes;
        run.dontneeds += r.dontneeds;
        run.freed += r.freed;
        run.corrupt += r.corrupt;
        run.faults += r.faults;
        if let Some(states) = r.oracle.states.take() {
            run.trace = Some(LiveTrace { config: r.oracle.config().clone(), states, chain: None });
        }
        match res {
            Ok(()) => run.released += 1,
            Err(d) => run.divergences.push(format!("seed {} round {round}: {d}", seed.wrapping_add(u64::from(round)))),
        }
    }
    if m == ModeArg::Xarray {
        run.zero_token = Some(zero_token(net, m)?);
    }
    run.seconds = t0.elapsed().as_secs_f64();
    Ok(run)
}

/// One connection: the sender's end, the receiver's, and the stream
/// offsets each has reached.
struct Conn {
    tx: Option<OwnedFd>,
    rx: Option<OwnedFd>,
    sent: u64,
    got: u64,
    /// Tokens the application was given on this socket.
    tokens: Vec<u32>,
}

struct Round<'a> {
    net: &'a Net,
    buf: &'a Udmabuf,
    binding: Option<genl::Binding>,
    binding_id: u32,
    oracle: Oracle,
    conns: Vec<Conn>,
    rng: Rng,
    niovs: u32,
    sends: u64,
    frags: u64,
    bytes: u64,
    dontneeds: u64,
    freed: u64,
    corrupt: u64,
    /// This thread's fail-nth and the percentage of calls to arm it for.
    fail: Option<(FailNth, u32)>,
    faults: u64,
}

/// The byte at `off` of connection `s`'s stream.
fn pattern(s: usize, off: u64) -> u8 {
    (off.wrapping_mul(131).wrapping_add(s as u64 * 71) % 251) as u8
}

impl<'a> Round<'a> {
    fn new(a: &DevmemArgs, net: &'a Net, buf: &'a Udmabuf, binding: genl::Binding, mode: Mode, seed: u64, traced: bool) -> Result<Round<'a>, String> {
        let max_count = if traced { TRACE_COUNT } else { u32::MAX };
        let oracle = Oracle::bound(mode, a.socks, a.niovs, max_count, traced).map_err(|d| d.to_string())?;
        let mut conns = Vec::new();
        for _ in 0..a.socks {
            let (tx, rx) = net.connect().map_err(|e| e.to_string())?;
            conns.push(Conn { tx: Some(tx), rx: Some(rx), sent: 0, got: 0, tokens: Vec::new() });
        }
        Ok(Round {
            net,
            buf,
            binding_id: binding.id(),
            binding: Some(binding),
            oracle,
            conns,
            rng: Rng::new(seed),
            niovs: u32::from(a.niovs),
            sends: 0,
            frags: 0,
            bytes: 0,
            dontneeds: 0,
            freed: 0,
            corrupt: 0,
            fail: None,
            faults: 0,
        })
    }

    /// The steps, the teardown, then the binding freed in the model and
    /// in the kernel (one that is not is a divergence).
    fn play(&mut self, steps: u32) -> Result<(), Divergence> {
        for _ in 0..steps {
            match self.rng.below(100) {
                0..=54 => {
                    let s = self.rng.below(self.conns.len() as u32) as usize;
                    let len = self.rng.one_to(3 * PAGE);
                    self.send(s, len)?;
                }
                55..=89 => self.random_dontneed()?,
                _ => self.release_all()?,
            }
        }
        self.teardown()?;
        self.freed_in_kernel()
    }

    /// Arms an allocation fault for the next call, at the run's rate:
    /// the first, second or third failable call from now.
    fn arm(&mut self) -> Result<bool, Divergence> {
        let Some((f, pct)) = &self.fail else { return Ok(false) };
        if self.rng.below(100) >= *pct {
            return Ok(false);
        }
        let n = self.rng.one_to(3);
        f.arm(n).map_err(|e| Divergence(format!("arming fail-nth: {e}")))?;
        Ok(true)
    }

    /// Whether the fault armed for the call just made fired (disarmed if not).
    fn fired(&mut self, armed: bool) -> Result<bool, Divergence> {
        let Some((f, _)) = &self.fail.as_ref().filter(|_| armed) else { return Ok(false) };
        let hit = f.fired().map_err(|e| Divergence(format!("reading fail-nth: {e}")))?;
        self.faults += u64::from(hit);
        Ok(hit)
    }

    fn open(&self) -> Vec<usize> {
        (0..self.conns.len()).filter(|&s| self.conns[s].rx.is_some()).collect()
    }

    /// Sends `len` bytes on connection `s` and receives them all. Room is
    /// made first: a sender whose data finds no free net_iov would stall.
    fn send(&mut self, s: usize, len: u32) -> Result<(), Divergence> {
        let pages = len.div_ceil(PAGE) as usize + 1;
        if self.oracle.out_of_pool() + pages > self.niovs as usize {
            self.release_all()?;
        }
        let c = &mut self.conns[s];
        let data: Vec<u8> = (0..u64::from(len)).map(|i| pattern(s, c.sent + i)).collect();
        let tx = c.tx.as_ref().expect("an open connection has its sender").as_raw_fd();
        write_all(tx, &data).map_err(|e| Divergence(format!("send of {len} bytes on connection {s}: {e}")))?;
        c.sent += u64::from(len);
        self.sends += 1;
        let deadline = Instant::now() + WAIT;
        while self.conns[s].got < self.conns[s].sent {
            self.receive(s, deadline)?;
        }
        Ok(())
    }

    /// One recvmsg(MSG_SOCK_DEVMEM) on connection `s`, each frag held
    /// against the model and its bytes against what was sent.
    fn receive(&mut self, s: usize, deadline: Instant) -> Result<(), Divergence> {
        let fd = self.conns[s].rx.as_ref().expect("open").as_raw_fd();
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !wait_readable(fd, left).map_err(|e| Divergence(format!("poll: {e}")))? {
            let c = &self.conns[s];
            return Err(Divergence(format!(
                "connection {s}: {} of {} bytes sent never arrived within {} s",
                c.sent - c.got,
                c.sent,
                WAIT.as_secs()
            )));
        }
        let mut linear = vec![0u8; 64 * 1024];
        let armed = self.arm()?;
        let r = recv::recv_devmem(fd, &mut linear);
        let hit = self.fired(armed)?;
        let r = match r {
            // a failed allocation gave no token: the frags stay queued
            Err(e) if hit && e.kind() == std::io::ErrorKind::OutOfMemory => return Ok(()),
            r => r.map_err(|e| Divergence(format!("recvmsg(MSG_SOCK_DEVMEM) on connection {s}: {e}")))?,
        };
        if r.eof {
            return Err(Divergence(format!("connection {s} ended early")));
        }
        // linear bytes (none from the test device) are checked in place
        for (i, &b) in linear[..r.linear].iter().enumerate() {
            if b != pattern(s, self.conns[s].got + i as u64) {
                self.corrupt += 1;
                break;
            }
        }
        self.conns[s].got += r.linear as u64;
        for f in &r.frags {
            if f.dmabuf_id != self.binding_id {
                return Err(Divergence(format!("a frag names dma-buf binding {}, not {}", f.dmabuf_id, self.binding_id)));
            }
            let niov = (f.offset / u64::from(PAGE)) as u32;
            let want = self.oracle.received(s as u8, niov)?;
            if f.token != want {
                return Err(Divergence(format!(
                    "connection {s}: net_iov {niov} came with token {}, the model gives {want} (this recvmsg: {} linear bytes, frags {:?}; the model's last steps: {})",
                    f.token,
                    r.linear,
                    r.frags.iter().map(|f| (f.offset, f.size, f.token)).collect::<Vec<_>>(),
                    self.oracle.trace[self.oracle.trace.len().saturating_sub(8)..].join(" ")
                )));
            }
            let got = self.conns[s].got;
            match self.buf.bytes(f.offset as usize, f.size as usize) {
                Ok(bytes) if bytes.iter().enumerate().all(|(i, &b)| b == pattern(s, got + i as u64)) => {}
                _ => self.corrupt += 1,
            }
            self.conns[s].got += u64::from(f.size);
            self.conns[s].tokens.push(f.token);
            self.frags += 1;
            self.bytes += u64::from(f.size);
        }
        Ok(())
    }

    /// SO_DEVMEM_DONTNEED of one range on an open socket, held against
    /// the model's count. The kernel refusing (an error) matches a model
    /// that refuses.
    fn dontneed(&mut self, s: usize, start: u32, count: u32) -> Result<(), Divergence> {
        let fd = self.conns[s].rx.as_ref().expect("open").as_raw_fd();
        let before = self.oracle.clone();
        let want = self.oracle.dontneed(s as u8, start, count)?;
        let armed = self.arm()?;
        let got = recv::dontneed(fd, &[(start, count)]);
        let hit = self.fired(armed)?;
        self.dontneeds += 1;
        if hit && got.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::OutOfMemory) {
            // the tokens could not be copied in: nothing was released
            self.oracle = before;
            return Ok(());
        }
        match (got, want) {
            (Ok(n), Some(w)) if n == w => {
                self.freed += u64::from(n);
                Ok(())
            }
            (Err(_), None) => Ok(()),
            (got, want) => Err(Divergence(format!(
                "SO_DEVMEM_DONTNEED {{{start}, {count}}} on connection {s}: the kernel {}, the model {}",
                match got {
                    Ok(n) => format!("freed {n}"),
                    Err(e) => format!("failed ({e})"),
                },
                match want {
                    Some(w) => format!("frees {w}"),
                    None => "refuses the call".into(),
                }
            ))),
        }
    }

    /// A DONTNEED of a token held (often), one freed already or never
    /// given, sometimes over a range past the per-call limit.
    fn random_dontneed(&mut self) -> Result<(), Divergence> {
        let open = self.open();
        if open.is_empty() {
            return Ok(());
        }
        let s = open[self.rng.below(open.len() as u32) as usize];
        let toks = &self.conns[s].tokens;
        let mut start = if !toks.is_empty() && self.rng.below(4) != 0 {
            toks[self.rng.below(toks.len() as u32) as usize]
        } else {
            self.rng.below(self.niovs + 2)
        };
        // xarray ids start at 1 (XA_FLAGS_ALLOC1), but an erase of id 0
        // frees the slot the xarray keeps busy, and the next recvmsg hands
        // out token 0, which the model has no name for: see zero_token()
        if start == 0 && self.oracle.mode() == Mode::Xarray {
            start = 1;
        }
        let count = match self.rng.below(10) {
            0 if self.oracle.states.is_none() => 1024 + self.rng.one_to(1024),
            0..=3 => self.rng.one_to(TRACE_COUNT),
            _ => 1,
        };
        self.dontneed(s, start, count)
    }

    /// Every token each open socket was given, returned one by one.
    fn release_all(&mut self) -> Result<(), Divergence> {
        for s in self.open() {
            let toks = std::mem::take(&mut self.conns[s].tokens);
            for t in toks {
                self.dontneed(s, t, 1)?;
            }
        }
        Ok(())
    }

    /// Socket closes and the unbind in a random order, DONTNEEDs between.
    fn teardown(&mut self) -> Result<(), Divergence> {
        let mut order: Vec<Option<usize>> = (0..self.conns.len()).map(Some).collect();
        order.push(None);
        for i in (1..order.len()).rev() {
            order.swap(i, self.rng.below(i as u32 + 1) as usize);
        }
        for step in order {
            for _ in 0..self.rng.below(3) {
                self.random_dontneed()?;
            }
            match step {
                Some(s) => {
                    self.oracle.close(s as u8)?;
                    let c = &mut self.conns[s];
                    c.rx = None;
                    c.tx = None;
                    c.tokens.clear();
                }
                None => {
                    self.oracle.unbind()?;
                    self.binding = None;
                }
            }
            self.oracle.settle()?;
        }
        Ok(())
    }

    /// Waits for the kernel to free the binding: no page pool names its
    /// dma-buf any more. The model must have freed it too.
    fn freed_in_kernel(&mut self) -> Result<(), Divergence> {
        self.oracle.settle()?;
        if !self.oracle.binding_freed() {
            return Err(Divergence("the model still holds the binding after every socket and the netlink socket closed".into()));
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let pools = self.net.in_b(genl::page_pools).map_err(|e| Divergence(format!("page-pool-get: {e}")))?;
            let ours: Vec<_> = pools.iter().filter(|p| p.dmabuf == Some(self.binding_id)).collect();
            if ours.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let held: Vec<String> = ours.iter().map(|p| format!("pool {} inflight {:?}", p.id, p.inflight)).collect();
                return Err(Divergence(format!(
                    "binding {} is not freed {} s after its last user went: {}",
                    self.binding_id,
                    WAIT.as_secs(),
                    held.join(", ")
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The token of a frag received after SO_DEVMEM_DONTNEED of xarray id 0
/// on a socket holding token 1. The xarray is XA_FLAGS_ALLOC1: id 0 is
/// kept busy and never allocated, so 2 is the answer; but once the xarray
/// has a node, the DONTNEED's __xa_erase() of index 0 marks it free, and
/// then it is 0.
fn zero_token(net: &Net, m: ModeArg) -> Result<u32, String> {
    let err = |e: String| format!("token 0 check: {e}");
    let buf = Udmabuf::create(8).map_err(|e| err(e.to_string()))?;
    let (_binding, _) = bind(net, &buf, m).map_err(|e| err(e.to_string()))?;
    let (tx, rx) = net.connect().map_err(|e| err(e.to_string()))?;
    let first = send_one(tx.as_raw_fd(), rx.as_raw_fd()).map_err(err)?;
    if first != 1 {
        return Err(err(format!("the first frag on a new socket got token {first}, not 1")));
    }
    let freed = recv::dontneed(rx.as_raw_fd(), &[(0, 1)]).map_err(|e| err(e.to_string()))?;
    if freed != 0 {
        return Err(err(format!("DONTNEED of id 0 freed {freed}")));
    }
    send_one(tx.as_raw_fd(), rx.as_raw_fd()).map_err(err)
}

/// Sends 100 bytes and returns the token of the frag they arrive in.
fn send_one(tx: i32, rx: i32) -> Result<u32, String> {
    write_all(tx, &[7u8; 100]).map_err(|e| format!("send: {e}"))?;
    let deadline = Instant::now() + WAIT;
    let mut linear = vec![0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !wait_readable(rx, left).map_err(|e| e.to_string())? {
            return Err("100 bytes sent never arrived".into());
        }
        let r = recv::recv_devmem(rx, &mut linear).map_err(|e| e.to_string())?;
        if let Some(f) = r.frags.first() {
            return Ok(f.token);
        }
        if r.eof {
            return Err("the connection ended".into());
        }
    }
}

/// Whether `fd` has something to read within `t`.
fn wait_readable(fd: i32, t: Duration) -> std::io::Result<bool> {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    let ms = t.as_millis().min(i32::MAX as u128) as i32;
    loop {
        // Safety: one valid pollfd.
        match unsafe { libc::poll(&mut p, 1, ms) } {
            n if n >= 0 => return Ok(n > 0),
            _ => {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

fn write_all(fd: i32, mut data: &[u8]) -> std::io::Result<()> {
    while !data.is_empty() {
        // Safety: a valid buffer of data.len() bytes.
        let n = unsafe { libc::send(fd, data.as_ptr().cast(), data.len(), libc::MSG_NOSIGNAL) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        data = &data[n as usize..];
    }
    Ok(())
}

/// The one-mode rule: while a binding of one mode lives on the receiving
/// device, a binding of the other mode on the second device is refused,
/// one of the same mode is not; once none lives, the other mode binds.
fn mode_rule(net: &Net) -> Result<ModeRule, String> {
    let answer = |r: Result<genl::Binding, BindError>| match r {
        Ok(_) => "bound".to_string(),
        Err(e) => e.errno().map(crate::faults::errno_name).unwrap_or_else(|| e.to_string()),
    };
    let mk = || Udmabuf::create(8).map_err(|e| e.to_string());
    let (b1, b2, b3, b4) = (mk()?, mk()?, mk()?, mk()?);
    let (first, _) = bind(net, &b1, ModeArg::Array).map_err(|e| format!("mode rule: the first binding: {e}"))?;
    let other = answer(net.in_b(|| genl::bind_rx(net.ifindex_b2(), b2.dmabuf_fd(), &[0], Some(ModeArg::Xarray.autorelease()))));
    let same = answer(net.in_b(|| genl::bind_rx(net.ifindex_b2(), b3.dmabuf_fd(), &[0], Some(ModeArg::Array.autorelease()))));
    drop(first);
    // the mode is free once the bindings are freed (a work item)
    let deadline = Instant::now() + WAIT;
    let after = loop {
        let r = answer(net.in_b(|| genl::bind_rx(net.ifindex_b2(), b4.dmabuf_fd(), &[0], Some(ModeArg::Xarray.autorelease()))));
        if r != "EBUSY" || Instant::now() >= deadline {
            break r;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ok(ModeRule { other_mode_while_bound: other, same_mode_while_bound: same, other_mode_after_unbind: after })
}
