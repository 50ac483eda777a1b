//! The spec's VARIABLES, Init, and the permutations of its SYMMETRY.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

use super::config::{Config, Design, PublishFrags};

/// A frame: its position in Config::frames (the spec's model values).
pub type Frame = u16;
/// A socket: its position in Config::sockets.
pub type Sock = u8;

/// A tx descriptor (spec: Desc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Desc {
    pub addr: Frame,
    pub ok: bool,
    /// XDP_PKT_CONTD: more descriptors of this packet follow.
    pub contd: bool,
}

/// A reserved, unpublished completion slot (spec: an element of resv).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Slot {
    /// Design a: the address stored at reservation.
    Addr(Frame),
    /// Design b: the Placeholder model value.
    Placeholder,
}

/// An skb built and not yet destroyed (spec: an element of flight).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Skb {
    pub sock: Sock,
    pub addrs: Vec<Frame>,
    /// Its last descriptor's XDP_PKT_CONTD: set only if a packet left
    /// before its end (MultiBufAtomic).
    pub contd: bool,
}

/// Where a sendto is (spec: call[s].stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    Idle,
    Loop,
    /// xsk-shared-cq-race: cached_prod read, the new value not yet stored.
    Reserving,
    Reserved,
    BReserved,
    BSend,
}

impl Stage {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Stage::Idle => "idle",
            Stage::Loop => "loop",
            Stage::Reserving => "reserving",
            Stage::Reserved => "reserved",
            Stage::BReserved => "breserved",
            Stage::BSend => "bsend",
        }
    }
}

/// A socket's sendto in progress (spec: call[s]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Call {
    pub stage: Stage,
    /// Descriptors sent by this call.
    pub done: i64,
    /// Completion slots reserved for skbs not yet built.
    pub pend: i64,
    /// Batch skbs not yet handed to the driver.
    pub batch: Vec<Desc>,
    /// xsk-shared-cq-race: Len(resv) when the reservation began.
    pub snap: usize,
}

impl Call {
    /// The spec's Idle.
    pub const IDLE: Call = Call {
        stage: Stage::Idle,
        done: 0,
        pend: 0,
        batch: Vec::new(),
        snap: 0,
    };
}

/// A state of the spec: its ten variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct State {
    pub free: BTreeSet<Frame>,
    /// tx[s], oldest first.
    pub tx: Vec<Vec<Desc>>,
    /// Published completions, oldest first.
    pub cq: Vec<Frame>,
    pub resv: Vec<Slot>,
    pub flight: BTreeSet<Skb>,
    pub call: Vec<Call>,
    /// part[s]: xs->skb, the addresses of a packet's fragments built so
    /// far.
    pub part: Vec<Vec<Frame>>,
    /// drain[s]: xs->drain_cont.
    pub drain: Vec<bool>,
    /// pubd[s]: a refresh published the tx consumer past part[s].
    pub pubd: Vec<bool>,
    /// rewound[s] (history): the tx consumer went back over published
    /// slots.
    pub rewound: Vec<bool>,
}

impl State {
    /// The spec's Init (its only initial state).
    pub fn init(cfg: &Config) -> State {
        let ns = cfg.sockets.len();
        State {
            free: (0..cfg.frames.len() as Frame).collect(),
            tx: vec![Vec::new(); ns],
            cq: Vec::new(),
            resv: Vec::new(),
            flight: BTreeSet::new(),
            call: vec![Call::IDLE; ns],
            part: vec![Vec::new(); ns],
            drain: vec![false; ns],
            pubd: vec![false; ns],
            rewound: vec![false; ns],
        }
    }

    /// The slot a reservation for `addr` stores (CqReserve).
    pub fn slot_for(cfg: &Config, addr: Frame) -> Slot {
        match cfg.design {
            Design::A => Slot::Addr(addr),
            Design::B => Slot::Placeholder,
        }
    }

    /// TxUsed(s): ring slots the application cannot reuse.
    pub fn tx_used(&self, cfg: &Config, s: Sock) -> usize {
        let si = s as usize;
        self.tx[si].len()
            + match cfg.publish_frags {
                PublishFrags::Packet => self.part[si].len(),
                PublishFrags::All => 0,
            }
    }

