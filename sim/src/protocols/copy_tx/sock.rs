//! A socket's kernel side: its tx ring as consumer, the sendto in
//! progress, whose locals (__xsk_generic_xmit()'s budget count, the
//! reservation, the batch) the spec names call[s], and the multi-buffer
//! state of struct xdp_sock (xs->skb, xs->drain_cont).

use ringlab_model::copy_tx::{DropFrags, PublishFrags, Stage, TxResult};

use super::config::{CopyTxConfig, Publish};
use super::cost::Cost;
use super::skb::Skb;
use ringlab_ring::idx::sub;
use ringlab_ring::{KernelCons, Ring, RingMem, XdpDesc};
use ringlab_ring::sync::Arc;

/// The kernel's consumer side of a tx ring.
pub type TxCons = KernelCons<Arc<Ring<XdpDesc>>>;

/// The sendto in progress (spec: call[s]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub stage: Stage,
    /// Descriptors this call has handed to the driver.
    pub done: u32,
    /// Completion slots reserved for skbs not yet built.
    pub pend: u32,
    /// Batch descriptors with an skb, not yet handed to the driver.
    pub batch: Vec<XdpDesc>,
    /// mutant-xsk-shared-cq-race: the cq's cached_prod the reservation read.
    pub snap: u32,
}

impl Call {
    pub const IDLE: Call = Call {
        stage: Stage::Idle,
        done: 0,
        pend: 0,
        batch: Vec::new(),
        snap: 0,
    };
}

/// What the sendto loop needs of the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmitCfg {
    /// TX_BATCH_SIZE: descriptors one sendto may send.
    pub budget: u32,
    /// 0: the per-descriptor loop; n: seed 000's batch of n.
    pub batch: u32,
    pub alloc_fails: bool,
    pub outcomes: Vec<TxResult>,
    pub publish: Publish,
    /// Descriptors in one packet at most (MAX_SKB_FRAGS + 1); 1 without
    /// multi-buffer packets.
    pub max_frags: u32,
    pub drop_frags: DropFrags,
    pub publish_frags: PublishFrags,
}

impl XmitCfg {
    pub fn of(cfg: &CopyTxConfig) -> XmitCfg {
        XmitCfg {
            budget: cfg.spec.budget as u32,
            batch: cfg.spec.batch_size as u32,
            alloc_fails: cfg.spec.alloc_fails,
            outcomes: cfg.spec.outcomes.clone(),
            publish: cfg.publish,
            max_frags: if cfg.spec.multi_buf {
                cfg.spec.max_frags as u32
            } else {
                1
            },
            drop_frags: cfg.spec.drop_frags,
            publish_frags: cfg.spec.publish_frags,
        }
    }
}

/// struct xdp_sock, kernel side, for the copy path.
#[derive(Debug)]
pub struct XskSock {
    pub id: usize,
    pub tx: TxCons,
    pub call: Call,
    pub xcfg: XmitCfg,
    /// tx_invalid_descs: invalid descriptors completed and counted, and
    /// the descriptors of dropped packets.
    pub invalid_descs: u64,
    /// xs->skb: the packet being built, its fragments so far (spec:
    /// part[s]); never empty when present.
    pub skb: Option<Skb>,
    /// xs->drain_cont: the rest of a dropped packet is completed one
    /// descriptor at a time (spec: drain[s]).
    pub drain_cont: bool,
    /// A NETDEV_TX_BUSY rollback left `cached_cons` behind `->consumer`
    /// (spec: rewound[s]): read off the indices when it happened, kept
    /// because a later store of `->consumer` hides it.
    pub rewound: bool,
    pub cost: Cost,
}

impl XskSock {
    pub fn new(id: usize, tx: TxCons, xcfg: XmitCfg) -> XskSock {
        XskSock {
            id,
            tx,
            call: Call::IDLE,
            xcfg,
            invalid_descs: 0,
            skb: None,
            drain_cont: false,
            rewound: false,
            cost: Cost::default(),
        }
    }

    /// EndCall: the sendto returns.
    pub(super) fn end_call(&mut self) {
        self.call = Call::IDLE;
    }

    /// Continue: the loop goes on to the next descriptor.
    pub(super) fn continue_call(&mut self) {
        self.call.stage = Stage::Loop;
        self.call.pend = 0;
        self.call.done += 1;
    }

