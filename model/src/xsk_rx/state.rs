//! The spec's VARIABLES and Init, the CPU symmetry, and XskRedirectXsk's
//! refinement mapping.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

use super::config::{Config, Redirect};

/// A socket: the spec's number in 1..NSockets (0 is the spec's None).
pub type Sock = u8;
/// A umem buffer: the spec's number in 1..NBufs.
pub type Buf = u8;
/// A packet: the spec's number in 1..MaxPkts (0: none).
pub type Pkt = u8;
/// A CPU: its position in Config::cpus (the spec's model values).
pub type Cpu = u8;

/// An rx descriptor (spec: `[buf |-> b, pkt |-> p, contd |-> c]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Desc {
    pub buf: Buf,
    pub pkt: Pkt,
    /// XDP_PKT_CONTD: more descriptors of this packet follow.
    pub contd: bool,
}

/// `st[s]`: where a socket is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Sst {
    /// LateBind, not yet bound.
    Unbound,
    Bound,
    /// Released; synchronize_net() has not returned.
    Unbinding,
    Freed,
}

impl Sst {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Sst::Unbound => "unbound",
            Sst::Bound => "bound",
            Sst::Unbinding => "unbinding",
            Sst::Freed => "freed",
        }
    }
}

/// `fate[p]`: what happened to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Fate {
    None,
    Busy,
    Rx,
    XdpDrop,
    XdpPass,
    RedirectErr,
    RxDropped,
    RxQueueFull,
}

impl Fate {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Fate::None => "none",
            Fate::Busy => "busy",
            Fate::Rx => "rx",
            Fate::XdpDrop => "xdp_drop",
            Fate::XdpPass => "xdp_pass",
            Fate::RedirectErr => "redirect_err",
            Fate::RxDropped => "rx_dropped",
            Fate::RxQueueFull => "rx_queue_full",
        }
    }
}

/// `cpu[c].stage`: where a receive is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    Idle,
    /// Generic path: waiting for pool->rx_lock.
    Lock,
    /// Taking buffers (a packet of several chunks: before the room check).
    Alloc,
    /// A packet of several chunks, checked whole: taking its buffers.
    Take,
    /// Generic path: done, xsk_flush() and the unlock to come.
    Flush,
}

impl Stage {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Stage::Idle => "idle",
            Stage::Lock => "lock",
            Stage::Alloc => "alloc",
            Stage::Take => "take",
            Stage::Flush => "flush",
        }
    }
}

/// `cpu[c]`: the receive a CPU is in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Recv {
    pub stage: Stage,
    pub pkt: Pkt,
    /// The socket it receives into (0: none).
    pub sock: Sock,
    /// The socket the program's XSKMAP entry named when it ran (0: none).
    pub tgt: Sock,
    /// The XSKMAP index the program redirected to, kept only by the
    /// redirect-rereads-entry mutant (0: None).
    pub key: Sock,
    pub len: u8,
    /// The buffers taken so far, in order.
    pub bufs: Vec<Buf>,
    /// The fill ring entry read at cached_cons and not yet taken (None:
    /// the spec's None).
    pub peek: Option<Buf>,
    /// It took XDP_REDIRECT_XSK.
    pub fast: bool,
}

impl Recv {
    /// The spec's Idle.
    pub const IDLE: Recv = Recv {
        stage: Stage::Idle,
        pkt: 0,
        sock: 0,
        tgt: 0,
        key: 0,
        len: 0,
        bufs: Vec::new(),
        peek: None,
        fast: false,
    };
}

/// A packet in a CPU's XDP_REDIRECT_XSK batch, waiting for
/// xsk_rcv_batch() (spec: an element of `pend[c]`,
/// `[pkt |-> p, sock |-> s, tgt |-> t, len |-> n]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Batched {
    pub pkt: Pkt,
    /// The socket chosen for it when its program ran (the queue's).
    pub sock: Sock,
    /// The socket its XSKMAP entry named then (0: none).
    pub tgt: Sock,
    pub len: u8,
}

/// A socket's drop counters (spec: `cnt[s]`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Cnt {
    pub rx_dropped: u32,
    pub rx_queue_full: u32,
}

/// A state of the spec: its nineteen variables. Per-socket vectors are
/// indexed by s - 1, per-packet ones by p - 1, per-CPU ones by Cpu.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct State {
    /// Buffers the applications hold.
    pub ufree: BTreeSet<Buf>,
    /// Fill ring entries not taken, oldest first.
    pub fq: Vec<Buf>,
    /// Entries taken since the consumer was last published.
    pub fq_held: u32,
    /// pool->free_list, head first.
    pub kfree: Vec<Buf>,
    /// rx[s]: descriptors on s's rx ring, oldest first.
    pub rx: Vec<Vec<Desc>>,
    /// rxPub[s]: how many of them are published.
    pub rx_pub: Vec<u32>,
    pub st: Vec<Sst>,
    /// map[k]: the socket XSKMAP entry k names (0: None).
    pub map: Vec<Sock>,
    pub arrived: u32,
    pub fate: Vec<Fate>,
    pub cpu: Vec<Recv>,
    /// The CPU in the queue's NAPI poll.
    pub poller: Option<Cpu>,
    pub poll_start: u32,
    /// flush[c]: the sockets on c's XSKMAP flush list.
    pub flush: Vec<BTreeSet<Sock>>,
    /// lock[k]: the CPU holding lock k (pool->rx_lock is lock 1).
    pub lock: Vec<Option<Cpu>>,
    pub cnt: Vec<Cnt>,
    /// rxqXsk: the socket netdev_rx_queue keeps for the fast path (0:
    /// None).
    pub rxq_xsk: Sock,
    /// fastXs[c]: the socket c's poll received into on the fast path (0:
    /// None).
    pub fast_xs: Vec<Sock>,
    /// pend[c]: c's XDP_REDIRECT_XSK batch, oldest first.
    #[serde(default)]
    pub pend: Vec<Vec<Batched>>,
}

