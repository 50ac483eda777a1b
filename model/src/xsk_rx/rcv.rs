//! One packet, from the XDP program to the rx ring: XdpRun, XskRcvBatch,
//! RxLock, XskRcvCheckRoom, XpAllocFree, XpAllocPeek, XpAllocTake,
//! XpAllocFail, XskRcvReserve, XskFlush; and Done.

use super::config::{Config, Mutant, Redirect, RxPath, Verdict};
use super::state::{si, Batched, Cpu, Desc, Fate, Recv, Sock, Sst, Stage, State};

/// Which drop counter Bump raises.
#[derive(Clone, Copy)]
enum Counter {
    RxDropped,
    RxQueueFull,
}

impl State {
    /// Bump(s, field).
    fn bump(&mut self, s: Sock, field: Counter) {
        let c = &mut self.cnt[si(s)];
        match field {
            Counter::RxDropped => c.rx_dropped += 1,
            Counter::RxQueueFull => c.rx_queue_full += 1,
        }
    }

    /// Finish(c, f): c ends its receive of the current packet with fate f;
    /// on the generic path xsk_flush() and the unlock are still to come.
    fn finish(&mut self, cfg: &Config, c: Cpu, f: Fate) {
        let r = &mut self.cpu[usize::from(c)];
        self.fate[usize::from(r.pkt) - 1] = f;
        if cfg.path == RxPath::Generic {
            r.stage = Stage::Flush;
            r.bufs.clear();
        } else {
            *r = Recv::IDLE;
        }
    }

    /// FastPath(k): bpf_redirect_xsk() with XSKMAP index k returns
    /// XDP_REDIRECT_XSK: the queue keeps a socket and entry k names that
    /// socket (redirect-xsk-ignore-key: whatever k names).
    pub fn fast_path(&self, cfg: &Config, k: Sock) -> bool {
        cfg.redirect == Redirect::Xsk
            && self.rxq_xsk != 0
            && (cfg.mutant == Mutant::RedirectXskIgnoreKey
                || self.map[si(k)] == self.rxq_xsk)
    }

    /// XdpRun(c) with verdict v, XSKMAP index k and a packet of len
    /// chunks: the packet arrives on c (in the driver's poll, at most
    /// PollBudget of them, or through netif_receive_skb()) and its XDP
    /// program runs. XDP_REDIRECT: xdp_do_redirect() looks k up and
    /// xsk_rcv_check() refuses an empty entry or an unbound socket
    /// (-ENXIO), a socket without an Rx ring (-ENOBUFS;
    /// rx-ring-missing-unchecked: not refused) and a packet larger than a chunk without XDP_USE_SG
    /// (-ENOSPC); XDP_REDIRECT_XSK receives into the queue's socket. With
    /// Batch > 1 an XDP_REDIRECT_XSK packet joins c's batch instead (not
    /// when the batch is full or for another socket: xsk_rcv_batch()
    /// first; redirect-xsk-batch-overflow: full means more than Batch,
    /// redirect-xsk-batch-mixed-sock: any socket), and a packet of any other action waits for the batch to be
    /// received (redirect-xsk-batch-reorder: it does not). The spec's CASE
    /// order: batched, drop, pass, the redirect error, -ENOSPC, the
    /// receive.
    pub fn xdp_run(&self, cfg: &Config, c: Cpu, v: Verdict, k: Sock, len: u8) -> Option<State> {
        let ci = usize::from(c);
        if ci >= self.cpu.len()
            || !cfg.verdicts.contains(&v)
            || !(1..=cfg.n_sockets).contains(&k)
            || !(1..=cfg.max_len).contains(&len)
            || self.cpu[ci].stage != Stage::Idle
            || self.arrived >= u32::from(cfg.max_pkts)
        {
            return None;
        }
        if cfg.path == RxPath::Driver
            && (self.poller != Some(c)
                || (self.arrived - self.poll_start >= cfg.poll_budget
                    && cfg.mutant != Mutant::NapiBudgetOverrun))
        {
            return None;
        }
        let fast = v == Verdict::Redirect && self.fast_path(cfg, k);
        let tgt = self.map[si(k)];
        let s = if fast { self.rxq_xsk } else { tgt };
        let batched = fast && cfg.batch > 1;
        let pend = &self.pend[ci];
        if batched {
            let full = match cfg.mutant {
                Mutant::RedirectXskBatchOverflow => pend.len() > usize::from(cfg.batch),
                _ => pend.len() >= usize::from(cfg.batch),
            };
            let other = cfg.mutant != Mutant::RedirectXskBatchMixedSock
                && pend.last().is_some_and(|e| e.sock != s);
            if full || other {
                return None;
            }
        } else if !pend.is_empty() && cfg.mutant != Mutant::RedirectXskBatchReorder {
            return None;
        }
        let mut t = self.clone();
        t.arrived += 1;
        let p = t.arrived as usize - 1;
        if batched {
            t.pend[ci].push(Batched {
                pkt: t.arrived as u8,
                sock: s,
                tgt,
                len,
            });
            t.fate[p] = Fate::Busy;
            return Some(t);
        }
        match v {
            Verdict::Drop => t.fate[p] = Fate::XdpDrop,
            Verdict::Pass => t.fate[p] = Fate::XdpPass,
            Verdict::Redirect
                if s == 0
                    || self.st_of(s) != Sst::Bound
                    || (cfg.tx_only(s) && cfg.mutant != Mutant::RxRingMissingUnchecked) =>
            {
                if cfg.mutant != Mutant::RxRedirectErrLost {
                    t.fate[p] = Fate::RedirectErr;
                }
            }
            Verdict::Redirect if len > 1 && !cfg.sg => {
                t.fate[p] = Fate::RxDropped;
                t.bump(s, Counter::RxDropped);
            }
            Verdict::Redirect => {
                t.fate[p] = Fate::Busy;
                t.cpu[ci] = Recv {
                    stage: match cfg.path {
                        RxPath::Generic => Stage::Lock,
                        RxPath::Driver => Stage::Alloc,
                    },
                    pkt: t.arrived as u8,
                    sock: s,
                    tgt,
                    key: if cfg.mutant == Mutant::RedirectRereadsEntry { k } else { 0 },
                    len,
                    bufs: Vec::new(),
                    peek: None,
                    fast,
                };
            }
        }
        Some(t)
    }

