//! Runs a scenario on the live kernel, one observation per operation, each
//! taken at a quiescent point: after a sendto, once every TX skb has been
//! freed (SO_MEMINFO wmem_alloc 0: its destructor produced the completion);
//! after frames were sent toward the RX socket, once the XDP program has
//! seen all of them and each is on the RX ring or in a drop counter. A
//! multi-buffer packet still being built keeps its skb charged to the
//! socket (xs->skb) until its last descriptor, so with XDP_USE_SG the TX
//! side is quiescent once wmem_alloc stops changing.

use std::io;
use std::sync::atomic::Ordering::Acquire;
use std::time::{Duration, Instant};

use ringlab_model::afxdp::{Obs, Op, RingIdx, Scenario, Setup, Stats, TxDesc, XdpAct, ETH_P_RINGLAB, ETH_P_TXONLY, XSKMAP_SECOND};
use ringlab_ring::{RingMem, UserCons, XdpDesc};

use crate::env::Lane;
use crate::mmap_ring::MmapRing;
use crate::poll::{poll_once, stats_len};
use crate::shared::{kick_fd, SharedXsk};
use crate::sys::xdp_statistics;
use crate::txopts::TxOpts;
use crate::umem::Umem;
use crate::xsk::{Bind, Xsk, XskConfig};

/// The model's first injected tag (ringlab_model::afxdp state.rs).
const INJECT_TAG0: u32 = 1_000_000;
/// How long the kernel may take to reach a quiescent point before the
/// harness compares anyway (and reports what it sees).
const SETTLE: Duration = Duration::from_secs(2);
/// Polls with an unchanged wmem_alloc that make an SG socket quiescent.
const SG_STEADY_POLLS: u32 = 5;

fn stats(s: xdp_statistics) -> Stats {
    Stats {
        rx_dropped: s.rx_dropped,
        rx_invalid_descs: s.rx_invalid_descs,
        tx_invalid_descs: s.tx_invalid_descs,
        rx_ring_full: s.rx_ring_full,
        rx_fill_ring_empty_descs: s.rx_fill_ring_empty_descs,
        tx_ring_empty_descs: s.tx_ring_empty_descs,
    }
}

/// A frame: broadcast destination, a local source, the EtherType, the tag.
pub fn frame(len: u32, ethertype: u16, tag: u32) -> Vec<u8> {
    let mut f = vec![0u8; len as usize];
    let mut hdr = vec![0xff; 6];
    hdr.extend_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    hdr.extend_from_slice(&ethertype.to_be_bytes());
    hdr.extend_from_slice(&tag.to_le_bytes());
    let n = hdr.len().min(f.len());
    f[..n].copy_from_slice(&hdr[..n]);
    f
}

struct Run<'e> {
    env: &'e Lane,
    setup: Setup,
    tx: Xsk,
    tx2: Option<SharedXsk>,
    rx: Option<Xsk>,
    /// The second RX socket, on the RX socket's umem (Setup::rx_shared).
    rx2: Option<SharedXsk>,
    tx_seq: u32,
    fill_seq: u64,
    inject_seq: u32,
    injected: u64,
    /// The program's counters when the scenario began.
    seen0: u64,
    other0: u64,
}

/// A socket of the scenario's setup on queue 0 of `ifindex`, with only the
/// rings its side uses (a size of 0 leaves a ring out).
fn socket(st: &Setup, ifindex: u32, rx_size: u32, tx_size: u32, sg: bool) -> XskConfig {
    XskConfig {
        ifindex,
        queue: 0,
        frames: st.frames,
        frame_size: st.frame_size,
        headroom: st.headroom,
        fill_size: st.fill_size,
        comp_size: st.comp_size,
        rx_size,
        tx_size,
        need_wakeup: st.need_wakeup,
        sg,
    }
}

/// The sockets of a scenario's setup on one lane, bound, with their TX
/// options set and the RX sockets in the program's XSKMAP. Each is fresh:
/// its own umem and rings, never bound before.
pub struct Sockets {
    tx: Xsk,
    tx2: Option<SharedXsk>,
    rx: Option<Xsk>,
    rx2: Option<SharedXsk>,
}