/// Index of socket s (or lock s) in a per-socket vector.
pub(super) fn si(s: Sock) -> usize {
    usize::from(s) - 1
}

impl State {
    /// The spec's Init (its only initial state).
    pub fn init(cfg: &Config) -> State {
        let ns = usize::from(cfg.n_sockets);
        let nc = cfg.cpus.len();
        let bound: Vec<Sock> = cfg.sockets().filter(|&s| !cfg.late(s)).collect();
        State {
            ufree: cfg.bufs().collect(),
            fq: Vec::new(),
            fq_held: 0,
            kfree: Vec::new(),
            rx: vec![Vec::new(); ns],
            rx_pub: vec![0; ns],
            st: cfg
                .sockets()
                .map(|s| {
                    if cfg.late(s) {
                        Sst::Unbound
                    } else {
                        Sst::Bound
                    }
                })
                .collect(),
            map: cfg.keys().map(|k| if cfg.late(k) { 0 } else { k }).collect(),
            arrived: 0,
            fate: vec![Fate::None; usize::from(cfg.max_pkts)],
            cpu: vec![Recv::IDLE; nc],
            poller: None,
            poll_start: 0,
            flush: vec![BTreeSet::new(); nc],
            lock: vec![None; ns],
            cnt: vec![Cnt::default(); ns],
            // CHOOSE s \in Sockets \ LateBind : TRUE of a one-element set.
            rxq_xsk: if cfg.redirect == Redirect::Xsk
                && bound.len() == 1
                && cfg.rxq_eligible(bound[0])
            {
                bound[0]
            } else {
                0
            },
            fast_xs: vec![0; nc],
            pend: vec![Vec::new(); nc],
        }
    }

    /// `st[s]`
    pub fn st_of(&self, s: Sock) -> Sst {
        self.st[si(s)]
    }

    /// Batched(p): packet p waits in a CPU's batch.
    pub fn batched(&self, p: Pkt) -> bool {
        self.pend.iter().flatten().any(|e| e.pkt == p)
    }

    /// FastSet(c): the socket c's fast path received into, as a set.
    pub fn fast_set(&self, c: Cpu) -> Option<Sock> {
        match self.fast_xs[usize::from(c)] {
            0 => None,
            s => Some(s),
        }
    }

    /// The image of this state under a renaming of CPUs (`p` maps CPU i
    /// to p[i]): the CPU-indexed variables move, and the CPUs poller and
    /// lock hold are renamed.
    pub fn permuted(&self, p: &[Cpu]) -> State {
        let mut t = self.clone();
        for (i, &to) in p.iter().enumerate() {
            let to = usize::from(to);
            t.cpu[to] = self.cpu[i].clone();
            t.flush[to] = self.flush[i].clone();
            t.fast_xs[to] = self.fast_xs[i];
            t.pend[to] = self.pend[i].clone();
        }
        t.poller = self.poller.map(|c| p[usize::from(c)]);
        for l in &mut t.lock {
            *l = l.map(|c| p[usize::from(c)]);
        }
        t
    }

    /// XskRedirectXsk.tla's Map: each receive is for the socket its
    /// program's XSKMAP entry named and took no fast path (AbsCpu), the
    /// socket the driver keeps to flush is on the CPU's flush list
    /// (AbsFlush), a packet in a batch has not arrived yet (AbsArrived,
    /// AbsFate), and the queue's socket pointer, the driver's slots and
    /// its batches are gone.
    pub fn refinement_image(&self) -> State {
        let mut t = self.clone();
        let mut waiting = 0;
        for (i, f) in t.fate.iter_mut().enumerate() {
            if self.batched((i + 1) as Pkt) {
                *f = Fate::None;
                waiting += 1;
            }
        }
        t.arrived -= waiting;
        t.pend.iter_mut().for_each(Vec::clear);
        for (c, r) in t.cpu.iter_mut().enumerate() {
            r.sock = r.tgt;
            r.fast = false;
            if let Some(s) = self.fast_set(c as Cpu) {
                t.flush[c].insert(s);
            }
        }
        t.rxq_xsk = 0;
        t.fast_xs.iter_mut().for_each(|x| *x = 0);
        t
    }
}

/// Every permutation of 0..n, the identity first.
pub fn permutations(n: usize) -> Vec<Vec<Cpu>> {
    crate::copy_tx::permutations(n)
}

/// The group SYMMETRY Perms (Permutations(Cpus)) generates: every
/// permutation of the CPUs.
pub fn symmetry_group(cfg: &Config) -> Vec<Vec<Cpu>> {
    permutations(cfg.cpus.len())
}
