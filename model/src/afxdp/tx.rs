//! Copy-mode transmit: __xsk_generic_xmit (net/xdp/xsk.c, 6.12.117
//! l.991-1100) for a socket without TX metadata, on a veth; multi-buffer
//! packets in packet.rs, the batch series' batches in batch.rs.

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
    /// does this.
    pub(super) fn submit_tx(&mut self, s: usize, descs: &[TxDesc]) -> bool {
        let items: Vec<_> = descs.iter().map(|d| (d.addr, d.len, d.options)).collect();
        if !self.socks[s].tx.user_reserve(&items) {
            return false;
        }
        for d in descs {
            if d.addr < self.setup.umem_len() {
                self.tx_tags.insert(d.addr, self.tx_seq);
            }
            self.tx_seq += 1;
        }
        true
    }

    /// One sendto(MSG_DONTWAIT) on socket `s`: 0 or an errno. Copy mode
    /// always has XDP_WAKEUP_TX in pool->cached_need_wakeup
    /// (xp_create_and_assign_umem sets it and no copy-mode path clears it),
    /// so __xsk_sendmsg always calls xsk_generic_xmit, need_wakeup or not.
    pub(super) fn sendto(&mut self, s: usize) -> i32 {
        let ret = if self.profile.tx_batch > 0 { self.generic_xmit_batch(s) } else { self.generic_xmit(s) };
        if self.profile.tx_cons_published_on_return {
            let k = &mut self.socks[s];
            k.tx.cons = k.tx.cached_cons;
        }
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
        self.profile.tx_budget + cfg!(feature = "mutant-diff-budget-33") as u32
    }

    /// One iteration of __xsk_generic_xmit's per-descriptor loop, the
    /// loop's tail included when its peek stops: Return ends the call.
    pub(super) fn xmit_desc(&mut self, s: usize, budget: &mut u32) -> Step {
        let (chunk, umem_len) = (self.setup.frame_size, self.setup.umem_len());
        let Some((addr, len, options)) = self.socks[s].tx.kernel_peek() else {
            // xskq_cons_read_desc on an empty ring: queue_empty_descs++.
            self.socks[s].stats.tx_ring_empty_descs += 1;
            return Step::Return(0);
        };
        if !aligned_valid(addr, len, options, chunk, umem_len) {
            // xskq_cons_is_valid_desc: invalid_descs++, the loop ends
            // with the descriptor still in the ring: `if
            // (xskq_has_descs(xs->tx))` (l.1075).
            self.socks[s].stats.tx_invalid_descs += 1;
            return Step::Return(self.invalid_after_loop(s, addr, options));
        }
        // `if (max_batch-- == 0) { err = -EAGAIN; goto out; }`: the
        // descriptor stays (peek does not consume).
        if *budget == 0 {
            return Step::Return(EAGAIN);
        }
        *budget -= 1;
        if self.socks[s].drain_cont {
            return self.drain_one(s, addr, options);
        }
        // xsk_cq_reserve_addr_locked: the backpressure on the CQ.
        if !self.cq.prod_reserve(addr, !self.profile.cq_addr_on_submit) {
            return Step::Return(self.profile.cq_full_errno);
        }
        // xsk_build_skb: XDP_TX_METADATA on a packet's first descriptor
        // without tx_metadata_len is -EINVAL, the CQ slot cancelled,
        // the descriptor left in place.
        if self.socks[s].skb.is_none() && options & XDP_TX_METADATA != 0 {
            self.cq.prod_cancel(1);
            return Step::Return(EINVAL);
        }
        if self.overflows(s, addr, len, options) {
            return Step::Next;
        }
        // xskq_cons_release.
        let k = &mut self.socks[s];
        k.tx.cached_cons = k.tx.cached_cons.wrapping_add(1);
        let mut pkt = k.skb.take().unwrap_or_default();
        pkt.push((addr, len));
        if contd(options) {
            k.skb = Some(pkt);
            return Step::Next;
        }
        self.direct_xmit(&pkt)
    }

    /// __dev_direct_xmit of a whole packet. veth frees (orphans) the skb
    /// inside the call, so xsk_destruct_skb publishes its completions
    /// before sendto returns, in order. veth_xmit drops, with
    /// NET_XMIT_DROP, a frame shorter than ETH_HLEN (pskb_may_pull) or
    /// longer than is_skb_forwardable allows (MTU + ETH_HLEN + VLAN_HLEN):
    /// the skb is freed (so completed) and __xsk_generic_xmit returns
    /// -EBUSY.
    pub(super) fn direct_xmit(&mut self, pkt: &[(u64, u32)]) -> Step {
        let addrs = self.completed_addrs(pkt);
        self.cq.prod_submit(&addrs, self.profile.cq_addr_on_submit);
        let len: u32 = pkt.iter().map(|d| d.1).sum();
        if !(ETH_HLEN..=VETH_MAX).contains(&len) {
            return Step::Return(EBUSY);
        }
        if self.setup.loopback && self.setup.rx_socket && pkt.len() == 1 {
            let _ = ETH_P_RINGLAB; // the harness writes it into the frame
            let tag = self.tx_tags.get(&pkt[0].0).copied().unwrap_or(u32::MAX);
            self.deliver(len, tag);
        }
        Step::Next
    }

    /// The addresses the CQ receives for a sent packet's descriptors.
    pub(super) fn completed_addrs(&self, pkt: &[(u64, u32)]) -> Vec<u64> {
        pkt.iter()
            .enumerate()
            .map(|(i, d)| if i == 0 || !self.profile.cq_addr_on_submit { self.profile.completed_addr(d.0) } else { d.0 })
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
        let all = self.cq.user_take(self.setup.comp_size);
        let (first, second) = all.into_iter().partition(|a| self.setup.owner(*a) == 0);
        Obs::Both { kicks, first, second }
    }
}