    /// XskRcvBatch(c): in c's poll, with c idle, xsk_rcv_batch()
    /// receives the oldest packet of c's batch into the socket kept for
    /// it (redirect-xsk-batch-stale-sock: the one netdev_rx_queue names
    /// now), with xsk_rcv()'s checks as XdpRun makes them for a packet
    /// not batched (rx-redirect-err-lost has no effect here): the
    /// redirect error, -ENOSPC, or the receive on the fast path.
    pub fn xsk_rcv_batch(&self, cfg: &Config, c: Cpu) -> Option<State> {
        let ci = usize::from(c);
        let e = *self.pend.get(ci)?.first()?;
        if self.poller != Some(c) || self.cpu[ci].stage != Stage::Idle {
            return None;
        }
        let mut t = self.clone();
        t.pend[ci].remove(0);
        let s = if cfg.mutant == Mutant::RedirectXskBatchStaleSock {
            self.rxq_xsk
        } else {
            e.sock
        };
        let p = usize::from(e.pkt) - 1;
        if s == 0
            || self.st_of(s) != Sst::Bound
            || (cfg.tx_only(s) && cfg.mutant != Mutant::RxRingMissingUnchecked)
        {
            t.fate[p] = Fate::RedirectErr;
        } else if e.len > 1 && !cfg.sg && cfg.mutant != Mutant::RedirectXskBatchSgUnchecked {
            t.fate[p] = Fate::RxDropped;
            t.bump(s, Counter::RxDropped);
        } else {
            t.cpu[ci] = Recv {
                stage: Stage::Alloc,
                pkt: e.pkt,
                sock: s,
                tgt: e.tgt,
                key: 0,
                len: e.len,
                bufs: Vec::new(),
                peek: None,
                fast: true,
            };
        }
        Some(t)
    }

    /// RxLock(c): xsk_generic_rcv()'s spin_lock_bh(&xs->pool->rx_lock)
    /// (xsk-gen-rx-race: the socket's own lock; redirect-rereads-entry:
    /// the receive then goes to what its XSKMAP entry names now).
    pub fn rx_lock(&self, cfg: &Config, c: Cpu) -> Option<State> {
        let r = self.cpu.get(usize::from(c))?;
        if r.stage != Stage::Lock {
            return None;
        }
        let l = si(cfg.lock_of(r.sock));
        if self.lock[l].is_some() {
            return None;
        }
        let mut t = self.clone();
        t.lock[l] = Some(c);
        t.cpu[usize::from(c)].stage = Stage::Alloc;
        if cfg.mutant == Mutant::RedirectRereadsEntry {
            t.cpu[usize::from(c)].sock = self.map[si(r.key)];
        }
        Some(t)
    }