/// What opening a setup's sockets on a lane gave.
pub enum Opened {
    Ready(Box<Sockets>),
    /// A queue of the lane was busy (EBUSY); the sockets bound before it
    /// are here, to be closed (which waits for RCU: close them elsewhere).
    Busy(Vec<Box<dyn Send>>),
}

/// Which of a setup's sockets of its own umem a bind is for.
#[derive(Clone, Copy)]
enum Role {
    Tx,
    Rx,
}

/// A scenario's sockets that found their queue busy, unbound still: a
/// failed bind leaves a socket as it was (xsk_bind() returns EBUSY before
/// it changes anything), so the next lane binds them instead of new ones.
#[derive(Default)]
pub struct Spare {
    tx: Option<Xsk>,
    rx: Option<Xsk>,
}

impl Sockets {
    /// Opens `st`'s sockets on `lane`, waiting while a queue is busy.
    pub fn open(lane: &Lane, st: &Setup, opts: &TxOpts) -> io::Result<Sockets> {
        match Sockets::open_with(lane, st, opts, |c, _| Xsk::create(c).map(Some))? {
            Opened::Ready(s) => Ok(*s),
            Opened::Busy(_) => unreachable!("Xsk::create waits while a queue is busy"),
        }
    }

    /// Opens them if both of the lane's queues are free now; a socket
    /// that found its queue busy is kept in `spare` for the next try.
    pub fn open_now(lane: &Lane, st: &Setup, opts: &TxOpts, spare: &mut Spare) -> io::Result<Opened> {
        Sockets::open_with(lane, st, opts, |c, role| {
            let slot = match role {
                Role::Tx => &mut spare.tx,
                Role::Rx => &mut spare.rx,
            };
            let x = match slot.take() {
                Some(x) => x,
                None => Xsk::unbound(c)?,
            };
            Ok(match x.bind(c)? {
                Bind::Bound => Some(x),
                Bind::Busy => {
                    *slot = Some(x);
                    None
                }
            })
        })
    }

    /// In the order the harness has always used: the TX socket, its TX
    /// options, the shared TX socket, the RX socket, the shared RX socket,
    /// each RX socket into the XSKMAP once bound.
    fn open_with(lane: &Lane, st: &Setup, opts: &TxOpts, mut xsk: impl FnMut(&XskConfig, Role) -> io::Result<Option<Xsk>>) -> io::Result<Opened> {
        let Some(tx) = xsk(&socket(st, lane.ifindex_a, 0, st.tx_size, st.sg), Role::Tx)? else { return Ok(Opened::Busy(Vec::new())) };
        opts.apply(tx.fd, st.tx_size)?;
        let tx2 = if st.shared { Some(SharedXsk::create(&tx, lane.ifindex_a, 0, 0, st.tx_size)?) } else { None };
        if let Some(x) = &tx2 {
            opts.apply(x.fd, st.tx_size)?;
        }
        let rx = if st.rx_socket {
            let Some(x) = xsk(&socket(st, lane.ifindex_b, st.rx_size, 0, false), Role::Rx)? else {
                let mut bound: Vec<Box<dyn Send>> = vec![Box::new(tx)];
                bound.extend(tx2.map(|x| Box::new(x) as Box<dyn Send>));
                return Ok(Opened::Busy(bound));
            };
            lane.prog.insert(0, x.fd)?;
            Some(x)
        } else {
            None
        };
        let rx2 = match &rx {
            Some(first) if st.rx_shared => {
                let x = SharedXsk::create(first, lane.ifindex_b, 0, st.rx_size, 0)?;
                lane.prog.insert(XSKMAP_SECOND, x.fd)?;
                Some(x)
            }
            _ => None,
        };
        Ok(Opened::Ready(Box::new(Sockets { tx, tx2, rx, rx2 })))
    }

    /// The sockets one by one, so that each can be closed on a thread of
    /// its own: each close waits for an RCU grace period (xsk_unbind_dev()'s
    /// synchronize_net()), and apart the waits overlap.
    pub fn into_parts(self) -> Vec<Box<dyn Send>> {
        let mut v: Vec<Box<dyn Send>> = vec![Box::new(self.tx)];
        v.extend(self.tx2.map(|x| Box::new(x) as Box<dyn Send>));
        v.extend(self.rx.map(|x| Box::new(x) as Box<dyn Send>));
        v.extend(self.rx2.map(|x| Box::new(x) as Box<dyn Send>));
        v
    }
}

