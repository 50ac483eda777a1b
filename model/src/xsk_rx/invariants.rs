//! The spec's invariants, in the order the MC configs list them.

use super::config::{Config, RxPath};
use super::state::{si, Buf, Fate, Sst, Stage, State};

/// An invariant: its spec name and its predicate.
pub type Invariant = (&'static str, fn(&State, &Config) -> bool);

pub const INVARIANTS: [Invariant; 15] = [
    ("BufConservation", State::buf_conservation),
    ("PktAccounted", State::pkt_accounted),
    ("DropsCounted", State::drops_counted),
    ("MultiBufAllOrNone", State::multi_buf_all_or_none),
    ("ChunkedOnlyWithSG", State::chunked_only_with_sg),
    ("FlushedAtPollEnd", State::flushed_at_poll_end),
    ("NoUseAfterFree", State::no_use_after_free),
    ("NapiBudget", State::napi_budget),
    ("RingsBounded", State::rings_bounded),
    ("FillHeldReal", State::fill_held_real),
    ("DeliveredToKey", State::delivered_to_key),
    ("RxInOrder", State::rx_in_order),
    ("BatchBounded", State::batch_bounded),
    ("RxqXskInStep", State::rxq_xsk_in_step),
    ("RxRingPresent", State::rx_ring_present),
];

/// The invariant with this spec name.
pub fn invariant(name: &str) -> Option<Invariant> {
    INVARIANTS.into_iter().find(|(n, _)| *n == name)
}

impl State {
    /// Places(b): where buffer b is: with the application, on the fill
    /// ring, on the free list, held by a receive (its first MaxLen
    /// buffers), on an rx ring (its first RxSize descriptors), as the spec
    /// counts them.
    pub fn places(&self, cfg: &Config, b: Buf) -> usize {
        usize::from(self.ufree.contains(&b))
            + self.fq.iter().filter(|&&x| x == b).count()
            + self.kfree.iter().filter(|&&x| x == b).count()
            + self
                .cpu
                .iter()
                .map(|r| {
                    r.bufs
                        .iter()
                        .take(usize::from(cfg.max_len))
                        .filter(|&&x| x == b)
                        .count()
                })
                .sum::<usize>()
            + self
                .rx
                .iter()
                .map(|q| {
                    q.iter()
                        .take(cfg.rx_size as usize)
                        .filter(|d| d.buf == b)
                        .count()
                })
                .sum::<usize>()
    }

    /// BufConservation: every buffer is in exactly one place.
    pub fn buf_conservation(&self, cfg: &Config) -> bool {
        cfg.bufs().all(|b| self.places(cfg, b) == 1)
    }

    /// PktAccounted: every packet that arrived is being received or has
    /// an end, "busy" exactly while a CPU receives it (short of its
    /// flush) or it waits in a CPU's batch, and every descriptor on an rx ring is of a packet whose end
    /// is "rx".
    pub fn pkt_accounted(&self, _cfg: &Config) -> bool {
        let arrived = self
            .fate
            .iter()
            .enumerate()
            .all(|(i, f)| ((i as u32) < self.arrived) == (*f != Fate::None));
        let busy = self.fate.iter().enumerate().all(|(i, f)| {
            let p = (i + 1) as u8;
            let receiving = self
                .cpu
                .iter()
                .any(|r| !matches!(r.stage, Stage::Idle | Stage::Flush) && r.pkt == p);
            (*f == Fate::Busy) == (receiving || self.batched(p))
        });
        let on_rings = self
            .rx
            .iter()
            .flatten()
            .all(|d| self.fate[usize::from(d.pkt) - 1] == Fate::Rx);
        arrived && busy && on_rings
    }

    /// DropsCounted: each packet that ended in a counter is counted once.
    pub fn drops_counted(&self, _cfg: &Config) -> bool {
        let n = |f: Fate| self.fate.iter().filter(|&&x| x == f).count() as u64;
        let dropped: u64 = self.cnt.iter().map(|c| u64::from(c.rx_dropped)).sum();
        let full: u64 = self.cnt.iter().map(|c| u64::from(c.rx_queue_full)).sum();
        n(Fate::RxDropped) == dropped && n(Fate::RxQueueFull) == full
    }

    /// MultiBufAllOrNone: the published part of an rx ring never ends
    /// inside a packet.
    ///
    /// Panics if a socket's producer is past its ring (TLC: an evaluation
    /// error).
    pub fn multi_buf_all_or_none(&self, _cfg: &Config) -> bool {
        self.rx.iter().zip(&self.rx_pub).all(|(q, &p)| {
            p == 0 || {
                let d = q.get(p as usize - 1).unwrap_or_else(|| {
                    panic!(
                        "rxPub = {p} past an rx ring of {}: TLC stops with an evaluation error",
                        q.len()
                    )
                });
                !d.contd
            }
        })
    }

    /// ChunkedOnlyWithSG: without XDP_USE_SG no descriptor on an rx ring
    /// continues a packet.
    pub fn chunked_only_with_sg(&self, cfg: &Config) -> bool {
        cfg.sg || self.rx.iter().flatten().all(|d| !d.contd)
    }

    /// FlushedAtPollEnd: on the driver path, outside a NAPI poll, every
    /// flush list, driver slot and batch is empty and every descriptor
    /// reserved is published.
    pub fn flushed_at_poll_end(&self, cfg: &Config) -> bool {
        cfg.path != RxPath::Driver
            || self.poller.is_some()
            || (self.flush.iter().all(|f| f.is_empty())
                && self.fast_xs.iter().all(|&x| x == 0)
                && self.pend.iter().all(Vec::is_empty)
                && self
                    .rx
                    .iter()
                    .zip(&self.rx_pub)
                    .all(|(q, &p)| p as usize == q.len()))
    }

    /// NapiBudget: a NAPI poll handles at most its budget of packets.
    pub fn napi_budget(&self, cfg: &Config) -> bool {
        self.poller.is_none() || self.arrived - self.poll_start <= cfg.poll_budget
    }

    /// RingsBounded: no ring holds more than its size: the fill ring's
    /// entries not consumed plus those consumed and not released, each rx
    /// ring's descriptors.
    pub fn rings_bounded(&self, cfg: &Config) -> bool {
        self.fq.len() as u32 + self.fq_held <= cfg.fq_size
            && self.rx.iter().all(|q| q.len() as u32 <= cfg.rx_size)
    }

    /// FillHeldReal: the fill ring entries consumed and not released name
    /// buffers the kernel still has (fqHeld <= NBufs - Cardinality(ufree)
    /// - Len(fq)).
    pub fn fill_held_real(&self, cfg: &Config) -> bool {
        i64::from(self.fq_held)
            <= i64::from(cfg.n_bufs) - self.ufree.len() as i64 - self.fq.len() as i64
    }

    /// NoUseAfterFree: no receive, batch, flush list, driver slot, queue
    /// pointer, XSKMAP entry or ring holds a freed socket.
    pub fn no_use_after_free(&self, cfg: &Config) -> bool {
        cfg.sockets().all(|s| {
            self.st_of(s) != Sst::Freed
                || (self.cpu.iter().all(|r| r.sock != s)
                    && self.pend.iter().flatten().all(|e| e.sock != s)
                    && self.flush.iter().all(|f| !f.contains(&s))
                    && self.fast_xs.iter().all(|&x| x != s)
                    && self.rxq_xsk != s
                    && self.map.iter().all(|&e| e != s)
                    && self.rx[si(s)].is_empty())
        })
    }

    /// DeliveredToKey: a receive, or a packet in a batch, goes to the
    /// socket its program's XSKMAP entry named when the program ran.
    pub fn delivered_to_key(&self, _cfg: &Config) -> bool {
        self.cpu.iter().all(|r| r.sock == r.tgt)
            && self.pend.iter().flatten().all(|e| e.sock == e.tgt)
    }

    /// RxInOrder: on the driver path every rx ring holds its packets in
    /// the order they arrived.
    pub fn rx_in_order(&self, cfg: &Config) -> bool {
        cfg.path != RxPath::Driver
            || self
                .rx
                .iter()
                .all(|q| q.windows(2).all(|w| w[0].pkt <= w[1].pkt))
    }

    /// BatchBounded: a driver's batch fits its XSK_RCV_BATCH entries and
    /// is for one socket.
    pub fn batch_bounded(&self, cfg: &Config) -> bool {
        self.pend.iter().all(|q| {
            q.len() <= usize::from(cfg.batch) && q.iter().all(|e| e.sock == q[0].sock)
        })
    }

    /// RxqXskInStep: the queue's socket pointer names a bound socket with
    /// an Rx ring, and the only one bound.
    pub fn rxq_xsk_in_step(&self, cfg: &Config) -> bool {
        let q = self.rxq_xsk;
        q == 0
            || (self.st_of(q) == Sst::Bound
                && !cfg.tx_only(q)
                && cfg
                    .sockets()
                    .filter(|&o| o != q)
                    .all(|o| self.st_of(o) != Sst::Bound))
    }

    /// RxRingPresent: no receive (in any stage, on any CPU), batched
    /// packet, flush list, driver slot or rx descriptor is for a socket in
    /// TxOnly.
    pub fn rx_ring_present(&self, cfg: &Config) -> bool {
        cfg.tx_only.iter().all(|&s| {
            self.cpu.iter().all(|r| r.stage == Stage::Idle || r.sock != s)
                && self.pend.iter().flatten().all(|e| e.sock != s)
                && self.flush.iter().all(|f| !f.contains(&s))
                && self.fast_xs.iter().all(|&x| x != s)
                && self.rx[si(s)].is_empty()
        })
    }

    /// The first of the invariants `names` that this state violates, in
    /// the order given (TLC checks a .cfg's INVARIANTS in its order).
    ///
    /// Panics on a name that is not one of the spec's invariants.
    pub fn violated<S: AsRef<str>>(&self, cfg: &Config, names: &[S]) -> Option<&'static str> {
        names.iter().find_map(|name| {
            let (n, holds) = invariant(name.as_ref())
                .unwrap_or_else(|| panic!("XskRx.tla has no invariant {}", name.as_ref()));
            (!holds(self, cfg)).then_some(n)
        })
    }

    /// Every invariant this state violates, in INVARIANTS' order.
    pub fn violations(&self, cfg: &Config) -> Vec<&'static str> {
        INVARIANTS
            .iter()
            .filter(|(_, holds)| !holds(self, cfg))
            .map(|(n, _)| *n)
            .collect()
    }
}