    /// XskRcvCheckRoom(c): before taking any buffer, __xsk_rcv() checks a
    /// packet of several chunks whole: xsk_buff_can_alloc() for every
    /// chunk (else rx_dropped), xskq_prod_nb_free() for every descriptor
    /// (else rx_queue_full; rx-mb-no-space-check: not checked).
    pub fn xsk_rcv_check_room(&self, cfg: &Config, c: Cpu) -> Option<State> {
        let r = self.cpu.get(usize::from(c))?;
        if r.stage != Stage::Alloc || !r.bufs.is_empty() || r.peek.is_some() || r.len <= 1 {
            return None;
        }
        let s = r.sock;
        let len = usize::from(r.len);
        let mut t = self.clone();
        if self.kfree.len() + self.fq.len() < len {
            t.bump(s, Counter::RxDropped);
            t.finish(cfg, c, Fate::RxDropped);
        } else if (cfg.rx_size as i64 - self.rx[si(s)].len() as i64) < len as i64
            && cfg.mutant != Mutant::RxMbNoSpaceCheck
        {
            t.bump(s, Counter::RxQueueFull);
            t.finish(cfg, c, Fate::RxQueueFull);
        } else {
            t.cpu[usize::from(c)].stage = Stage::Take;
        }
        Some(t)
    }

    /// What XpAllocFree and XpAllocPeek both need: c is taking buffers
    /// (a packet of several chunks only once checked whole), reads no
    /// fill ring entry, and needs another buffer.
    fn wants_buffer(&self, c: Cpu) -> bool {
        self.cpu.get(usize::from(c)).is_some_and(|r| {
            matches!(r.stage, Stage::Alloc | Stage::Take)
                && r.peek.is_none()
                && (r.stage != Stage::Alloc || r.len == 1)
                && r.bufs.len() < usize::from(r.len)
        })
    }

    /// XpAllocFree(c): xsk_buff_alloc() of one chunk from
    /// pool->free_list, its head.
    pub fn xp_alloc_free(&self, _cfg: &Config, c: Cpu) -> Option<State> {
        if !self.wants_buffer(c) || self.kfree.is_empty() {
            return None;
        }
        let mut t = self.clone();
        let b = t.kfree.remove(0);
        t.cpu[usize::from(c)].bufs.push(b);
        Some(t)
    }

    /// XpAllocPeek(c): with the free list empty, xp_alloc() reads the
    /// fill ring entry at cached_cons (xskq_cons_read_addr_unchecked()).
    pub fn xp_alloc_peek(&self, _cfg: &Config, c: Cpu) -> Option<State> {
        if !self.wants_buffer(c) || !self.kfree.is_empty() || self.fq.is_empty() {
            return None;
        }
        let mut t = self.clone();
        t.cpu[usize::from(c)].peek = Some(self.fq[0]);
        Some(t)
    }

    /// XpAllocTake(c): cached_cons moves past the entry
    /// (xskq_cons_release()); c keeps the buffer it read, whatever entry
    /// leaves the ring. The consumer is published later, by xsk_flush().
    pub fn xp_alloc_take(&self, _cfg: &Config, c: Cpu) -> Option<State> {
        let b = self.cpu.get(usize::from(c))?.peek?;
        if self.fq.is_empty() {
            return None;
        }
        let mut t = self.clone();
        let r = &mut t.cpu[usize::from(c)];
        r.bufs.push(b);
        r.peek = None;
        t.fq.remove(0);
        t.fq_held += 1;
        Some(t)
    }

    /// XpAllocFail(c): a single chunk finds neither a free buffer nor a
    /// fill ring entry: __xsk_rcv() returns -ENOMEM, counted in
    /// rx_dropped (rx-alloc-fail-uncounted: not counted).
    pub fn xp_alloc_fail(&self, cfg: &Config, c: Cpu) -> Option<State> {
        let r = self.cpu.get(usize::from(c))?;
        if r.stage != Stage::Alloc
            || r.len != 1
            || r.peek.is_some()
            || !r.bufs.is_empty()
            || !self.kfree.is_empty()
            || !self.fq.is_empty()
        {
            return None;
        }
        let mut t = self.clone();
        if cfg.mutant != Mutant::RxAllocFailUncounted {
            t.bump(r.sock, Counter::RxDropped);
        }
        t.finish(cfg, c, Fate::RxDropped);
        Some(t)
    }