/// Runs `s` on sockets with the kernel's default TX options.
pub fn run(env: &Lane, s: &Scenario) -> io::Result<Vec<Obs>> {
    run_with(env, s, &TxOpts::default())
}

/// Runs `s` with `opts` set on each TX socket once it is bound; the
/// sockets are closed before this returns.
pub fn run_with(env: &Lane, s: &Scenario, opts: &TxOpts) -> io::Result<Vec<Obs>> {
    let sockets = Sockets::open(env, &s.setup, opts)?;
    run_on(env, sockets, s).0
}

/// Runs `s` on `sockets` (opened on `env` for `s.setup`) and gives them
/// back, out of the XSKMAP.
pub fn run_on(env: &Lane, sockets: Sockets, s: &Scenario) -> (io::Result<Vec<Obs>>, Sockets) {
    let Sockets { tx, tx2, rx, rx2 } = sockets;
    let counters = env.prog.seen().and_then(|seen| Ok((seen, env.prog.not_redirected()?)));
    let (seen0, other0) = *counters.as_ref().unwrap_or(&(0, 0));
    let mut r = Run { env, setup: s.setup.clone(), tx, tx2, rx, rx2, tx_seq: 0, fill_seq: 0, inject_seq: INJECT_TAG0, injected: 0, seen0, other0 };
    let mut out = Vec::with_capacity(s.ops.len() + 1);
    let done = match counters {
        Ok(_) => s.ops.iter().try_for_each(|op| Ok::<_, io::Error>(out.push(r.apply(op)?))),
        Err(e) => Err(e.into()),
    };
    env.prog.remove(0);
    env.prog.remove(XSKMAP_SECOND);
    if done.is_ok() {
        out.push(Obs::Rings(r.rings()));
    }
    let Run { tx, tx2, rx, rx2, .. } = r;
    (done.map(|()| out), Sockets { tx, tx2, rx, rx2 })
}