    /// Fragments of the packet being built (in the ring just before
    /// `cached_cons`: each was released when it was built).
    pub fn frags(&self) -> u32 {
        self.skb.as_ref().map_or(0, |k| k.addrs.len() as u32)
    }

    /// Whether `->consumer` stands past the first fragment of the packet
    /// being built (spec: pubd[s]).
    pub fn published_past_frags(&self) -> bool {
        use ringlab_ring::sync::Ordering::Relaxed;
        let n = self.frags();
        let first = sub(self.tx.cached_cons(), n);
        let cons = self.tx.ring().consumer().load(Relaxed);
        n > 0 && (1..=n).contains(&sub(cons, first))
    }

    /// Entries before `cached_cons` that a store of `->consumer` must not
    /// pass: with PublishFrags::Packet the fragments of the packet being
    /// built, which a NETDEV_TX_BUSY rollback takes back.
    fn kept(&self) -> u32 {
        match self.xcfg.publish_frags {
            PublishFrags::Packet => self.frags(),
            PublishFrags::All => 0,
        }
    }

    /// Store `->consumer` up to `cached_cons - keep`, if that is ahead of
    /// it (never back).
    fn publish_but(&mut self, keep: u32) {
        use ringlab_ring::sync::Ordering::Relaxed;
        let upto = sub(self.tx.cached_cons(), keep);
        // Relaxed: our own counter; only we store it.
        let cons = self.tx.ring().consumer().load(Relaxed);
        if (1..=self.tx.ring().size()).contains(&sub(upto, cons)) {
            self.cost.index_store();
            self.tx.cancel_n(keep);
            self.tx.publish();
            self.tx.release_n(keep);
        }
    }

    /// The end of a step: publish `->consumer` if it is time to. With
    /// [`Publish::EachStep`], up to what a batch may still cancel back
    /// (its unsent descriptors, xskq_cons_cancel_n()) or, unless a refresh
    /// already published past them, the fragments of the packet being
    /// built; with [`Publish::Kernel`], the per-descriptor loop leaves it
    /// to its peek, and a batch hands back its descriptors once it is
    /// sent, as the zero-copy batch does (__xskq_cons_release() per batch).
    pub(super) fn end_step(&mut self) {
        let out = if self.call.stage == Stage::BSend {
            self.call.batch.len() as u32
        } else {
            0
        };
        let time = match self.xcfg.publish {
            Publish::EachStep => true,
            Publish::Kernel => {
                self.xcfg.batch > 0 && matches!(self.call.stage, Stage::Loop | Stage::Idle)
            }
        };
        let frags = if self.published_past_frags() {
            0
        } else {
            self.frags()
        };
        if time {
            // Publish the sent, keep what a cancel can still reach.
            self.publish_but(out + frags);
        }
    }

    /// xskq_cons_peek_desc() without the validation: with an empty cache,
    /// xskq_cons_get_entries() publishes `->consumer` (with
    /// PublishFrags::Packet only up to the packet being built) and
    /// reloads `->producer`; then the entry at `cached_cons`, if any.
    pub(super) fn peek(&mut self) -> Option<XdpDesc> {
        if self.xcfg.publish == Publish::EachStep {
            self.nb_entries(1);
        }
        if self.tx.cached_prod() == self.tx.cached_cons() {
            self.cost.index_store();
            self.cost.idx_loads += 1;
            let keep = self.kept();
            self.tx.cancel_n(keep);
            self.tx.get_entries();
            self.tx.release_n(keep);
        }
        (self.tx.cached_prod() != self.tx.cached_cons()).then(|| self.peeked())
    }

    /// The descriptor at `cached_cons`, which the loop has peeked.
    pub fn peeked(&self) -> XdpDesc {
        self.tx.read(self.tx.cached_cons())
    }

    /// xskq_cons_nb_entries(max), with its cost.
    pub(super) fn nb_entries(&mut self, max: u32) -> u32 {
        if ringlab_ring::idx::sub(self.tx.cached_prod(), self.tx.cached_cons()) < max {
            self.cost.idx_loads += 1;
        }
        self.tx.nb_entries(max)
    }

    pub(super) fn can(&self, o: TxResult) -> bool {
        self.xcfg.outcomes.contains(&o)
    }
}
