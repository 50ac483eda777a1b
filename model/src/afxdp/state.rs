//! The model's state: each ring's published counters and the kernel's
//! cached ones (struct xsk_queue), the buffer pool's free list, the
//! counters behind XDP_STATISTICS, and the tag in each umem frame; the
//! ghost identities (ghost.rs) in the TX and completion rings, and the
//! chain's recorder when one is on.

use std::collections::HashMap;

use super::chain::Recorder;
use super::rx_chain::RxRecorder;
use super::ghost::{Compl, Id, TxSlot};
use super::profile::Profile;
use super::poll::stats_words;
use super::scenario::{Obs, Op, RingIdx, Setup, Stats, XdpAct};

/// One ring: `prod`/`cons` are the published `->producer`/`->consumer`;
/// the kernel's side keeps `cached_prod`/`cached_cons` (xsk_queue.h).
#[derive(Debug, Clone, Default)]
pub struct Ring<T> {
    pub size: u32,
    pub prod: u32,
    pub cons: u32,
    pub cached_prod: u32,
    pub cached_cons: u32,
    pub slots: HashMap<u32, T>,
    /// The user consumer's cached `->producer` (libxdp xsk_ring_cons).
    pub user_cached_prod: u32,
}

impl<T: Clone> Ring<T> {
    pub fn new(size: u32) -> Self {
        Ring { size, prod: 0, cons: 0, cached_prod: 0, cached_cons: 0, slots: HashMap::new(), user_cached_prod: 0 }
    }
    /// The user producer's reserve (libxdp, all or nothing): it re-reads
    /// `->consumer` when short, so only the published consumer counts.
    pub fn user_reserve(&mut self, items: &[T]) -> bool {
        let free = self.size - self.prod.wrapping_sub(self.cons);
        if self.size == 0 || (items.len() as u32) > free {
            return false;
        }
        for it in items {
            self.slots.insert(self.prod & (self.size - 1), it.clone());
            self.prod = self.prod.wrapping_add(1);
        }
        true
    }
    /// The user consumer's peek + read + release of up to `n` entries.
    /// xsk_cons_nb_avail re-reads `->producer` only when nothing is
    /// cached, so a peek after a partial one sees only the rest of the
    /// earlier window.
    pub fn user_take(&mut self, n: u32) -> Vec<T> {
        if self.user_cached_prod == self.cons {
            self.user_cached_prod = self.prod;
        }
        let avail = self.user_cached_prod.wrapping_sub(self.cons).min(n);
        (0..avail)
            .map(|_| {
                let v = self.slots[&(self.cons & (self.size - 1))].clone();
                self.cons = self.cons.wrapping_add(1);
                v
            })
            .collect()
    }
    /// Kernel consumer's peek: refresh when the cached window is empty
    /// (xskq_cons_get_entries: publish cached_cons, re-read ->producer);
    /// the entry at cached_cons, if any.
    pub fn kernel_peek(&mut self) -> Option<T> {
        if self.cached_prod == self.cached_cons {
            self.cons = self.cached_cons;
            self.cached_prod = self.prod;
        }
        if self.cached_prod == self.cached_cons {
            return None;
        }
        Some(self.slots[&(self.cached_cons & (self.size - 1))].clone())
    }
    /// Kernel producer: room for one more (xskq_prod_is_full re-reads the
    /// consumer, so the published one decides).
    pub fn kernel_has_room(&self) -> bool {
        self.prod.wrapping_sub(self.cons) < self.size
    }
    /// Kernel producer: write and publish one entry.
    pub fn kernel_push(&mut self, v: T) {
        self.slots.insert(self.prod & (self.size - 1), v);
        self.prod = self.prod.wrapping_add(1);
    }
}

/// One TX socket: its ring, its counters, and the multi-buffer state of
/// struct xdp_sock.
#[derive(Debug, Clone)]
pub struct TxSock {
    pub tx: Ring<TxSlot>,
    pub stats: Stats,
    /// xs->skb: each descriptor of the packet being built; its CQ slots
    /// are reserved.
    pub skb: Option<Vec<TxSlot>>,
    /// xs->drain_cont: the rest of a dropped packet is still to come.
    pub drain_cont: bool,
    /// Ghost: descriptors the current sendto is done with, as the spec
    /// counts them (its call[s].done).
    pub done: i64,
}

impl TxSock {
    fn new(size: u32) -> TxSock {
        TxSock { tx: Ring::new(size), stats: Stats::default(), skb: None, drain_cont: false, done: 0 }
    }
}

#[derive(Debug, Clone)]
pub struct Model {
    pub setup: Setup,
    pub profile: Profile,
    /// The TX socket, and the second one when the umem is shared.
    pub socks: Vec<TxSock>,
    /// The completion ring (one per buffer pool, so shared).
    pub cq: Ring<Compl>,
    /// The tag last written into each TX umem frame (by frame start).
    pub tx_tags: HashMap<u64, u32>,
    pub tx_seq: u32,
    pub fill: Ring<u64>,
    /// The RX sockets' rings and counters: the RX socket, and the second
    /// one when the umem is shared (Setup::rx_shared).
    pub rx: Vec<RxSock>,
    /// xp_free puts buffers at the head of pool->free_list; xp_alloc takes
    /// from the head first.
    pub free_list: Vec<u64>,
    pub rx_tags: HashMap<u64, u32>,
    /// fq->queue_empty_descs: allocations that found the fill ring empty.
    pub fq_empty: u64,
    pub fill_seq: u64,
    pub inject_seq: u32,
    /// Ghost: the identity of the next submission.
    pub next_id: Id,
    /// The chain's recorder (chain.rs); None in `predict`.
    pub rec: Option<Box<Recorder>>,
    /// The receive chain's recorder (rx_chain.rs); None in `predict`.
    pub rx_rec: Option<Box<RxRecorder>>,
}

