//! The kernel's per-descriptor loop, __xsk_generic_xmit() (BatchSize = 0),
//! one spec action per method.

use ringlab_model::copy_tx::{Stage, TxResult};

use super::pool::Pool;
use super::sock::{Call, XskSock};
use super::umem::is_contd;
use super::{Disabled, Step};
use ringlab_ring::XdpDesc;

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
    /// the loop (the `xskq_has_descs()` branch after it). The packet being
    /// built, if any, is dropped (xsk_drop_skb()); then
    /// xsk_cq_submit_addr_single_locked() completes the descriptor's
    /// address alone if it can ([`super::cq::Cq::submit_single`]), and it
    /// is released and counted in tx_invalid_descs, drain_cont following
    /// its XDP_PKT_CONTD; otherwise the next sendto retries it, and
    /// drain_cont remembers whether the rest of a packet must go too.
    pub(super) fn invalid_desc(&mut self, pool: &Pool, d: XdpDesc) {
        let drain = self.skb.is_some() || self.drain_cont || is_contd(&d);
        if let Some(skb) = self.skb.take() {
            self.drop_skb(pool, skb);
        }
        if pool.cq.submit_single(pool.completion, d.addr, &mut self.cost) {
            self.invalid_descs += 1;
            self.tx.release();
            self.drain_cont = is_contd(&d);
        } else {
            self.drain_cont = drain;
        }
    }

    /// XmitReserve(s): the per-descriptor loop's head (batch 0).
    pub fn xmit_reserve(&mut self, pool: &Pool) -> Step {
        self.require("XmitReserve", Stage::Loop)?;
        if self.xcfg.batch != 0 {
            return Err(Disabled::new("XmitReserve", "this run batches"));
        }
        self.loop_head(pool);
        Ok(())
    }

    /// The loop's head in 6.12.117's order (xsk.c l.1012-1035):
    /// xskq_cons_peek_desc() validates the head descriptor, and an invalid
    /// one ends the loop whatever the budget (l.1075); then the budget
    /// (max_batch-- == 0: EAGAIN), the rest of a dropped packet
    /// (xs->drain_cont), and the completion slot reserved before
    /// xsk_build_skb() runs (xsk_cq_reserve_addr_locked(), the
    /// backpressure: none free, stop).
    pub(super) fn loop_head(&mut self, pool: &Pool) {
        match self.peek() {
            None => {
                if ringlab_mutant::on("mutant-mb-send-partial") {
                    self.send_partial(pool);
                }
                self.end_call();
            }
            Some(d) if !pool.umem.validate(&d) => {
                self.invalid_desc(pool, d);
                self.end_call();
            }
            Some(_) if self.call.done >= self.xcfg.budget => self.end_call(),
            Some(d) if self.drain_cont => {
                if !self.drain_one(pool, d) {
                    self.end_call();
                }
            }
            Some(_) if ringlab_mutant::on("mutant-xsk-shared-cq-race") => {
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
                    // mutant-xsk-cq-resv-fail: the skb was built before the
                    // reservation (before a6e944f25cdb, "xsk: Fix generic
                    // transmit when completion queue reservation fails");
                    // freeing it runs the destructor, which submits a slot
                    // that was never reserved.
                    if ringlab_mutant::on("mutant-xsk-cq-resv-fail") {
                        let skb = self.build_skb(pool, d);
                        self.tx.release();
                        pool.destruct_skb(skb, &mut self.cost);
                    }
                    self.end_call();
                } else {
                    self.call.stage = Stage::Reserved;
                    self.call.pend = 1;
                }
            }
        }
        self.end_step();
    }

    /// XmitReserveStore(s), mutant-xsk-shared-cq-race only: the store of
    /// the cq's cached_prod read by XmitReserve, whatever happened since.
    pub fn xmit_reserve_store(&mut self, pool: &Pool) -> Step {
        self.require("XmitReserveStore", Stage::Reserving)?;
        let d = self.peeked();
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
        if !ringlab_mutant::on("mutant-xsk-cq-leak-2019") {
            pool.cq.cancel(1, &mut self.cost);
        }
        self.end_call();
        self.end_step();
        Ok(())
    }

    /// XmitSend(s, o): xsk_build_skb() (the skb owns the descriptor's
    /// completion), xskq_cons_release(); a descriptor with XDP_PKT_CONTD
    /// stays in xs->skb (see [`XskSock::xmit_frag`]; sent is then its only
    /// outcome), a packet's last goes to __dev_direct_xmit() with driver
    /// result o.
    pub fn xmit_send(&mut self, pool: &Pool, o: TxResult) -> Step {
        self.require("XmitSend", Stage::Reserved)?;
        if !self.can(o) {
            return Err(Disabled::new(
                "XmitSend",
                format!("outcome {} is not in this run", o.id()),
            ));
        }
        let d = self.peeked();
        if is_contd(&d) {
            if o != TxResult::Sent {
                return Err(Disabled::new(
                    "XmitSend",
                    "a fragment is not transmitted: sent is its only outcome",
                ));
            }
            self.xmit_frag(pool, d);
            self.end_step();
            return Ok(());
        }
        let skb = self.build_skb(pool, d);
        self.tx.release();
        self.cost.doorbells += 1;
        match o {
            TxResult::Sent => {
                // xs->skb = NULL; the driver owns the skb.
                self.cost.descs += skb.addrs.len() as u64;
                pool.in_flight(|q| q.push(skb));
                self.continue_call();
            }
            TxResult::Busy => {
                // NETDEV_TX_BUSY: xskq_cons_cancel_n() puts the packet's
                // descriptors back for the retry, xsk_consume_skb() cancels
                // their slots; EAGAIN.
                self.cancel_packet(skb.addrs.len() as u32);
                // mutant-xsk-txbusy-rollback: the skb is freed with its
                // destructor, which completes the descriptors the ring will
                // send again (before b1b95cb5c0a9, "xsk: Rollback
                // reservation at NETDEV_TX_BUSY").
                if ringlab_mutant::on("mutant-xsk-txbusy-rollback") {
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
