//! A differential scenario: the sockets' setup and a sequence of
//! operations, and what each operation lets one observe. Serialised as the
//! replay file of `ringlab diff --replay`.

use serde::{Deserialize, Serialize};

/// Bytes the kernel keeps before packet data in copy-mode RX
/// (XDP_PACKET_HEADROOM, include/uapi/linux/bpf.h).
pub const XDP_PACKET_HEADROOM: u32 = 256;
/// EtherType the XDP program redirects to the RX socket.
pub const ETH_P_RINGLAB: u16 = 0x88B5;
/// EtherType of transmitted frames that must not reach the RX socket.
pub const ETH_P_TXONLY: u16 = 0x88B6;

/// What the XDP program does with an injected frame; the frame's
/// EtherType says which (bpf/xsk_redirect.bpf.c).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum XdpAct {
    /// `bpf_redirect_map(&xsks, queue)`: the RX socket.
    Redirect,
    /// `bpf_redirect_map(&xsks, queue + XSKMAP_SECOND)`: the second RX
    /// socket; with none there, the lookup fails and the frame is passed.
    Redirect2,
    /// XDP_DROP.
    Drop,
    /// XDP_PASS: to the stack, which has no use for it.
    Pass,
}

/// The XSKMAP index of the second RX socket, past the queue's own.
pub const XSKMAP_SECOND: u32 = 32;

impl XdpAct {
    pub fn ethertype(self) -> u16 {
        match self {
            XdpAct::Redirect => ETH_P_RINGLAB,
            XdpAct::Redirect2 => 0x88B7,
            XdpAct::Drop => 0x88B8,
            XdpAct::Pass => 0x88B9,
        }
    }
}

/// The two sockets: a TX socket on the veth's first end (with its own
/// umem, fill and completion rings) and, if `rx_socket`, an RX socket on
/// the other end, in the XDP program's XSKMAP at queue 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    pub frame_size: u32,
    /// Frames in each socket's umem.
    pub frames: u32,
    pub headroom: u32,
    pub fill_size: u32,
    pub comp_size: u32,
    pub rx_size: u32,
    pub tx_size: u32,
    pub need_wakeup: bool,
    pub rx_socket: bool,
    /// Transmitted frames carry ETH_P_RINGLAB and so arrive at the RX
    /// socket (xskxceiver's SEND_RECEIVE); otherwise ETH_P_TXONLY.
    pub loopback: bool,
    /// The TX socket is bound with XDP_USE_SG: descriptors with
    /// XDP_PKT_CONTD make multi-buffer packets.
    #[serde(default)]
    pub sg: bool,
    /// A second TX socket on the same device and queue shares the first
    /// one's umem (XDP_SHARED_UMEM): one buffer pool, so one fill and one
    /// completion ring for both.
    #[serde(default)]
    pub shared: bool,
    /// A second RX socket on the RX socket's device and queue shares its
    /// umem (XDP_SHARED_UMEM): one buffer pool, so one fill ring and one
    /// free list for both, and pool->rx_lock between them; each has its
    /// own RX ring and rx_dropped / rx_ring_full.
    #[serde(default)]
    pub rx_shared: bool,
}

impl Setup {
    pub fn umem_len(&self) -> u64 {
        self.frames as u64 * self.frame_size as u64
    }
    /// `pool->frame_len` (xsk_buff_pool.c:90): the largest frame copy-mode
    /// RX accepts.
    pub fn rx_frame_len(&self) -> u32 {
        self.frame_size - self.headroom - XDP_PACKET_HEADROOM
    }
    /// The `k`-th address the RX socket puts in its fill ring.
    pub fn fill_addr(&self, k: u64) -> u64 {
        (k % self.frames as u64) * self.frame_size as u64
    }
    /// Which socket a completed address is attributed to in [`Obs::Both`]:
    /// the first owns the lower half of the umem, the second the rest
    /// (scenarios with [`Op::KickBoth`] keep to this).
    pub fn owner(&self, addr: u64) -> usize {
        (addr >= self.umem_len() / 2) as usize
    }
}

/// XDP_PKT_CONTD (uapi if_xdp.h): more descriptors of this packet follow.
pub const XDP_PKT_CONTD: u32 = 1 << 0;

