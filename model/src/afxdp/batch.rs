//! Copy-mode batch transmit (XDP_GENERIC_XMIT_BATCH, the batch series on
//! 6.12.117): while no multi-buffer packet is open (xs->skb) and nothing
//! is being drained (xs->drain_cont), __xsk_generic_xmit takes a run of
//! plain valid descriptors at once, reserves their completion slots
//! together, builds their skbs and sends them in order. When no such run
//! is at the head of the ring, one iteration of the per-descriptor loop
//! (tx.rs) runs instead, and the batch is tried again after it.

use crate::copy_tx::Stage;

use super::ghost::TxSlot;
use super::state::Model;
use super::tx::Step;
use super::validate::aligned_valid;

const EBUSY: i32 = 16;

impl Model {
    /// __xsk_generic_xmit with `generic_xmit_batch` > 0. One budget
    /// counts the descriptors of both paths.
    pub(super) fn generic_xmit_batch(&mut self, s: usize) -> i32 {
        let batch = self.profile.tx_batch;
        let mut budget = self.tx_budget();
        loop {
            let k = &self.socks[s];
            if k.skb.is_none() && !k.drain_cont {
                let descs = self.xskq_cons_peek_desc_batch(s, batch.min(budget));
                if !descs.is_empty() {
                    match self.xsk_xmit_batch(s, &descs, &mut budget) {
                        Step::Next => continue,
                        Step::Return(e) => return e,
                    }
                }
            }
            if let Step::Return(e) = self.xmit_desc(s, &mut budget) {
                return e;
            }
        }
    }

    /// xskq_cons_peek_desc_batch: xskq_cons_nb_entries(max) (re-reads
    /// ->producer when fewer than `max` are cached, without publishing the
    /// consumer), then the longest run at cached_cons of descriptors that
    /// are valid (xp_validate_desc, which counts nothing) and carry no
    /// option. Nothing is consumed.
    pub(super) fn xskq_cons_peek_desc_batch(&mut self, s: usize, max: u32) -> Vec<TxSlot> {
        let (chunk, umem_len) = (self.setup.frame_size, self.setup.umem_len());
        let q = &mut self.socks[s].tx;
        if q.cached_prod.wrapping_sub(q.cached_cons) < max {
            q.cached_prod = q.prod;
        }
        let nb = q.cached_prod.wrapping_sub(q.cached_cons).min(max);
        (0..nb)
            .map(|i| q.slots[&(q.cached_cons.wrapping_add(i) & (q.size - 1))])
            .take_while(|d| d.options == 0 && aligned_valid(d.addr, d.len, d.options, chunk, umem_len))
            .collect()
    }

    /// xsk_cq_reserve_locked: a slot for as many of `descs` as the CQ has
    /// room for (xskq_prod_nb_free, xskq_prod_reserve_n); how many.
    pub(super) fn xsk_cq_reserve_locked(&mut self, descs: &[TxSlot]) -> u32 {
        let n = self.cq.prod_nb_free(descs.len() as u32);
        for d in &descs[..n as usize] {
            self.cq.prod_reserve(d.compl(d.addr, 0), !self.profile.cq_addr_on_submit);
        }
        n
    }

    /// One batch: slots reserved, skbs built (xsk_build_skb; no
    /// allocation fails here), the descriptors released and sent in order
    /// (__dev_direct_xmit with xmit_more on all but the last, which veth
    /// ignores). A full CQ ends the call as in the per-descriptor loop. A
    /// frame veth drops (NET_XMIT_DROP) is completed, and the skbs after
    /// it are given back: descriptors to the TX ring (xskq_cons_cancel_n),
    /// slots cancelled, -EBUSY.
    fn xsk_xmit_batch(&mut self, s: usize, descs: &[TxSlot], budget: &mut u32) -> Step {
        let r = self.xsk_cq_reserve_locked(descs);
        if r == 0 {
            self.note_end(s, "XmitBatchReserve");
            return Step::Return(self.profile.cq_full_errno);
        }
        self.note(s, "XmitBatchReserve", Stage::BReserved, r as i64, &[]);
        let sent = &descs[..r as usize];
        let tx = &mut self.socks[s].tx;
        tx.cached_cons = tx.cached_cons.wrapping_add(r);
        *budget -= r;
        self.note(s, "XmitBatchAlloc", Stage::BSend, 0, sent);
        for (i, d) in sent.iter().enumerate() {
            let rest = &sent[i + 1..];
            if self.veth_drops(&[*d]) {
                self.complete(&[*d]);
                let n = rest.len() as u32;
                let tx = &mut self.socks[s].tx;
                tx.cached_cons = tx.cached_cons.wrapping_sub(n);
                self.cq.prod_cancel(n);
                self.note_end(s, "XmitBatchSend");
                return Step::Return(EBUSY);
            }
            self.socks[s].done += 1;
            let stage = if rest.is_empty() { Stage::Loop } else { Stage::BSend };
            self.send(s, &[*d], "XmitBatchSend", stage, rest);
        }
        Step::Next
    }
}
