//! Copy-mode transmit: __xsk_generic_xmit (net/xdp/xsk.c, 6.12.117
//! l.991-1100) for a socket without TX metadata, on a veth; multi-buffer
//! packets in packet.rs, the batch series' batches in batch.rs. Each place
//! where a step of specs/XskCopyTx.tla ends says so to the chain's
//! recorder (`note*`, chain.rs), which costs nothing when none is on.

use crate::copy_tx::Stage;

use super::ghost::{Compl, TxSlot};
use super::scenario::{Obs, TxDesc, ETH_P_RINGLAB, XDP_PKT_CONTD};
use super::state::Model;
use super::validate::aligned_valid;

const EAGAIN: i32 = 11;
const EINVAL: i32 = 22;
const EBUSY: i32 = 16;
/// is_skb_forwardable's limit on a 1500-MTU veth: 1500 + 14 + 4.
const VETH_MAX: u32 = 1518;
/// XDP_TX_METADATA (uapi if_xdp.h).
const XDP_TX_METADATA: u32 = 1 << 1;
/// The Ethernet header the XDP program must see to redirect a frame.
const ETH_HLEN: u32 = 14;

/// xp_mb_desc.
pub(super) fn contd(options: u32) -> bool {
    options & XDP_PKT_CONTD != 0
}

/// What one descriptor did inside the loop.
pub(super) enum Step {
    Next,
    Return(i32),
}

impl Model {
    /// libxdp reserve + write + submit on socket `s`; the harness writes
    /// the frame's header and tag into the umem at submit time, and so
    /// does this. Each descriptor is a submission of its own (UserSubmit).
    pub(super) fn submit_tx(&mut self, s: usize, descs: &[TxDesc]) -> bool {
        let first = self.next_id;
        let items: Vec<_> = descs
            .iter()
            .enumerate()
            .map(|(i, d)| TxSlot { addr: d.addr, len: d.len, options: d.options, id: first + i as u32 })
            .collect();
        let start = self.socks[s].tx.prod;
        if !self.socks[s].tx.user_reserve(&items) {
            return false;
        }
        self.next_id += items.len() as u32;
        for d in descs {
            if d.addr < self.setup.umem_len() {
                self.tx_tags.insert(d.addr, self.tx_seq);
            }
            self.tx_seq += 1;
        }
        if self.rec.is_some() {
            // One step per descriptor: the producer as each was submitted.
            for (i, it) in items.iter().enumerate() {
                self.socks[s].tx.prod = start.wrapping_add(i as u32 + 1);
                self.note_submit(s, it);
            }
        }
        true
    }

    /// One sendto(MSG_DONTWAIT) on socket `s`: 0 or an errno. Copy mode
    /// always has XDP_WAKEUP_TX in pool->cached_need_wakeup
    /// (xp_create_and_assign_umem sets it and no copy-mode path clears it),
    /// so __xsk_sendmsg always calls xsk_generic_xmit, need_wakeup or not.
    pub(super) fn sendto(&mut self, s: usize) -> i32 {
        self.socks[s].done = 0;
        self.note(s, "Sendto", Stage::Loop, 0, &[]);
        let ret = if self.profile.tx_batch > 0 { self.generic_xmit_batch(s) } else { self.generic_xmit(s) };
        if self.profile.tx_cons_published_on_return {
            let k = &mut self.socks[s].tx;
            k.cons = k.cached_cons;
        }
        self.note_returned(s);
        ret
    }

    fn generic_xmit(&mut self, s: usize) -> i32 {
        let mut budget = self.tx_budget();
        // while (xskq_cons_peek_desc(xs->tx, &desc, xs->pool))
        loop {
            if let Step::Return(e) = self.xmit_desc(s, &mut budget) {
                return e;
            }
        }
    }

    /// `max_batch` at the start of __xsk_generic_xmit. The
    /// mutant-diff-budget-33 model allows one descriptor more.
    pub(super) fn tx_budget(&self) -> u32 {
        self.profile.tx_budget + ringlab_mutant::on("mutant-diff-budget-33") as u32
    }