/// One TX descriptor as written to the ring, with the class it was drawn
/// from (a label only; validity is the model's to decide).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxDesc {
    pub addr: u64,
    pub len: u32,
    pub options: u32,
    pub class: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// Reserve (all or nothing), write and submit these on the TX ring.
    Tx(Vec<TxDesc>),
    /// One sendto(MSG_DONTWAIT).
    Kick,
    /// sendto until one call moves nothing (at most tx_size + 4 calls).
    KickIdle,
    /// Peek, read and release up to n completions.
    DrainCq(u32),
    /// XDP_STATISTICS of both sockets.
    Stats,
    /// Put n addresses in the RX socket's fill ring (all or nothing).
    Fill(u32),
    /// Send frames of these lengths from the peer (AF_PACKET).
    Inject(Vec<u32>),
    /// Peek, read and release up to n RX descriptors.
    ConsumeRx(u32),
    /// Send frames of these lengths from the peer, each with the EtherType
    /// of what the XDP program is to do with it.
    InjectAs(Vec<(u32, XdpAct)>),
    /// As ConsumeRx, on the second RX socket.
    ConsumeRx2(u32),
    /// As Tx, on the second (shared-umem) socket.
    Tx2(Vec<TxDesc>),
    /// One sendto on the second socket.
    Kick2,
    /// One sendto on each socket at the same time (two threads), then the
    /// whole completion ring drained.
    KickBoth,
    /// The published ring counters now (as at the end).
    Rings,
    /// poll(2) on the TX socket for POLLIN | POLLRDNORM | POLLOUT |
    /// POLLWRNORM, timeout 0.
    Poll,
    /// The same poll(2) on the RX socket.
    PollRx,
    /// getsockopt(XDP_STATISTICS) on each socket with this optlen.
    StatsLen(u32),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    pub rx_dropped: u64,
    pub rx_invalid_descs: u64,
    pub tx_invalid_descs: u64,
    pub rx_ring_full: u64,
    pub rx_fill_ring_empty_descs: u64,
    pub tx_ring_empty_descs: u64,
}

/// Every published ring counter and flags word, at a quiescent point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RingIdx {
    pub tx: (u32, u32),
    pub cq: (u32, u32),
    pub fill: (u32, u32),
    pub rx: (u32, u32),
    /// tx, cq, fill, rx flags (XDP_RING_NEED_WAKEUP).
    pub flags: [u32; 4],
    /// The second socket's TX ring.
    #[serde(default)]
    pub tx2: (u32, u32),
    /// The second RX socket's RX ring.
    #[serde(default)]
    pub rx2: (u32, u32),
}

/// What one operation shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Obs {
    Reserved(bool),
    /// Each sendto's result: 0, or the errno.
    Kicks(Vec<i32>),
    /// Completion addresses in ring order.
    Completions(Vec<u64>),
    Stats {
        tx: Stats,
        rx: Option<Stats>,
        #[serde(default)]
        tx2: Option<Stats>,
        #[serde(default)]
        rx2: Option<Stats>,
    },
    Injected(u32),
    /// (addr, len, options, tag) of each RX descriptor; the tag is the
    /// sequence number the frame's payload carries.
    Rx(Vec<(u64, u32, u32, u32)>),
    Rings(RingIdx),
    /// KickBoth: each socket's sendto result, and the completions drained
    /// afterwards split by [`Setup::owner`], each list in ring order.
    /// Which socket's completions come first is not compared: the two
    /// sendto calls hold different xs->mutex, and each skb's destructor
    /// (xsk_destruct_skb) takes the pool's CQ lock on its own, so the
    /// interleaving is the scheduler's. Within one socket the order is its
    /// transmit order (one skb at a time under its mutex, each completed
    /// inside __dev_direct_xmit on veth).
    Both { kicks: [i32; 2], first: Vec<u64>, second: Vec<u64> },
    /// poll's revents.
    Revents(u32),
    /// StatsLen: per socket, the u64 words getsockopt wrote (the optlen it
    /// returned / 8), or the errno.
    StatsWords { tx: Result<Vec<u64>, i32>, rx: Option<Result<Vec<u64>, i32>> },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub setup: Setup,
    pub ops: Vec<Op>,
}

impl Scenario {
    /// Operations that touch the rings (the campaign's throughput unit).
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}
