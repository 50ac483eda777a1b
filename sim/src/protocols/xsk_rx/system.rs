//! The whole receive side in one place, each spec action a method of its
//! name returning whether it was enabled (Err: not enabled, nothing
//! changed): what the harness's scheduler, a comparison with the model
//! and the real-thread runner (each thread on a view of its own) drive.
//! Loom calls the objects' kernel functions underneath directly.

use ringlab_model::xsk_rx::{
    Action, Batched, Buf, Cpu, Fate, Mutant, Redirect, RxPath, Sock, Sst, Stage, Verdict,
};
use ringlab_ring::sync::Arc;

use super::app::App;
use super::config::XskRxConfig;
use super::cost::Cost;
use super::cpu::{PerCpu, Receive};
use super::lock::SpinLock;
use super::pool::Pool;
use super::queue::RxQueue;
use super::sock::XdpSock;
use super::xskmap::XskMap;
use super::{Disabled, Step};

#[derive(Debug)]
pub struct XskRx {
    pub cfg: XskRxConfig,
    pub pool: Arc<Pool>,
    /// Sockets 1..NSockets, at s - 1.
    pub socks: Vec<Arc<XdpSock>>,
    pub map: Arc<XskMap>,
    pub rxq: Arc<RxQueue>,
    pub cpus: Vec<Arc<PerCpu>>,
    pub app: Arc<App>,
    /// Each CPU's receive in progress.
    pub recv: Vec<Receive>,
    /// Each CPU's driver batch (Batch > 1): XDP_REDIRECT_XSK packets for
    /// xsk_rcv_batch(), oldest first, each with the socket chosen for it.
    pub pend: Vec<Vec<Batched>>,
    pub cost: Cost,
    /// Steps the drain has asked for.
    pub drain_steps: u64,
}

fn off(action: &'static str, why: impl Into<String>) -> Disabled {
    Disabled::new(action, why)
}

