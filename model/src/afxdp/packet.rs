//! Multi-buffer packets in copy-mode transmit (net/xdp/xsk.c, 6.12.117):
//! a descriptor with XDP_PKT_CONTD adds to xs->skb, the last one sends it;
//! one descriptor too many (-EOVERFLOW), or an invalid descriptor, drops
//! the packet, and the rest of a dropped packet is drained
//! (xs->drain_cont), each descriptor completed alone and counted invalid.

use crate::copy_tx::Stage;

use super::ghost::{Compl, TxSlot, Via};
use super::profile::DropFrags;
use super::state::Model;
use super::tx::{contd, Step};

const EAGAIN: i32 = 11;

impl Model {
    /// xsk_build_skb's check on a descriptor added to xs->skb, its CQ slot
    /// reserved: `nr_frags == MAX_SKB_FRAGS - 1 && xp_mb_desc(desc)` is
    /// -EOVERFLOW (l.912), so a packet has at most MAX_SKB_FRAGS + 1
    /// descriptors. On -EOVERFLOW xsk_set_destructor_arg counts this
    /// descriptor into the packet, xsk_drop_skb drops all of them, the
    /// descriptor is released (l.978) and the loop sets drain_cont and
    /// goes on (l.1043). True if the packet was dropped.
    pub(super) fn overflows(&mut self, s: usize, d: TxSlot) -> bool {
        let max = self.profile.max_skb_frags;
        let Some(pkt) = &self.socks[s].skb else { return false };
        // nr_frags: every descriptor after the first is a page fragment.
        if !(pkt.len() as u32 - 1 == max - 1 && contd(d.options)) {
            return false;
        }
        let mut pkt = self.socks[s].skb.take().unwrap_or_default();
        pkt.push(d);
        self.drop_packet(s, &pkt);
        let k = &mut self.socks[s];
        k.tx.cached_cons = k.tx.cached_cons.wrapping_add(1);
        k.drain_cont = true;
        true
    }

    /// xsk_drop_skb: every descriptor of the packet counted in
    /// invalid_descs; xsk_consume_skb cancels their CQ slots (or, under
    /// DropFrags::Complete, they are published).
    pub(super) fn drop_packet(&mut self, s: usize, pkt: &[TxSlot]) {
        self.socks[s].stats.tx_invalid_descs += pkt.len() as u64;
        match self.profile.drop_frags {
            DropFrags::Cancel => self.cq.prod_cancel(pkt.len() as u32),
            DropFrags::Complete => {
                // As a sent packet's: measured, the first address loses bit 0.
                let addrs = self.completed_addrs(pkt);
                self.cq.prod_submit(&addrs, self.profile.cq_addr_on_submit);
            }
        }
    }

    /// The loop's `xs->drain_cont` branch (l.1018): a valid descriptor of
    /// a dropped packet is completed alone (xsk_cq_submit_addr_single_locked:
    /// see Ring::submit_single; else -EAGAIN and it stays), counted
    /// invalid and released; draining goes on while descriptors carry
    /// XDP_PKT_CONTD.
    pub(super) fn drain_one(&mut self, s: usize, d: TxSlot) -> Step {
        let head = self.head_action();
        if !self.cq.submit_single(self.lone(&d), self.profile.cq_addr_on_submit) {
            self.note_end(s, head);
            return Step::Return(EAGAIN);
        }
        let k = &mut self.socks[s];
        k.stats.tx_invalid_descs += 1;
        k.tx.cached_cons = k.tx.cached_cons.wrapping_add(1);
        k.drain_cont = contd(d.options);
        k.done += 1;
        self.note(s, head, Stage::Loop, 0, &[]);
        Step::Next
    }

    /// After the loop, an invalid descriptor at the head of the ring
    /// (l.1075): a packet being built is dropped; the descriptor is
    /// completed alone and released, and drain_cont follows its
    /// XDP_PKT_CONTD. If it cannot be completed (Ring::submit_single) its
    /// count is undone, drain_cont remembers the drop, and sendto returns
    /// -EAGAIN with the descriptor still in place.
    pub(super) fn invalid_after_loop(&mut self, s: usize, d: TxSlot) -> i32 {
        let k = &mut self.socks[s];
        let drain = k.skb.is_some() || k.drain_cont || contd(d.options);
        if let Some(pkt) = k.skb.take() {
            self.drop_packet(s, &pkt);
        }
        let ok = self.cq.submit_single(self.lone(&d), self.profile.cq_addr_on_submit);
        let k = &mut self.socks[s];
        if !ok {
            k.stats.tx_invalid_descs -= 1;
            k.drain_cont = drain;
            return EAGAIN;
        }
        k.tx.cached_cons = k.tx.cached_cons.wrapping_add(1);
        k.drain_cont = contd(d.options);
        0
    }

    /// The lone completion of `d`: its address as the descriptor gave it.
    /// mutant-chain-unsubmitted-completion writes the next chunk's
    /// address instead, one the application never submitted.
    fn lone(&self, d: &TxSlot) -> Compl {
        let next = self.setup.frame_size as u64 * ringlab_mutant::on("mutant-chain-unsubmitted-completion") as u64;
        Compl { addr: d.addr.wrapping_add(next), id: d.id, via: Via::Lone }
    }
}