    /// The spec action whose step the loop's head is: XmitReserve, or
    /// with batching XmitBatchReserve (which falls back to the same head).
    pub(super) fn head_action(&self) -> &'static str {
        if self.profile.tx_batch > 0 {
            "XmitBatchReserve"
        } else {
            "XmitReserve"
        }
    }

    /// One iteration of __xsk_generic_xmit's per-descriptor loop, the
    /// loop's tail included when its peek stops: Return ends the call.
    pub(super) fn xmit_desc(&mut self, s: usize, budget: &mut u32) -> Step {
        let head = self.head_action();
        let (chunk, umem_len) = (self.setup.frame_size, self.setup.umem_len());
        let Some(d) = self.socks[s].tx.kernel_peek() else {
            // xskq_cons_read_desc on an empty ring: queue_empty_descs++.
            self.socks[s].stats.tx_ring_empty_descs += 1;
            self.note_empty(s, head);
            return Step::Return(0);
        };
        if !aligned_valid(d.addr, d.len, d.options, chunk, umem_len) {
            // xskq_cons_is_valid_desc: invalid_descs++, the loop ends
            // with the descriptor still in the ring: `if
            // (xskq_has_descs(xs->tx))` (l.1075).
            self.socks[s].stats.tx_invalid_descs += 1;
            let e = self.invalid_after_loop(s, d);
            self.note_end(s, head);
            return Step::Return(e);
        }
        // `if (max_batch-- == 0) { err = -EAGAIN; goto out; }`: the
        // descriptor stays (peek does not consume).
        if *budget == 0 {
            self.note_end(s, head);
            return Step::Return(EAGAIN);
        }
        *budget -= 1;
        if self.socks[s].drain_cont {
            return self.drain_one(s, d);
        }
        // xsk_cq_reserve_addr_locked: the backpressure on the CQ.
        let first = self.socks[s].skb.is_none();
        if !self.cq.prod_reserve(d.compl(d.addr, !first as usize), !self.profile.cq_addr_on_submit) {
            self.note_end(s, head);
            return Step::Return(self.profile.cq_full_errno);
        }
        self.note(s, head, Stage::Reserved, 1, &[]);
        // xsk_build_skb: XDP_TX_METADATA on a packet's first descriptor
        // without tx_metadata_len is -EINVAL, the CQ slot cancelled,
        // the descriptor left in place (the spec's XmitAllocFail).
        if first && d.options & XDP_TX_METADATA != 0 {
            self.cq.prod_cancel(1);
            self.note_end(s, "XmitAllocFail");
            return Step::Return(EINVAL);
        }
        if self.overflows(s, d) {
            self.socks[s].done += 1;
            self.note(s, "XmitSend", Stage::Loop, 0, &[]);
            return Step::Next;
        }
        // xskq_cons_release.
        let k = &mut self.socks[s];
        k.tx.cached_cons = k.tx.cached_cons.wrapping_add(1);
        let mut pkt = k.skb.take().unwrap_or_default();
        pkt.push(d);
        if contd(d.options) {
            k.skb = Some(pkt);
            k.done += 1;
            self.note(s, "XmitSend", Stage::Loop, 0, &[]);
            return Step::Next;
        }
        if self.veth_drops(&pkt) {
            self.complete(&pkt);
            self.note_end(s, "XmitSend");
            return Step::Return(EBUSY);
        }
        self.socks[s].done += 1;
        self.send(s, &pkt, "XmitSend", Stage::Loop, &[]);
        Step::Next
    }

    /// veth_xmit drops, with NET_XMIT_DROP, a frame shorter than ETH_HLEN
    /// (pskb_may_pull) or longer than is_skb_forwardable allows (MTU +
    /// ETH_HLEN + VLAN_HLEN): the skb is freed (so completed) and
    /// __xsk_generic_xmit returns -EBUSY.
    pub(super) fn veth_drops(&self, pkt: &[TxSlot]) -> bool {
        let len: u32 = pkt.iter().map(|d| d.len).sum();
        !(ETH_HLEN..=VETH_MAX).contains(&len)
    }

    /// xsk_destruct_skb of a packet: its completions published.
    pub(super) fn complete(&mut self, pkt: &[TxSlot]) {
        let addrs = self.completed_addrs(pkt);
        self.cq.prod_submit(&addrs, self.profile.cq_addr_on_submit);
    }

    /// __dev_direct_xmit of a packet veth forwards: the driver owns the
    /// skb (the spec's `action` "sent", the call at `stage` with `batch`
    /// left), then frees (orphans) it inside the call, so xsk_destruct_skb
    /// publishes its completions before sendto returns (DriverFree).
    pub(super) fn send(&mut self, s: usize, pkt: &[TxSlot], action: &'static str, stage: Stage, batch: &[TxSlot]) {
        self.note_sent(s, pkt, action, stage, batch);
        self.complete(pkt);
        self.note_freed(s, pkt, stage, batch);
        if self.setup.loopback && self.setup.rx_socket && pkt.len() == 1 {
            let _ = ETH_P_RINGLAB; // the harness writes it into the frame
            let tag = self.tx_tags.get(&pkt[0].addr).copied().unwrap_or(u32::MAX);
            let len = pkt[0].len;
            self.deliver(0, len, tag);
        }
    }

    /// The completions the CQ receives for a packet's descriptors.
    pub(super) fn completed_addrs(&self, pkt: &[TxSlot]) -> Vec<Compl> {
        pkt.iter()
            .enumerate()
            .map(|(i, d)| {
                let a = if i == 0 || !self.profile.cq_addr_on_submit { self.profile.completed_addr(d.addr) } else { d.addr };
                d.compl(a, i)
            })
            .collect()
    }

    /// sendto on socket 0 until a call moves nothing the application can
    /// see: the published TX consumer stays put (6.12.117 publishes it
    /// only when a peek refreshes, so a call can move the kernel's
    /// cached_cons unseen).
    pub(super) fn kick_idle(&mut self) -> Vec<i32> {
        let mut out = Vec::new();
        for _ in 0..self.setup.tx_size + 4 {
            let before = self.socks[0].tx.cons;
            out.push(self.sendto(0));
            if self.socks[0].tx.cons == before {
                break;
            }
        }
        out
    }

    /// Both sockets' sendto, then the whole CQ drained and split by owner.
    /// Scenarios give KickBoth only valid single-buffer descriptors with
    /// room in the CQ for all of them, where one interleaving of the two
    /// calls predicts every other.
    pub(super) fn kick_both(&mut self) -> Obs {
        let kicks = [self.sendto(0), if self.socks.len() > 1 { self.sendto(1) } else { 0 }];
        let all = self.reap(self.setup.comp_size);
        let (first, second) = all.into_iter().partition(|a| self.setup.owner(*a) == 0);
        Obs::Both { kicks, first, second }
    }

    /// The application takes up to `n` completions (libxdp peek, read,
    /// release): one UserReap each.
    pub(super) fn reap(&mut self, n: u32) -> Vec<u64> {
        let start = self.cq.cons;
        let got = self.cq.user_take(n);
        if self.rec.is_some() {
            for (i, c) in got.iter().enumerate() {
                self.cq.cons = start.wrapping_add(i as u32 + 1);
                self.note_reap(c);
            }
        }
        got.iter().map(|c| c.addr).collect()
    }
}