    /// The spec's CqFree (negative once the ring is overrun).
    pub fn cq_free(&self, cfg: &Config) -> i64 {
        cfg.cq_size as i64 - self.cq.len() as i64 - self.resv.len() as i64
    }

    /// The image of this state under a renaming of frames (`f` maps frame
    /// i to f[i]) and of sockets (`s` likewise).
    pub fn permuted(&self, f: &[Frame], s: &[Sock]) -> State {
        let desc = |d: &Desc| Desc {
            addr: f[d.addr as usize],
            ..*d
        };
        let ns = self.tx.len();
        let mut tx = vec![Vec::new(); ns];
        let mut call = vec![Call::IDLE; ns];
        let mut part = vec![Vec::new(); ns];
        let (mut drain, mut pubd, mut rewound) = (vec![false; ns], vec![false; ns], vec![false; ns]);
        for i in 0..ns {
            let to = s[i] as usize;
            part[to] = self.part[i].iter().map(|&x| f[x as usize]).collect();
            drain[to] = self.drain[i];
            pubd[to] = self.pubd[i];
            rewound[to] = self.rewound[i];
        }
        for (i, q) in self.tx.iter().enumerate() {
            tx[s[i] as usize] = q.iter().map(desc).collect();
        }
        for (i, c) in self.call.iter().enumerate() {
            call[s[i] as usize] = Call {
                batch: c.batch.iter().map(desc).collect(),
                ..c.clone()
            };
        }
        State {
            free: self.free.iter().map(|&x| f[x as usize]).collect(),
            tx,
            cq: self.cq.iter().map(|&x| f[x as usize]).collect(),
            resv: self
                .resv
                .iter()
                .map(|r| match r {
                    Slot::Addr(x) => Slot::Addr(f[*x as usize]),
                    Slot::Placeholder => Slot::Placeholder,
                })
                .collect(),
            flight: self
                .flight
                .iter()
                .map(|k| Skb {
                    sock: s[k.sock as usize],
                    addrs: k.addrs.iter().map(|&x| f[x as usize]).collect(),
                    contd: k.contd,
                })
                .collect(),
            call,
            part,
            drain,
            pubd,
            rewound,
        }
    }
}

/// The spec's SubSeq(q, m, n) as TLC evaluates it: empty when m > n,
/// otherwise m and n must be in 1..Len(q).
pub fn sub_seq<T: Clone>(q: &[T], m: i64, n: i64) -> Vec<T> {
    if m > n {
        return Vec::new();
    }
    let len = q.len() as i64;
    assert!(
        (1..=len).contains(&m) && (1..=len).contains(&n),
        "SubSeq(q, {m}, {n}) of a sequence of length {len}: TLC stops with an evaluation error"
    );
    q[(m - 1) as usize..n as usize].to_vec()
}

/// The spec's DropLast(q, k).
pub fn drop_last<T: Clone>(q: &[T], k: i64) -> Vec<T> {
    sub_seq(q, 1, q.len() as i64 - k)
}

/// Every permutation of 0..n, the identity first.
pub fn permutations(n: usize) -> Vec<Vec<u8>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in (0..n).rev() {
            let mut q = p.clone();
            q.insert(at, (n - 1) as u8);
            out.push(q);
        }
    }
    out
}

/// The group TLC's SYMMETRY Perms generates: Permutations(Frames) \cup
/// Permutations(Sockets) generates every pair of a frame and a socket
/// permutation.
pub fn symmetry_group(cfg: &Config) -> Vec<(Vec<Frame>, Vec<Sock>)> {
    let fs: Vec<Vec<Frame>> = permutations(cfg.frames.len()).into_iter().map(|p| p.into_iter().map(Frame::from).collect()).collect();
    let ss = permutations(cfg.sockets.len());
    fs.iter()
        .flat_map(|f| ss.iter().map(move |s| (f.clone(), s.clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_all_distinct() {
        let p = permutations(3);
        assert_eq!(p.len(), 6);
        assert_eq!(p[0], [0, 1, 2]);
        assert_eq!(p.iter().collect::<BTreeSet<_>>().len(), 6);
        assert_eq!(symmetry_group(&Config::design_b()).len(), 12);
    }
}
