//! The kernel's per-descriptor loop, __xsk_generic_xmit() (BatchSize = 0),
//! one spec action per method.

use ringlab_model::copy_tx::{Stage, TxResult};

use super::pool::Pool;
use super::skb::Skb;
use super::sock::{Call, XskSock};
use super::{Disabled, Step};
use crate::ring::XdpDesc;

impl XskSock {
    fn require(&self, action: &'static str, stage: Stage) -> Step {
        if self.call.stage != stage {
            return Err(Disabled::new(
                action,
                format!(
                    "socket {} is at stage {}, not {}",
                    self.id,
                    self.call.stage.id(),
                    stage.id()
                ),
            ));
        }
        Ok(())
    }

    /// Sendto(s): sendto(MSG_DONTWAIT) enters __xsk_generic_xmit() (which
    /// takes xs->mutex, so one call per socket at a time).
    pub fn sendto(&mut self) -> Step {
        self.require("Sendto", Stage::Idle)?;
        self.call = Call {
            stage: Stage::Loop,
            ..Call::IDLE
        };
        Ok(())
    }

    /// InvalidDesc: the invalid descriptor at the head of the tx ring ends
    /// the loop; xsk_cq_submit_addr_single_locked() completes its address
    /// alone if no earlier completion is reserved, and it is released and
    /// counted in tx_invalid_descs; otherwise the next sendto retries it.
    pub(super) fn invalid_desc(&mut self, pool: &Pool, d: XdpDesc) {
        if pool.cq.submit_single(d.addr, &mut self.cost) {
            self.invalid_descs += 1;
            self.tx.release();
        }
    }

    /// XmitReserve(s): the loop's head: xskq_cons_peek_desc(), the budget
    /// (max_batch-- == 0: EAGAIN), the invalid-descriptor exit, and the
    /// completion slot reserved before xsk_build_skb() runs
    /// (xsk_cq_reserve_addr_locked(), the backpressure: none free, stop).
    pub fn xmit_reserve(&mut self, pool: &Pool) -> Step {
        self.require("XmitReserve", Stage::Loop)?;
        if self.xcfg.batch != 0 {
            return Err(Disabled::new("XmitReserve", "this run batches"));
        }
        match self.peek() {
            None => self.end_call(),
            Some(_) if self.call.done >= self.xcfg.budget => self.end_call(),
            Some(d) if !pool.umem.validate(&d) => {
                self.invalid_desc(pool, d);
                self.end_call();
            }
            Some(_) if cfg!(feature = "mutant-xsk-shared-cq-race") => {
                // Under the socket's own lock only: the read and the store
                // of cq->cached_prod are two steps (XmitReserveStore).
                match pool.cq.read_reservation(&mut self.cost) {
                    None => self.end_call(),
                    Some(snap) => {
                        self.call.stage = Stage::Reserving;
                        self.call.snap = snap;
                    }
                }
            }
            Some(d) => {
                if pool.cq.reserve(pool.completion, &[d.addr], &mut self.cost) == 0 {
                    self.end_call();
                } else {
                    self.call.stage = Stage::Reserved;
                    self.call.pend = 1;
                }
            }
        }
        self.end_step();
        Ok(())
    }

    /// XmitReserveStore(s), mutant-xsk-shared-cq-race only: the store of
    /// the cq's cached_prod read by XmitReserve, whatever happened since.
    pub fn xmit_reserve_store(&mut self, pool: &Pool) -> Step {
        self.require("XmitReserveStore", Stage::Reserving)?;
        let d = self.tx.read(self.tx.cached_cons());
        pool.cq
            .store_reservation(pool.completion, self.call.snap, d.addr, &mut self.cost);
        self.call.stage = Stage::Reserved;
        self.call.pend = 1;
        self.call.snap = 0;
        Ok(())
    }

    /// XmitAllocFail(s): sock_alloc_send_skb() in xsk_build_skb() failed;
    /// xsk_cq_cancel_locked() gives the slot back, EAGAIN.
    pub fn xmit_alloc_fail(&mut self, pool: &Pool) -> Step {
        self.require("XmitAllocFail", Stage::Reserved)?;
        if !self.xcfg.alloc_fails {
            return Err(Disabled::new(
                "XmitAllocFail",
                "allocations do not fail in this run",
            ));
        }
        self.cost.allocs += 1;
        // mutant-xsk-cq-leak-2019: the slot is neither submitted nor
        // cancelled (before 675716400da6, "xdp: fix possible cq entry leak").
        if !cfg!(feature = "mutant-xsk-cq-leak-2019") {
            pool.cq.cancel(1, &mut self.cost);
        }
        self.end_call();
        self.end_step();
        Ok(())
    }

    /// XmitSend(s, o): xsk_build_skb() (the skb is allocated and owns the
    /// descriptor's completion), xskq_cons_release(), then
    /// __dev_direct_xmit() with driver result o.
    pub fn xmit_send(&mut self, pool: &Pool, o: TxResult) -> Step {
        self.require("XmitSend", Stage::Reserved)?;
        if !self.can(o) {
            return Err(Disabled::new(
                "XmitSend",
                format!("outcome {} is not in this run", o.id()),
            ));
        }
        let d = self.tx.read(self.tx.cached_cons());
        self.cost.allocs += 1;
        pool.charge(self.id, 1, &mut self.cost);
        let skb = Skb {
            sock: self.id,
            addrs: vec![d.addr],
        };
        self.tx.release();
        self.cost.doorbells += 1;
        match o {
            TxResult::Sent => {
                // The driver owns the skb.
                pool.in_flight(|q| q.push(skb));
                self.cost.descs += 1;
                self.call.stage = Stage::Loop;
                self.call.pend = 0;
                self.call.done += 1;
            }
            TxResult::Busy => {
                // NETDEV_TX_BUSY: xskq_cons_cancel_n() puts the descriptor
                // back for the retry, xsk_consume_skb() cancels its slot;
                // EAGAIN.
                self.tx.cancel_n(1);
                // mutant-xsk-txbusy-rollback: the skb is freed with its
                // destructor, which completes the descriptor the ring will
                // send again (before b1b95cb5c0a9, "xsk: Rollback
                // reservation at NETDEV_TX_BUSY").
                if cfg!(feature = "mutant-xsk-txbusy-rollback") {
                    pool.destruct_skb(skb, &mut self.cost);
                } else {
                    pool.consume_skb(skb, &mut self.cost);
                }
                self.end_call();
            }
            TxResult::Drop => {
                // NET_XMIT_DROP: the stack freed the skb, and its
                // destructor completed it; EBUSY.
                pool.destruct_skb(skb, &mut self.cost);
                self.end_call();
            }
        }
        self.end_step();
        Ok(())
    }
}
