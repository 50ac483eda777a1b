//! Copy-mode transmit: __xsk_generic_xmit (net/xdp/xsk.c, 6.12.117) for a
//! single-buffer socket without TX metadata, on a veth.

use super::scenario::{TxDesc, ETH_P_RINGLAB};
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

impl Model {
    /// libxdp reserve + write + submit; the harness writes the frame's
    /// header and tag into the umem at submit time, and so does this.
    pub(super) fn submit_tx(&mut self, descs: &[TxDesc]) -> bool {
        let items: Vec<_> = descs.iter().map(|d| (d.addr, d.len, d.options)).collect();
        if !self.tx.user_reserve(&items) {
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

    /// One sendto(MSG_DONTWAIT): 0 or an errno. Copy mode always has
    /// XDP_WAKEUP_TX in pool->cached_need_wakeup (xp_create_and_assign_umem
    /// sets it and no copy-mode path clears it), so __xsk_sendmsg always
    /// calls xsk_generic_xmit, need_wakeup or not.
    pub(super) fn sendto(&mut self) -> i32 {
        let ret = self.generic_xmit();
        if self.profile.tx_cons_published_on_return {
            self.tx.cons = self.tx.cached_cons;
        }
        ret
    }

    fn generic_xmit(&mut self) -> i32 {
        let mut budget = self.profile.tx_budget;
        let (chunk, umem_len) = (self.setup.frame_size, self.setup.umem_len());
        // while (xskq_cons_peek_desc(xs->tx, &desc, xs->pool))
        loop {
            let Some((addr, len, options)) = self.tx.kernel_peek() else {
                // xskq_cons_read_desc on an empty ring: queue_empty_descs++.
                self.tx_stats.tx_ring_empty_descs += 1;
                return 0;
            };
            if !aligned_valid(addr, len, options, chunk, umem_len) {
                // xskq_cons_is_valid_desc: invalid_descs++, peek fails; the
                // ring still has it, so `if (xskq_has_descs(xs->tx))` after
                // the loop completes it through xsk_cq_submit_addr_single_locked
                // (publishing at once: on veth no earlier TX is in flight),
                // releases it and returns 0. With the CQ full it undoes the
                // count (invalid_descs--) and returns -EAGAIN.
                self.tx_stats.tx_invalid_descs += 1;
                if !self.cq.kernel_has_room() {
                    self.tx_stats.tx_invalid_descs -= 1;
                    return EAGAIN;
                }
                self.cq.kernel_push(addr);
                self.tx.cached_cons = self.tx.cached_cons.wrapping_add(1);
                return 0;
            }
            // `if (max_batch-- == 0) { err = -EAGAIN; goto out; }`: the
            // descriptor stays (peek does not consume).
            if budget == 0 {
                return EAGAIN;
            }
            budget -= 1;
            // xsk_cq_reserve_addr_locked: the backpressure on the CQ.
            if !self.cq.kernel_has_room() {
                return self.profile.cq_full_errno;
            }
            // xsk_build_skb: XDP_TX_METADATA without tx_metadata_len is
            // -EINVAL, the CQ slot cancelled, the descriptor left in place.
            if options & XDP_TX_METADATA != 0 {
                return EINVAL;
            }
            // xskq_cons_release, __dev_direct_xmit. veth frees (orphans)
            // the skb inside the call, so xsk_destruct_skb publishes the
            // completion before sendto returns, in order.
            self.tx.cached_cons = self.tx.cached_cons.wrapping_add(1);
            self.cq.kernel_push(self.profile.completed_addr(addr));
            // veth_xmit drops, with NET_XMIT_DROP, a frame shorter than
            // ETH_HLEN (pskb_may_pull) or longer than is_skb_forwardable
            // allows (MTU + ETH_HLEN + VLAN_HLEN): the skb is freed (so
            // completed) and __xsk_generic_xmit returns -EBUSY.
            if !(ETH_HLEN..=VETH_MAX).contains(&len) {
                return EBUSY;
            }
            if self.setup.loopback && self.setup.rx_socket && len >= ETH_HLEN {
                let _ = ETH_P_RINGLAB; // the harness writes it into the frame
                let tag = self.tx_tags.get(&addr).copied().unwrap_or(u32::MAX);
                self.deliver(len, tag);
            }
        }
    }

    /// sendto until a call moves nothing: the TX consumer stays put (every
    /// transmitted or invalid descriptor advances it).
    pub(super) fn kick_idle(&mut self) -> Vec<i32> {
        let mut out = Vec::new();
        for _ in 0..self.setup.tx_size + 4 {
            let before = self.tx.cached_cons;
            out.push(self.sendto());
            if self.tx.cached_cons == before {
                break;
            }
        }
        out
    }
}