impl XskRx {
    pub fn new(cfg: XskRxConfig) -> Result<XskRx, String> {
        cfg.validate()?;
        let spec = &cfg.spec;
        let pool = Arc::new(Pool::new(spec.fq_size, spec.n_bufs)?);
        let socks = spec
            .sockets()
            .map(|s| XdpSock::new(s, spec.rx_size, !spec.late(s)).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        let bound: Vec<Sock> = spec.sockets().filter(|&s| !spec.late(s)).collect();
        // The fast path's queue keeps the socket bound at the start if it
        // is the only one and has an Rx ring.
        let xsk = if spec.redirect == Redirect::Xsk && bound.len() == 1 && !spec.tx_only(bound[0]) {
            bound[0]
        } else {
            0
        };
        let rings: Vec<_> = socks.iter().map(|s| s.rx_ring.clone()).collect();
        Ok(XskRx {
            app: Arc::new(App::new(spec.bufs(), &pool.fq_ring, &rings)),
            map: Arc::new(XskMap::new(spec.n_sockets, |s| !spec.late(s))),
            rxq: Arc::new(RxQueue::new(spec.max_pkts, xsk)),
            cpus: spec
                .cpu_ids()
                .map(|_| Arc::new(PerCpu::default()))
                .collect(),
            recv: vec![Receive::IDLE; spec.cpus.len()],
            pend: vec![Vec::new(); spec.cpus.len()],
            pool,
            socks,
            cost: Cost::default(),
            drain_steps: 0,
            cfg,
        })
    }

    /// Socket s, if the config has it.
    pub fn sock(&self, action: &'static str, s: Sock) -> Result<&Arc<XdpSock>, Disabled> {
        self.socks
            .get(usize::from(s).wrapping_sub(1))
            .ok_or_else(|| off(action, format!("no socket {s}")))
    }

    fn cpu(&self, action: &'static str, c: Cpu) -> Result<usize, Disabled> {
        let i = usize::from(c);
        if i < self.recv.len() {
            Ok(i)
        } else {
            Err(off(action, format!("no CPU {c}")))
        }
    }

    /// The lock a receive for s takes: pool->rx_lock
    /// (mutant-xsk-gen-rx-race: the socket's own xs->rx_lock).
    pub fn rx_lock_of(&self, s: Sock) -> &SpinLock {
        super::rcv::rx_lock(&self.pool, &self.socks[usize::from(s) - 1])
    }

    fn generic(&self) -> bool {
        self.cfg.spec.path == RxPath::Generic
    }

    /// UserFill(b): xsk_ring_prod__reserve/submit of buffer b on the
    /// fill ring.
    pub fn user_fill(&mut self, b: Buf) -> Step {
        if !self.app.holds(b) {
            return Err(off(
                "UserFill",
                format!("the application does not hold {b}"),
            ));
        }
        if !self.app.fill(b) {
            return Err(off("UserFill", "the fill ring is full"));
        }
        Ok(())
    }

    /// UserRecv(s): xsk_ring_cons__peek/release on s's rx ring.
    pub fn user_recv(&mut self, s: Sock) -> Step {
        self.sock("UserRecv", s)?;
        self.app.recv(s).map(|_| ()).ok_or_else(|| {
            off(
                "UserRecv",
                format!("nothing published on socket {s}'s rx ring"),
            )
        })
    }

    /// XskBind(s): xsk_bind() of a socket not bound yet; with the fast
    /// path, the queue keeps s in netdev_rx_queue if no other socket is
    /// bound and s has an Rx ring, and none once a second one is.
    pub fn xsk_bind(&mut self, s: Sock) -> Step {
        let sock = self.sock("XskBind", s)?;
        if sock.state() != Sst::Unbound {
            return Err(off(
                "XskBind",
                format!("socket {s} is {}", sock.state().id()),
            ));
        }
        sock.set_state(Sst::Bound);
        if self.cfg.spec.redirect == Redirect::Xsk {
            let alone = self
                .socks
                .iter()
                .all(|o| o.id == s || o.state() != Sst::Bound);
            let keep = alone && !self.cfg.spec.tx_only(s);
            self.rxq.set_xsk(if keep { s } else { 0 });
        }
        Ok(())
    }

    /// XskMapUpdate(k, s): bpf_map_update_elem(), xsk_map_update_elem() of
    /// entry k with socket s, bound or not, replacing the socket there
    /// (without Remap: s into its own empty entry only).
    pub fn xsk_map_update(&mut self, k: Sock, s: Sock) -> Step {
        let sock = self.sock("XskMapUpdate", s)?;
        self.sock("XskMapUpdate", k)?;
        if !matches!(sock.state(), Sst::Unbound | Sst::Bound) {
            return Err(off("XskMapUpdate", format!("socket {s} is released")));
        }
        let old = self.map.get(k);
        if old == Some(s) || !(self.cfg.spec.remap || (k == s && old.is_none())) {
            return Err(off(
                "XskMapUpdate",
                format!("entry {k} names {old:?}: not replaced by socket {s}"),
            ));
        }
        self.map.update(k, s);
        Ok(())
    }

    /// XskRelease(s): close(), xsk_release(): xsk_delete_from_maps(),
    /// xsk_unbind_dev() (XSK_UNBOUND, and out of netdev_rx_queue).
    pub fn xsk_release(&mut self, s: Sock) -> Step {
        let sock = self.sock("XskRelease", s)?;
        if !self.cfg.spec.closes || sock.state() != Sst::Bound {
            return Err(off(
                "XskRelease",
                format!("socket {s} is not bound, or no close"),
            ));
        }
        sock.set_state(Sst::Unbinding);
        self.map.delete(s);
        if self.rxq.xsk() == s {
            self.rxq.set_xsk(0);
        }
        Ok(())
    }

    /// Socket s is in no CPU's receive, flush list or driver slot: what
    /// synchronize_net() waits for.
    pub fn unheld(&self, s: Sock) -> bool {
        self.recv.iter().all(|r| r.sock != s)
            && self.pend.iter().flatten().all(|e| e.sock != s)
            && self
                .cpus
                .iter()
                .all(|c| !c.listed().contains(&s) && c.slot() != s)
    }

    /// XskReleaseDone(s): xsk_release()'s synchronize_net() returned; the
    /// socket and its rings are freed (sk_destruct), the buffers on its rx
    /// ring the application's again.
    pub fn xsk_release_done(&mut self, s: Sock) -> Step {
        let sock = self.sock("XskReleaseDone", s)?.clone();
        if sock.state() != Sst::Unbinding {
            return Err(off(
                "XskReleaseDone",
                format!("socket {s} is not being released"),
            ));
        }
        if !self.unheld(s) {
            return Err(off(
                "XskReleaseDone",
                format!("a CPU still holds socket {s}"),
            ));
        }
        sock.set_state(Sst::Freed);
        self.app.freed(s, || {
            sock.rx_state().0.into_iter().map(|(b, _)| b).collect()
        });
        Ok(())
    }

    /// NapiPoll(c): napi_schedule() and the poll of the queue on c.
    pub fn napi_poll(&mut self, c: Cpu) -> Step {
        self.cpu("NapiPoll", c)?;
        let spec = &self.cfg.spec;
        if spec.path != RxPath::Driver || self.rxq.arrived() >= u32::from(spec.max_pkts) {
            return Err(off("NapiPoll", "not the driver path, or no packet left"));
        }
        if !self.rxq.napi_schedule(c) {
            return Err(off("NapiPoll", "another CPU polls the queue"));
        }
        // On threads, the last packet may have come in a poll that ended
        // after the check above: the poll is given back.
        if self.rxq.arrived() >= u32::from(spec.max_pkts) {
            self.rxq.napi_complete(c);
            return Err(off("NapiPoll", "no packet left"));
        }
        Ok(())
    }

    /// XdpDoFlush(c): the poll's end: the driver's xsk_flush() of its own
    /// socket, xdp_do_flush() -> __xsk_map_flush() of every listed
    /// socket (xskq_prod_submit() of its rx ring, __xskq_cons_release()
    /// of the fill ring), then napi_complete_done()
    /// (mutant-xdp-missing-flush: nothing is flushed).
    pub fn xdp_do_flush(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XdpDoFlush", c)?;
        if self.generic()
            || self.rxq.poller() != Some(c)
            || self.recv[ci].stage != Stage::Idle
            || self.rxq.arrived() <= self.rxq.poll_start()
        {
            return Err(off(
                "XdpDoFlush",
                format!("CPU {c} is not at the end of a poll"),
            ));
        }
        // The batch is received first (mutant-redirect-xsk-batch-tail-lost:
        // it is left for a later poll).
        if !self.pend[ci].is_empty() && !ringlab_mutant::on("mutant-redirect-xsk-batch-tail-lost") {
            return Err(off(
                "XdpDoFlush",
                format!("CPU {c}'s batch is still to be received"),
            ));
        }
        if !ringlab_mutant::on("mutant-xdp-missing-flush") {
            let cpu = &self.cpus[ci];
            let own = cpu.slot();
            let mut todo = cpu.take_list(&mut self.cost);
            if own != 0 && !todo.contains(&own) {
                todo.push(own);
            }
            cpu.set_slot(0);
            for &s in &todo {
                self.socks[usize::from(s) - 1].rx_submit();
            }
            if !todo.is_empty() {
                self.pool.fq_release();
            }
        }
        self.cost.polls += 1;
        self.rxq.napi_complete(c);
        Ok(())
    }

    /// bpf_redirect_xsk(k) (seed 002, with ringlab's comparison): the
    /// queue keeps a socket and XSKMAP entry k names that socket
    /// (mutant-redirect-xsk-ignore-key: whatever k names); and whether it
    /// read entry k (the fast path's one map lookup).
    fn fast_target(&self, k: Sock) -> (Option<Sock>, bool) {
        let q = self.rxq.xsk();
        if self.cfg.spec.redirect != Redirect::Xsk || q == 0 {
            return (None, false);
        }
        if ringlab_mutant::on("mutant-redirect-xsk-ignore-key") {
            return (Some(q), false);
        }
        ((self.map.get(k) == Some(q)).then_some(q), true)
    }

    /// fast_target(k), its lookup counted.
    fn redirect_xsk(&mut self, k: Sock) -> Option<Sock> {
        let (q, read) = self.fast_target(k);
        if read {
            self.cost.map_lookups += 1;
        }
        q
    }

    /// XskRcvBatch(c): xsk_rcv_batch() takes the oldest packet of c's
    /// batch into the socket kept for it
    /// (mutant-redirect-xsk-batch-stale-sock: the queue's socket now),
    /// with xsk_rcv()'s checks, as XdpRun does for a packet not batched.
    pub fn xsk_rcv_batch(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XskRcvBatch", c)?;
        if self.rxq.poller() != Some(c) || self.recv[ci].stage != Stage::Idle || self.pend[ci].is_empty() {
            return Err(off(
                "XskRcvBatch",
                format!("CPU {c} has no batch to receive, or is busy"),
            ));
        }
        let e = self.pend[ci].remove(0);
        let s = if ringlab_mutant::on("mutant-redirect-xsk-batch-stale-sock") {
            self.rxq.xsk()
        } else {
            e.sock
        };
        let spec = &self.cfg.spec;
        let fate = match self.socks.get(usize::from(s).wrapping_sub(1)) {
            Some(sock) if sock.state() == Sst::Bound && !spec.tx_only(s) => {
                if e.len > 1 && !spec.sg {
                    sock.bump_dropped();
                    Fate::RxDropped
                } else {
                    self.recv[ci] = Receive {
                        stage: Stage::Alloc,
                        pkt: e.pkt,
                        sock: s,
                        tgt: e.tgt,
                        len: e.len,
                        bufs: Vec::new(),
                        peek: None,
                        fast: true,
                    };
                    Fate::Busy
                }
            }
            _ => Fate::RedirectErr,
        };
        self.rxq.set_fate(e.pkt, fate);
        Ok(())
    }

    /// XdpRun(c, v, k, len): a packet of len chunks arrives on c (in the
    /// poll, within its budget; or through netif_receive_skb() on the
    /// generic path) and its program returns v. XDP_REDIRECT:
    /// bpf_redirect_map(k) fills bpf_redirect_info, xdp_do_redirect()
    /// reads it back, xsk_rcv_check() refuses an unbound socket and one
    /// bound without an Rx ring (TxOnly, -ENOBUFS); a packet
    /// larger than a chunk without XDP_USE_SG is dropped (-ENOSPC);
    /// XDP_REDIRECT_XSK receives into the queue's socket.
    pub fn xdp_run(&mut self, c: Cpu, v: Verdict, k: Sock, len: u8) -> Step {
        let ci = self.cpu("XdpRun", c)?;
        let spec = self.cfg.spec.clone();
        if !spec.verdicts.contains(&v)
            || !(1..=spec.n_sockets).contains(&k)
            || !(1..=spec.max_len).contains(&len)
        {
            return Err(off(
                "XdpRun",
                "a verdict, index or length outside the config",
            ));
        }
        if self.recv[ci].stage != Stage::Idle || self.rxq.arrived() >= u32::from(spec.max_pkts) {
            return Err(off("XdpRun", format!("CPU {c} is busy, or no packet left")));
        }
        if spec.path == RxPath::Driver
            && (self.rxq.poller() != Some(c)
                || self.rxq.arrived() - self.rxq.poll_start() >= spec.poll_budget)
        {
            return Err(off(
                "XdpRun",
                format!("CPU {c} is not in a poll with budget left"),
            ));
        }
        // The driver's batch: a packet taking the fast path joins it (not
        // full, same socket); any other waits until it is received
        // (mutant-redirect-xsk-batch-reorder: is handled first).
        let (fast_q, read) = if v == Verdict::Redirect && spec.batch > 1 { self.fast_target(k) } else { (None, false) };
        let batched = fast_q.is_some();
        let pend = &self.pend[ci];
        let waits = if batched {
            pend.len() >= usize::from(spec.batch) || pend.last().is_some_and(|e| Some(e.sock) != fast_q)
        } else {
            !pend.is_empty() && !ringlab_mutant::on("mutant-redirect-xsk-batch-reorder")
        };
        if waits {
            return Err(off("XdpRun", format!("CPU {c}'s batch is to be received first")));
        }
        // On threads, another CPU may have taken the last packet since.
        let Some(p) = self.rxq.arrive() else {
            return Err(off("XdpRun", "no packet left"));
        };
        if let Some(q) = fast_q {
            // bpf_redirect_xsk()'s read of entry k, its store of the
            // socket in bpf_net_context and the driver's take of it, then
            // the packet kept
            if read {
                self.cost.map_lookups += 1;
            }
            self.cost.fast += 1;
            self.cost.ctx_writes += 2;
            let tgt = self.map.get(k).unwrap_or(0);
            self.pend[ci].push(Batched { pkt: p, sock: q, tgt, len });
            self.rxq.set_fate(p, Fate::Busy);
            return Ok(());
        }
        let fate = match v {
            Verdict::Drop => Fate::XdpDrop,
            Verdict::Pass => Fate::XdpPass,
            Verdict::Redirect => {
                // tgt: the socket entry k names as the program runs.
                let (s, fast, tgt) = match (v, self.redirect_xsk(k)) {
                    (_, Some(q)) if ringlab_mutant::on("mutant-redirect-xsk-ignore-key") => {
                        (Some(q), true, self.map.get(k))
                    }
                    (_, Some(q)) => (Some(q), true, Some(q)),
                    _ => {
                        let found = self.map.lookup(k, &mut self.cost);
                        let mut ri = self.cpus[ci].ri.lock().unwrap_or_else(|e| e.into_inner());
                        let s = if ri.redirect_map(k, found, &mut self.cost) {
                            ri.do_redirect(self.generic(), &mut self.cost)
                        } else {
                            None
                        };
                        (s, false, found)
                    }
                };
                match s {
                    Some(s)
                        if self.socks[usize::from(s) - 1].state() == Sst::Bound
                            && !spec.tx_only(s) =>
                    {
                        if len > 1 && !spec.sg {
                            self.socks[usize::from(s) - 1].bump_dropped();
                            Fate::RxDropped
                        } else {
                            if fast {
                                self.cost.fast += 1;
                                self.cost.ctx_writes += 2;
                            } else {
                                self.cost.slow += 1;
                            }
                            self.recv[ci] = Receive {
                                stage: if self.generic() {
                                    Stage::Lock
                                } else {
                                    Stage::Alloc
                                },
                                pkt: p,
                                sock: s,
                                tgt: tgt.unwrap_or(0),
                                len,
                                bufs: Vec::new(),
                                peek: None,
                                fast,
                            };
                            Fate::Busy
                        }
                    }
                    _ => Fate::RedirectErr,
                }
            }
        };
        self.rxq.set_fate(p, fate);
        Ok(())
    }

    /// RxLock(c): xsk_generic_rcv()'s spin_lock_bh(&xs->pool->rx_lock).
    pub fn rx_lock(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("RxLock", c)?;
        let r = &self.recv[ci];
        if r.stage != Stage::Lock {
            return Err(off("RxLock", format!("CPU {c} waits for no lock")));
        }
        if !self.rx_lock_of(r.sock).try_lock(c) {
            return Err(off("RxLock", "the lock is held"));
        }
        self.recv[ci].stage = Stage::Alloc;
        Ok(())
    }

    /// Finish(c, f): the packet's end; the generic path's xsk_flush() and
    /// unlock are still to come.
    fn finish(&mut self, ci: usize, f: Fate) {
        self.rxq.set_fate(self.recv[ci].pkt, f);
        if self.generic() {
            self.recv[ci].stage = Stage::Flush;
            self.recv[ci].bufs.clear();
        } else {
            self.recv[ci] = Receive::IDLE;
        }
    }

    /// XskRcvCheckRoom(c): __xsk_rcv()'s whole-packet checks of a packet
    /// of several chunks: xsk_buff_can_alloc() (else rx_dropped), then
    /// xskq_prod_nb_free() of the rx ring (else rx_queue_full).
    pub fn xsk_rcv_check_room(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XskRcvCheckRoom", c)?;
        let r = &self.recv[ci];
        if r.stage != Stage::Alloc || !r.bufs.is_empty() || r.peek.is_some() || r.len <= 1 {
            return Err(off(
                "XskRcvCheckRoom",
                format!("CPU {c} has no packet to check"),
            ));
        }
        let (s, len) = (r.sock, u32::from(r.len));
        let sock = self.socks[usize::from(s) - 1].clone();
        if !self.pool.xp_can_alloc(len) {
            sock.bump_dropped();
            self.finish(ci, Fate::RxDropped);
        } else if sock.rx_nb_free(len) < len {
            sock.bump_queue_full();
            self.finish(ci, Fate::RxQueueFull);
        } else {
            self.recv[ci].stage = Stage::Take;
        }
        Ok(())
    }

    /// c takes buffers (a packet of several chunks once checked whole),
    /// reads no fill ring entry, and needs another.
    fn wants_buffer(&self, ci: usize) -> bool {
        let r = &self.recv[ci];
        matches!(r.stage, Stage::Alloc | Stage::Take)
            && r.peek.is_none()
            && (r.stage != Stage::Alloc || r.len == 1)
            && r.bufs.len() < usize::from(r.len)
    }

    /// XpAllocFree(c): xsk_buff_alloc() -> xp_alloc() from
    /// pool->free_list.
    pub fn xp_alloc_free(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XpAllocFree", c)?;
        if !self.wants_buffer(ci) {
            return Err(off("XpAllocFree", format!("CPU {c} needs no buffer")));
        }
        let b = self
            .pool
            .xp_alloc_free()
            .ok_or_else(|| off("XpAllocFree", "the free list is empty"))?;
        self.recv[ci].bufs.push(b);
        Ok(())
    }

    /// XpAllocPeek(c): with the free list empty, __xp_alloc()'s
    /// xskq_cons_peek_addr_unchecked() reads the fill ring entry at
    /// cached_cons.
    pub fn xp_alloc_peek(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XpAllocPeek", c)?;
        if !self.wants_buffer(ci) || !self.pool.free_list().is_empty() {
            return Err(off(
                "XpAllocPeek",
                format!("CPU {c} needs no fill ring entry"),
            ));
        }
        let b = self
            .pool
            .xp_alloc_peek()
            .ok_or_else(|| off("XpAllocPeek", "the fill ring is empty"))?;
        self.recv[ci].peek = Some(b);
        Ok(())
    }

    /// XpAllocTake(c): __xp_alloc()'s xskq_cons_release(): cached_cons
    /// moves past the entry; c keeps the buffer it read.
    pub fn xp_alloc_take(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XpAllocTake", c)?;
        let b = self.recv[ci]
            .peek
            .ok_or_else(|| off("XpAllocTake", format!("CPU {c} read no entry")))?;
        if !self.pool.xp_alloc_take() {
            return Err(off("XpAllocTake", "the fill ring is empty"));
        }
        let r = &mut self.recv[ci];
        r.bufs.push(b);
        r.peek = None;
        Ok(())
    }

    /// XpAllocFail(c): a single chunk finds neither a free buffer nor a
    /// fill ring entry: __xsk_rcv() returns -ENOMEM, rx_dropped++.
    pub fn xp_alloc_fail(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XpAllocFail", c)?;
        let r = &self.recv[ci];
        if r.stage != Stage::Alloc || r.len != 1 || r.peek.is_some() || !r.bufs.is_empty() {
            return Err(off(
                "XpAllocFail",
                format!("CPU {c} allocates no single chunk"),
            ));
        }
        if self.pool.xp_can_alloc(1) {
            return Err(off("XpAllocFail", "a buffer is there"));
        }
        self.socks[usize::from(r.sock) - 1].bump_dropped();
        self.finish(ci, Fate::RxDropped);
        Ok(())
    }

    /// XskRcvReserve(c): every chunk copied (xsk_copy_xdp()), one
    /// descriptor each reserved with xskq_prod_reserve_desc() as far as
    /// the ring has room; the socket listed for the flush
    /// (__xsk_map_redirect()'s list_add(), the fast path's driver slot).
    /// A chunk that does not fit goes back with xsk_buff_free(); a packet
    /// none of which fits is rx_queue_full.
    pub fn xsk_rcv_reserve(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XskRcvReserve", c)?;
        let r = self.recv[ci].clone();
        if !matches!(r.stage, Stage::Alloc | Stage::Take)
            || r.peek.is_some()
            || r.len == 0
            || r.bufs.len() != usize::from(r.len)
        {
            return Err(off(
                "XskRcvReserve",
                format!("CPU {c} holds no whole packet"),
            ));
        }
        let sock = self.socks[usize::from(r.sock) - 1].clone();
        for &b in &r.bufs {
            self.pool.copy(b, r.pkt);
        }
        let n = sock.reserve_descs(&r.bufs);
        if n == 0 {
            self.pool.xsk_buff_free(&r.bufs);
            sock.bump_queue_full();
            self.finish(ci, Fate::RxQueueFull);
            return Ok(());
        }
        self.pool.xsk_buff_free(&r.bufs[n..]);
        if !self.generic() {
            let cpu = self.cpus[ci].clone();
            if r.fast && (cpu.slot() == 0 || cpu.slot() == r.sock) {
                if cpu.slot() != r.sock {
                    self.cost.ctx_writes += 1;
                }
                cpu.set_slot(r.sock);
            } else {
                cpu.list(r.sock, &mut self.cost);
            }
        }
        self.finish(ci, Fate::Rx);
        Ok(())
    }

    /// XskFlush(c): xsk_generic_rcv()'s xsk_flush() (the rx producer and
    /// the fill ring's consumer published), then spin_unlock_bh().
    pub fn xsk_flush(&mut self, c: Cpu) -> Step {
        let ci = self.cpu("XskFlush", c)?;
        if !self.generic() || self.recv[ci].stage != Stage::Flush {
            return Err(off("XskFlush", format!("CPU {c} has nothing to flush")));
        }
        let s = self.recv[ci].sock;
        self.socks[usize::from(s) - 1].rx_submit();
        self.pool.fq_release();
        self.rx_lock_of(s).unlock(c);
        self.recv[ci] = Receive::IDLE;
        Ok(())
    }

    /// Every packet arrived, every CPU idle, no poll.
    pub fn is_done(&self) -> bool {
        self.rxq.arrived() == u32::from(self.cfg.spec.max_pkts)
            && self.recv.iter().all(|r| r.stage == Stage::Idle)
            && self.pend.iter().all(Vec::is_empty)
            && self.rxq.poller().is_none()
    }

    /// Done: nothing left to do (changes nothing).
    pub fn done(&mut self) -> Step {
        if self.is_done() {
            Ok(())
        } else {
            Err(off("Done", "a packet is still to come, or a CPU busy"))
        }
    }

    /// One spec action with the model's choices.
    pub fn step(&mut self, a: &Action) -> Step {
        match *a {
            Action::UserFill { b } => self.user_fill(b),
            Action::UserRecv { s } => self.user_recv(s),
            Action::XskBind { s } => self.xsk_bind(s),
            Action::XskMapUpdate { k, s } => self.xsk_map_update(k, s),
            Action::XskRelease { s } => self.xsk_release(s),
            Action::XskReleaseDone { s } => self.xsk_release_done(s),
            Action::NapiPoll { c } => self.napi_poll(c),
            Action::XdpDoFlush { c } => self.xdp_do_flush(c),
            Action::XdpRun { c, v, k, len } => self.xdp_run(c, v, k, len),
            Action::XskRcvBatch { c } => self.xsk_rcv_batch(c),
            Action::RxLock { c } => self.rx_lock(c),
            Action::XskRcvCheckRoom { c } => self.xsk_rcv_check_room(c),
            Action::XpAllocFree { c } => self.xp_alloc_free(c),
            Action::XpAllocPeek { c } => self.xp_alloc_peek(c),
            Action::XpAllocTake { c } => self.xp_alloc_take(c),
            Action::XpAllocFail { c } => self.xp_alloc_fail(c),
            Action::XskRcvReserve { c } => self.xsk_rcv_reserve(c),
            Action::XskFlush { c } => self.xsk_flush(c),
            Action::Done => self.done(),
        }
    }

    /// The mutant this run puts back.
    pub fn mutant(&self) -> Mutant {
        self.cfg.spec.mutant
    }
}
