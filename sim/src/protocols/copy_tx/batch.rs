//! Seed 000's batch (BatchSize > 0, design b): read up to n descriptors,
//! reserve their completion slots at once, allocate skbs in bulk (some may
//! fail), cancel the unused slots, transmit with xmit_more on all but the
//! last. What a batch cannot take goes through the loop's head (xmit.rs).

use ringlab_model::copy_tx::{Stage, TxResult};

use super::pool::Pool;
use super::skb::Skb;
use super::sock::XskSock;
use super::{Disabled, Step};
use ringlab_ring::idx::add;
use ringlab_ring::XdpDesc;

impl XskSock {
    /// The `n` descriptors from the consumer's position on.
    fn head(&self, n: u32) -> Vec<XdpDesc> {
        let first = self.tx.cached_cons();
        (0..n).map(|i| self.tx.read(add(first, i))).collect()
    }

    /// XmitBatchReserve(s): the loop's head with batching. When a batch is
    /// ready (no packet being built or drained, xsk_xmit_batch_ready()):
    /// xskq_cons_nb_entries() and the loads of up to n descriptors (n: the
    /// batch size, within the budget left), then one
    /// xsk_cq_reserve_locked() for the run of valid ones without options
    /// at the head (xskq_cons_peek_desc_batch()). Otherwise, or if that
    /// run is empty, one iteration of the per-descriptor loop.
    pub fn xmit_batch_reserve(&mut self, pool: &Pool) -> Step {
        if self.call.stage != Stage::Loop || self.xcfg.batch == 0 {
            return Err(Disabled::new(
                "XmitBatchReserve",
                format!(
                    "socket {} is at stage {} in a run with batch {}",
                    self.id,
                    self.call.stage.id(),
                    self.xcfg.batch
                ),
            ));
        }
        let left = self.xcfg.budget - self.call.done;
        let ready = self.skb.is_none() && !self.drain_cont;
        let n = if left == 0 || !ready {
            0
        } else {
            self.nb_entries(self.xcfg.batch.min(left))
        };
        let addrs: Vec<u64> = self
            .head(n)
            .iter()
            .take_while(|d| pool.umem.validate(d) && d.options == 0)
            .map(|d| d.addr)
            .collect();
        if addrs.is_empty() {
            self.loop_head(pool);
            return Ok(());
        }
        let k = pool.cq.reserve(pool.completion, &addrs, &mut self.cost);
        if k == 0 {
            self.end_call();
        } else {
            self.call.stage = Stage::BReserved;
            self.call.pend = k;
        }
        self.end_step();
        Ok(())
    }

    /// XmitBatchAlloc(s, j): the bulk allocation got j >= 1 of the pend
    /// skbs (all of them unless allocations can fail);
    /// xsk_cq_cancel_locked() gives back the other slots, and
    /// xskq_cons_release_n() takes the j descriptors into the batch.
    pub fn xmit_batch_alloc(&mut self, pool: &Pool, j: u32) -> Step {
        let pend = self.call.pend;
        let allowed = if self.xcfg.alloc_fails {
            (1..=pend).contains(&j)
        } else {
            j == pend
        };
        if self.call.stage != Stage::BReserved || !allowed {
            return Err(Disabled::new(
                "XmitBatchAlloc",
                format!(
                    "socket {} at stage {} with {pend} reserved cannot allocate {j}",
                    self.id,
                    self.call.stage.id()
                ),
            ));
        }
        self.cost.allocs += 1;
        pool.charge(self.id, j, &mut self.cost);
        pool.cq.cancel(pend - j, &mut self.cost);
        self.call.batch = self.head(j);
        self.tx.release_n(j);
        self.call.stage = Stage::BSend;
        self.call.pend = 0;
        Ok(())
    }

    /// XmitBatchAllocFail(s): the bulk allocation got nothing;
    /// xsk_cq_cancel_locked() gives back every slot, EAGAIN.
    pub fn xmit_batch_alloc_fail(&mut self, pool: &Pool) -> Step {
        if self.call.stage != Stage::BReserved || !self.xcfg.alloc_fails {
            return Err(Disabled::new(
                "XmitBatchAllocFail",
                format!(
                    "socket {} is at stage {} (allocations fail: {})",
                    self.id,
                    self.call.stage.id(),
                    self.xcfg.alloc_fails
                ),
            ));
        }
        self.cost.allocs += 1;
        pool.cq.cancel(self.call.pend, &mut self.cost);
        self.end_call();
        self.end_step();
        Ok(())
    }

    /// Free the batch's skbs from the `from`th on without a completion,
    /// their descriptors back on the ring (xskq_cons_cancel_n) and their
    /// slots cancelled.
    fn give_back(&mut self, pool: &Pool, from: usize) {
        let n = (self.call.batch.len() - from) as u32;
        self.tx.cancel_n(n);
        pool.cq.cancel(n, &mut self.cost);
        for _ in 0..n {
            pool.uncharge(self.id, &mut self.cost);
        }
    }

    /// XmitBatchSend(s, o): __dev_direct_xmit() of the batch's next skb,
    /// xmit_more unless it is the last, with driver result o.
    pub fn xmit_batch_send(&mut self, pool: &Pool, o: TxResult) -> Step {
        if self.call.stage != Stage::BSend || !self.can(o) {
            return Err(Disabled::new(
                "XmitBatchSend",
                format!(
                    "socket {} is at stage {} (outcome {})",
                    self.id,
                    self.call.stage.id(),
                    o.id()
                ),
            ));
        }
        let d = self.call.batch[0];
        let last = self.call.batch.len() == 1;
        let skb = Skb::of(self.id, d.addr);
        match o {
            TxResult::Sent => {
                pool.in_flight(|q| q.push(skb));
                self.cost.descs += 1;
                self.call.batch.remove(0);
                self.call.done += 1;
                if last {
                    self.cost.doorbells += 1;
                    self.call.stage = Stage::Loop;
                }
            }
            TxResult::Busy => {
                // The unsent go back and their slots are cancelled; EAGAIN.
                self.cost.doorbells += 1;
                self.give_back(pool, 0);
                self.end_call();
            }
            TxResult::Drop => {
                // This skb completes; the rest go back as for busy.
                self.cost.doorbells += 1;
                self.give_back(pool, 1);
                pool.destruct_skb(skb, &mut self.cost);
                self.end_call();
            }
        }
        self.end_step();
        Ok(())
    }
}
