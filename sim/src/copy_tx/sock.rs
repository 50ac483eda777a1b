//! A socket's kernel side: its tx ring as consumer, and the sendto in
//! progress, whose locals (__xsk_generic_xmit()'s budget count, the
//! reservation, the batch) the spec names call[s].

use ringlab_model::copy_tx::{Stage, TxResult};

use super::config::{CopyTxConfig, Publish};
use super::cost::Cost;
use crate::ring::{KernelCons, Ring, RingMem, XdpDesc};
use crate::sync::Arc;

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
}

impl XmitCfg {
    pub fn of(cfg: &CopyTxConfig) -> XmitCfg {
        XmitCfg {
            budget: cfg.spec.budget as u32,
            batch: cfg.spec.batch_size as u32,
            alloc_fails: cfg.spec.alloc_fails,
            outcomes: cfg.spec.outcomes.clone(),
            publish: cfg.publish,
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
    /// tx_invalid_descs: invalid descriptors completed and counted.
    pub invalid_descs: u64,
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
            cost: Cost::default(),
        }
    }

    /// EndCall: the sendto returns.
    pub(super) fn end_call(&mut self) {
        self.call = Call::IDLE;
    }

    /// The end of a step: publish `->consumer` if it is time to. With
    /// [`Publish::EachStep`], up to what a batch may still cancel back
    /// (its unsent descriptors, xskq_cons_cancel_n()); with
    /// [`Publish::Kernel`], the per-descriptor loop leaves it to its peek,
    /// and a batch hands back its descriptors once it is sent, as the
    /// zero-copy batch does (__xskq_cons_release() per batch).
    pub(super) fn end_step(&mut self) {
        use crate::sync::Ordering::Relaxed;
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
        let upto = crate::idx::sub(self.tx.cached_cons(), out);
        // Relaxed: our own counter; only we store it.
        if time && self.tx.ring().consumer().load(Relaxed) != upto {
            self.cost.index_store();
            // Publish the sent, keep the unsent where a cancel can reach them.
            self.tx.cancel_n(out);
            self.tx.publish();
            self.tx.release_n(out);
        }
    }

    /// xskq_cons_peek_desc() without the validation: with an empty cache,
    /// publish `->consumer` and reload `->producer` (xskq_cons_get_entries).
    pub(super) fn peek(&mut self) -> Option<XdpDesc> {
        if self.tx.cached_prod() == self.tx.cached_cons() {
            self.cost.index_store();
            self.cost.idx_loads += 1;
        }
        self.tx.peek_entry()
    }

    /// xskq_cons_nb_entries(max), with its cost.
    pub(super) fn nb_entries(&mut self, max: u32) -> u32 {
        if crate::idx::sub(self.tx.cached_prod(), self.tx.cached_cons()) < max {
            self.cost.idx_loads += 1;
        }
        self.tx.nb_entries(max)
    }

    pub(super) fn can(&self, o: TxResult) -> bool {
        self.xcfg.outcomes.contains(&o)
    }
}