/// One RX socket: its ring and its own counters (rx_fill_ring_empty_descs
/// is the shared fill ring's, `Model::fq_empty`).
#[derive(Debug, Clone)]
pub struct RxSock {
    pub rx: Ring<(u64, u32, u32)>,
    /// xs->rx_dropped.
    pub rx_dropped: u64,
    /// xs->rx_queue_full.
    pub rx_ring_full: u64,
    /// This socket's allocations that found the fill ring empty; the
    /// kernel reports the ring's count (Model::fq_empty) on every socket
    /// of the pool instead.
    pub fq_empty_own: u64,
}

/// The first tag of injected frames, apart from transmitted ones.
pub const INJECT_TAG0: u32 = 1_000_000;

impl Model {
    pub fn new(setup: &Setup, profile: &Profile) -> Model {
        let rx = setup.rx_socket;
        Model {
            setup: setup.clone(),
            profile: *profile,
            socks: (0..1 + setup.shared as usize).map(|_| TxSock::new(setup.tx_size)).collect(),
            cq: Ring::new(setup.comp_size),
            tx_tags: HashMap::new(),
            tx_seq: 0,
            fill: Ring::new(if rx { setup.fill_size } else { 0 }),
            rx: (0..1 + (rx && setup.rx_shared) as usize)
                .map(|_| RxSock { rx: Ring::new(if rx { setup.rx_size } else { 0 }), rx_dropped: 0, rx_ring_full: 0, fq_empty_own: 0 })
                .collect(),
            fq_empty: 0,
            free_list: Vec::new(),
            rx_tags: HashMap::new(),
            fill_seq: 0,
            inject_seq: INJECT_TAG0,
            next_id: 0,
            rec: None,
            rx_rec: None,
        }
    }

    pub fn apply(&mut self, op: &Op) -> Obs {
        match op {
            Op::Tx(descs) => Obs::Reserved(self.submit_tx(0, descs)),
            Op::Kick => Obs::Kicks(vec![self.sendto(0)]),
            Op::KickIdle => Obs::Kicks(self.kick_idle()),
            Op::DrainCq(n) => Obs::Completions(self.reap(*n)),
            Op::Stats => Obs::Stats {
                tx: self.socks[0].stats,
                rx: self.setup.rx_socket.then(|| self.rx_stats(0)),
                tx2: self.socks.get(1).map(|k| k.stats),
                rx2: (self.rx.len() > 1).then(|| self.rx_stats(1)),
            },
            Op::Tx2(descs) => Obs::Reserved(self.socks.len() > 1 && self.submit_tx(1, descs)),
            Op::Kick2 => Obs::Kicks(vec![if self.socks.len() > 1 { self.sendto(1) } else { 0 }]),
            Op::KickBoth => self.kick_both(),
            Op::Rings => Obs::Rings(self.rings()),
            Op::Fill(n) => Obs::Reserved(self.user_fill(*n)),
            Op::Inject(lens) => {
                for len in lens {
                    self.inject(*len, XdpAct::Redirect);
                }
                Obs::Injected(lens.len() as u32)
            }
            Op::InjectAs(frames) => {
                for (len, act) in frames {
                    self.inject(*len, *act);
                }
                Obs::Injected(frames.len() as u32)
            }
            Op::ConsumeRx(n) => Obs::Rx(self.consume_rx(0, *n)),
            Op::ConsumeRx2(n) => Obs::Rx(self.consume_rx(1, *n)),
            Op::Poll => Obs::Revents(self.poll_tx()),
            Op::PollRx => Obs::Revents(self.poll_rx()),
            Op::StatsLen(len) => Obs::StatsWords {
                tx: stats_words(&self.socks[0].stats, *len),
                rx: self.setup.rx_socket.then(|| stats_words(&self.rx_stats(0), *len)),
            },
        }
    }

    /// The published counters and flags. setsockopt(XDP_TX_RING) sets
    /// XDP_RING_NEED_WAKEUP in the TX ring ("Tx needs to be explicitly
    /// woken up the first time", xsk.c:1600), with or without
    /// XDP_USE_NEED_WAKEUP; copy mode never changes a flag after that (only
    /// drivers call xsk_{set,clear}_{rx,tx}_need_wakeup).
    pub fn rings(&self) -> RingIdx {
        RingIdx {
            tx: (self.socks[0].tx.prod, self.socks[0].tx.cons),
            cq: (self.cq.prod, self.cq.cons),
            fill: (self.fill.prod, self.fill.cons),
            rx: (self.rx[0].rx.prod, self.rx[0].rx.cons),
            flags: [(self.setup.tx_size > 0) as u32, 0, 0, 0],
            tx2: self.socks.get(1).map_or((0, 0), |k| (k.tx.prod, k.tx.cons)),
            rx2: self.rx.get(1).map_or((0, 0), |k| (k.rx.prod, k.rx.cons)),
        }
    }
}