    /// Listed(c, s): once c has reserved into s, s is flushed at the
    /// poll's end: xsk_rcv() puts s on c's XSKMAP flush list; the fast
    /// path keeps it in the driver's slot instead, or on the list if the
    /// slot holds another socket. The generic path flushes itself.
    fn listed(&mut self, cfg: &Config, c: Cpu, s: Sock) {
        if cfg.path == RxPath::Generic {
            return;
        }
        let ci = usize::from(c);
        if self.cpu[ci].fast && (self.fast_xs[ci] == 0 || self.fast_xs[ci] == s) {
            self.fast_xs[ci] = s;
        } else {
            self.flush[ci].insert(s);
        }
    }

    /// XskRcvReserve(c): every chunk copied, __xsk_rcv() reserves one
    /// descriptor each with xskq_prod_reserve_desc(), XDP_PKT_CONTD on all
    /// but the last, and the socket is listed for the flush. A single
    /// chunk that finds the ring full is rx_queue_full and
    /// xsk_buff_free() puts its buffer back at the head of the free list
    /// (rx-full-leak: it does not). Past a missing whole-packet check
    /// (rx-mb-no-space-check) what fits goes on the ring and the rest back
    /// to the free list. The room is counted from cached_prod
    /// (rx-room-from-published: from the published producer).
    pub fn xsk_rcv_reserve(&self, cfg: &Config, c: Cpu) -> Option<State> {
        let r = self.cpu.get(usize::from(c))?;
        if !matches!(r.stage, Stage::Alloc | Stage::Take)
            || r.peek.is_some()
            || r.len == 0
            || r.bufs.len() != usize::from(r.len)
        {
            return None;
        }
        let s = r.sock;
        let b = &r.bufs;
        // The free entries: cached_prod's distance from the consumer
        // (rx-room-from-published: counted from the published producer).
        let used = if cfg.mutant == Mutant::RxRoomFromPublished {
            self.rx_pub[si(s)] as i64
        } else {
            self.rx[si(s)].len() as i64
        };
        let room = cfg.rx_size as i64 - used;
        let n = room.min(b.len() as i64);
        // A negative room (a ring already past its size, which breaks
        // RingsBounded first) makes the spec index outside b: TLC stops
        // with an evaluation error there.
        assert!(
            n >= 0,
            "XskRcvReserve({c}): room {room} < 0: TLC stops with an evaluation error"
        );
        let descs = |n: i64| {
            (0..n as usize).map(|i| Desc {
                buf: b[i],
                pkt: r.pkt,
                contd: i + 1 < b.len(),
            })
        };
        let mut t = self.clone();
        if n == b.len() as i64 {
            t.rx[si(s)].extend(descs(n));
            t.listed(cfg, c, s);
            t.finish(cfg, c, Fate::Rx);
        } else if n == 0 {
            if cfg.mutant != Mutant::RxFullLeak {
                t.kfree.splice(0..0, b.iter().copied());
            }
            t.bump(s, Counter::RxQueueFull);
            t.finish(cfg, c, Fate::RxQueueFull);
        } else {
            t.rx[si(s)].extend(descs(n));
            let rest = b[n as usize..].iter().copied();
            t.kfree.splice(0..0, rest);
            t.listed(cfg, c, s);
            t.finish(cfg, c, Fate::Rx);
        }
        Some(t)
    }

    /// XskFlush(c): xsk_generic_rcv()'s xsk_flush() publishes the socket's
    /// rx producer and the fill ring's consumer (rx-flush-no-fq-release:
    /// not the consumer); then the lock is released.
    pub fn xsk_flush(&self, cfg: &Config, c: Cpu) -> Option<State> {
        let r = self.cpu.get(usize::from(c))?;
        if cfg.path != RxPath::Generic || r.stage != Stage::Flush {
            return None;
        }
        let s = r.sock;
        let mut t = self.clone();
        t.rx_pub[si(s)] = self.rx[si(s)].len() as u32;
        t.lock[si(cfg.lock_of(s))] = None;
        if cfg.mutant != Mutant::RxFlushNoFqRelease {
            t.fq_held = 0;
        }
        t.cpu[usize::from(c)] = Recv::IDLE;
        Some(t)
    }

    /// Done: every packet received, every CPU idle with an empty batch
    /// and no poll: the behaviour may end here (a stutter step).
    pub fn done(&self, cfg: &Config) -> Option<State> {
        let quiet = self.arrived == u32::from(cfg.max_pkts)
            && self.cpu.iter().all(|r| r.stage == Stage::Idle)
            && self.pend.iter().all(Vec::is_empty)
            && self.poller.is_none();
        quiet.then(|| self.clone())
    }
}