impl Run<'_> {
    fn apply(&mut self, op: &Op) -> io::Result<Obs> {
        Ok(match op {
            Op::Tx(descs) => Obs::Reserved(self.submit(0, descs)),
            Op::Tx2(descs) => Obs::Reserved(self.submit(1, descs)),
            Op::Kick => {
                let r = self.kick();
                self.settle()?;
                Obs::Kicks(vec![r])
            }
            Op::Kick2 => {
                let r = self.tx2.as_ref().map_or(0, |x| errno(x.kick()));
                self.settle()?;
                Obs::Kicks(vec![r])
            }
            Op::KickBoth => {
                let (a, b) = (self.tx.fd, self.tx2.as_ref().map(|x| x.fd));
                let go = std::sync::Barrier::new(2);
                let kicks = std::thread::scope(|sc| {
                    let other = sc.spawn(|| {
                        go.wait();
                        b.map_or(0, |fd| errno(kick_fd(fd)))
                    });
                    go.wait();
                    let first = errno(kick_fd(a));
                    [first, other.join().expect("kick thread")]
                });
                self.settle()?;
                let Obs::Completions(all) = self.apply(&Op::DrainCq(self.setup.comp_size))? else { unreachable!() };
                let (first, second) = all.into_iter().partition(|x| self.setup.owner(*x) == 0);
                Obs::Both { kicks, first, second }
            }
            Op::Rings => Obs::Rings(self.rings()),
            Op::Poll => {
                // xsk_poll transmits in copy mode: settle as after a sendto.
                let r = poll_once(self.tx.fd)?;
                self.settle()?;
                Obs::Revents(r)
            }
            Op::PollRx => Obs::Revents(match &self.rx {
                Some(x) => poll_once(x.fd)?,
                None => 0,
            }),
            Op::StatsLen(len) => Obs::StatsWords {
                tx: stats_len(self.tx.fd, *len),
                rx: self.rx.as_ref().map(|x| stats_len(x.fd, *len)),
            },
            Op::KickIdle => {
                let mut v = Vec::new();
                for _ in 0..self.setup.tx_size + 4 {
                    let before = self.tx_consumer();
                    v.push(self.kick());
                    self.settle()?;
                    if self.tx_consumer() == before {
                        break;
                    }
                }
                Obs::Kicks(v)
            }
            Op::DrainCq(n) => {
                let (m, idx) = self.tx.comp.peek(*n);
                let addrs = (0..m).map(|k| self.tx.comp.read(idx.wrapping_add(k))).collect();
                self.tx.comp.release(m);
                Obs::Completions(addrs)
            }
            Op::Stats => Obs::Stats {
                tx: stats(self.tx.stats()?),
                rx: match &self.rx {
                    Some(x) => Some(stats(x.stats()?)),
                    None => None,
                },
                tx2: match &self.tx2 {
                    Some(x) => Some(stats(x.stats()?)),
                    None => None,
                },
                rx2: match &self.rx2 {
                    Some(x) => Some(stats(x.stats()?)),
                    None => None,
                },
            },
            Op::Fill(n) => {
                let Some(x) = self.rx.as_mut() else { return Ok(Obs::Reserved(false)) };
                let Some(idx) = x.fill.reserve(*n) else { return Ok(Obs::Reserved(false)) };
                for k in 0..*n {
                    x.fill.write(idx.wrapping_add(k), self.setup.fill_addr(self.fill_seq + k as u64));
                }
                x.fill.submit(*n);
                self.fill_seq += *n as u64;
                Obs::Reserved(true)
            }
            Op::Inject(lens) => {
                for len in lens {
                    self.inject(*len, XdpAct::Redirect)?;
                }
                self.settle()?;
                Obs::Injected(lens.len() as u32)
            }
            Op::InjectAs(frames) => {
                for (len, act) in frames {
                    self.inject(*len, *act)?;
                }
                self.settle()?;
                Obs::Injected(frames.len() as u32)
            }
            Op::ConsumeRx(n) => {
                let Some(x) = self.rx.as_mut() else { return Ok(Obs::Rx(Vec::new())) };
                Obs::Rx(x.rx.as_mut().map_or(Vec::new(), |rx| consume(rx, &x.umem, *n)))
            }
            Op::ConsumeRx2(n) => {
                let (Some(x), Some(x2)) = (self.rx.as_ref(), self.rx2.as_mut()) else { return Ok(Obs::Rx(Vec::new())) };
                Obs::Rx(x2.rx.as_mut().map_or(Vec::new(), |rx| consume(rx, &x.umem, *n)))
            }
        })
    }

    /// One frame from the peer with the EtherType that gives it `act`.
    fn inject(&mut self, len: u32, act: XdpAct) -> io::Result<()> {
        self.env.injector.send(&frame(len, act.ethertype(), self.inject_seq))?;
        self.inject_seq += 1;
        self.injected += 1;
        Ok(())
    }

    /// Reserve (all or nothing), write and submit `descs` on socket `s`'s
    /// TX ring, each frame's header and tag written into the umem first.
    fn submit(&mut self, s: usize, descs: &[TxDesc]) -> bool {
        let ethertype = if self.setup.loopback { ETH_P_RINGLAB } else { ETH_P_TXONLY };
        let tx = match s {
            0 => self.tx.tx.as_mut(),
            _ => self.tx2.as_mut().and_then(|x| x.tx.as_mut()),
        };
        let Some(tx) = tx else { return false };
        let n = descs.len() as u32;
        let Some(idx) = tx.reserve(n) else { return false };
        for (k, d) in descs.iter().enumerate() {
            let f = frame(d.len.min(self.setup.frame_size), ethertype, self.tx_seq);
            self.tx.umem.write(d.addr, &f);
            self.tx_seq += 1;
            tx.write(idx.wrapping_add(k as u32), XdpDesc { addr: d.addr, len: d.len, options: d.options });
        }
        tx.submit(n);
        true
    }

    fn kick(&self) -> i32 {
        errno(self.tx.kick())
    }

    /// Bytes of TX skbs not yet freed, over both sockets.
    fn wmem(&self) -> io::Result<u32> {
        Ok(self.tx.wmem_alloc()? + self.tx2.as_ref().map_or(Ok(0), |x| x.wmem_alloc())?)
    }

    fn tx_consumer(&self) -> u32 {
        self.tx.tx.as_ref().map_or(0, |t| t.ring().consumer().load(Acquire))
    }

    /// Waits for the quiescent point described at the top of this file.
    fn settle(&self) -> io::Result<()> {
        let start = Instant::now();
        let (mut last, mut steady) = (u32::MAX, 0);
        while start.elapsed() < SETTLE {
            let w = self.wmem()?;
            steady = if w == last { steady + 1 } else { 0 };
            last = w;
            let tx_quiet = w == 0 || (self.setup.sg && steady >= SG_STEADY_POLLS);
            if tx_quiet && self.rx_settled()? {
                return Ok(());
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(())
    }

    /// Frames sent toward the RX sockets: the injected ones, and in
    /// loopback the transmitted ones (completions that are not invalid
    /// descriptors; loopback scenarios send only frames the program
    /// redirects). Every one has passed the program, and every redirected
    /// one is on an RX ring or in a drop counter.
    fn rx_settled(&self) -> io::Result<bool> {
        let Some(x) = &self.rx else { return Ok(true) };
        let mut expected = self.injected;
        if self.setup.loopback {
            let s = self.tx.stats()?;
            expected += self.tx.comp.ring().producer().load(Acquire) as u64 - s.tx_invalid_descs;
        }
        let seen = self.env.prog.seen()? - self.seen0;
        let other = self.env.prog.not_redirected()? - self.other0;
        let s = x.stats()?;
        let mut ended = x.rx.as_ref().map_or(0, |r| r.ring().producer().load(Acquire)) as u64 + s.rx_dropped + s.rx_ring_full;
        if let Some(x2) = &self.rx2 {
            let s2 = x2.stats()?;
            ended += x2.rx.as_ref().map_or(0, |r| r.ring().producer().load(Acquire)) as u64 + s2.rx_dropped + s2.rx_ring_full;
        }
        Ok(seen + other >= expected && ended == seen)
    }

    fn rings(&self) -> RingIdx {
        fn pc<R: RingMem>(r: &R) -> (u32, u32) {
            (r.producer().load(Acquire), r.consumer().load(Acquire))
        }
        fn fl<R: RingMem>(r: Option<&R>) -> u32 {
            r.map_or(0, |r| r.flags().load(Acquire))
        }
        let tx = self.tx.tx.as_ref().map(|t| t.ring());
        let rxs = self.rx.as_ref();
        let fill = rxs.map(|x| x.fill.ring());
        let rx = rxs.and_then(|x| x.rx.as_ref()).map(|r| r.ring());
        RingIdx {
            tx: tx.map_or((0, 0), pc),
            cq: pc(self.tx.comp.ring()),
            fill: fill.map_or((0, 0), pc),
            rx: rx.map_or((0, 0), pc),
            flags: [fl(tx), fl(Some(self.tx.comp.ring())), fl(fill), fl(rx)],
            tx2: self.tx2.as_ref().and_then(|x| x.tx.as_ref()).map_or((0, 0), |t| pc(t.ring())),
            rx2: self.rx2.as_ref().and_then(|x| x.rx.as_ref()).map_or((0, 0), |r| pc(r.ring())),
        }
    }
}

/// Peek, read and release up to `n` RX descriptors, each with the tag its
/// frame carries in `umem`.
fn consume(rx: &mut UserCons<MmapRing<XdpDesc>>, umem: &Umem, n: u32) -> Vec<(u64, u32, u32, u32)> {
    let (m, idx) = rx.peek(n);
    let v = (0..m)
        .map(|k| {
            let d = rx.read(idx.wrapping_add(k));
            let b = if d.len >= 18 { umem.read(d.addr + 14, 4) } else { Vec::new() };
            let tag = b.try_into().map_or(u32::MAX, u32::from_le_bytes);
            (d.addr, d.len, d.options, tag)
        })
        .collect();
    rx.release(m);
    v
}

/// A sendto result as the model gives it: 0, or the errno.
fn errno(r: Result<isize, i32>) -> i32 {
    r.err().unwrap_or(0)
}
