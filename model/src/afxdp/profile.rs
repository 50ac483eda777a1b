//! Rules that differ between kernel releases, each named and tied to the
//! source line or the measurement it comes from. The running kernel's
//! profile is chosen from `uname -r`.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Profile {
    pub name: &'static str,
    /// Descriptors one sendto may transmit: TX_BATCH_SIZE (xsk.c:35);
    /// 6.17+ keeps it as the default of xs->max_tx_budget.
    pub tx_budget: u32,
    /// The sendto result when the completion queue is full
    /// (xsk_cq_reserve_addr_locked fails).
    pub cq_full_errno: i32,
    /// Whether __xsk_generic_xmit publishes the TX ring's consumer when it
    /// returns, rather than only at the next refresh inside a peek
    /// (xskq_cons_get_entries).
    pub tx_cons_published_on_return: bool,
    /// Whether a transmitted descriptor's completion loses bit 0 of its
    /// address.
    pub completion_clears_bit0: bool,
    /// MAX_SKB_FRAGS: a packet may have MAX_SKB_FRAGS + 1 descriptors
    /// (the first in the linear part, xsk_build_skb).
    pub max_skb_frags: u32,
    /// Whether a completion's address is written when the skb's destructor
    /// publishes it, rather than into the slot reserved for it
    /// (xsk_cq_reserve_addr_locked writes desc.addr at reserve time).
    /// Only sockets sharing a completion ring can tell.
    pub cq_addr_on_submit: bool,
    /// What a dropped multi-buffer packet's fragments become: their
    /// completion slots cancelled (xsk_drop_skb -> xsk_consume_skb ->
    /// xsk_cq_cancel_locked) or their addresses completed.
    pub drop_frags: DropFrags,
    /// XDP_GENERIC_XMIT_BATCH: descriptors built and sent as one batch
    /// (batch.rs); 0 is the per-descriptor loop.
    pub tx_batch: u32,
}

/// The fragments of a dropped packet (xsk_drop_skb).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DropFrags {
    /// Slots cancelled: the addresses never reach the completion ring.
    Cancel,
    /// Completed, each address once, in the packet's order.
    Complete,
}

/// linux 6.12.117 (Debian linux-source-6.12), read from the source:
/// `if (xsk_cq_reserve_addr_locked(xs, desc.addr)) goto out;` with err
/// still 0 (xsk.c, __xsk_generic_xmit), so a full CQ returns 0; the only
/// `__xskq_cons_release(xs->tx)` calls are in the zero-copy paths, so copy
/// mode publishes the consumer only in xskq_cons_get_entries.
pub const V6_12: Profile = Profile {
    name: "6.12",
    tx_budget: 32,
    cq_full_errno: 0,
    tx_cons_published_on_return: false,
    // xsk_cq_reserve_addr_locked writes desc.addr itself into the CQ.
    completion_clears_bit0: false,
    max_skb_frags: 17,
    cq_addr_on_submit: false,
    // xsk_drop_skb: invalid_descs += num; xsk_consume_skb cancels num slots.
    drop_frags: DropFrags::Cancel,
    tx_batch: 0,
};

/// linux 6.18, measured on the live kernel (kernel/tests/live.rs,
/// `profile_rules`): a full CQ makes sendto fail with EAGAIN, and the TX
/// consumer is visible right after sendto returns (upstream releases it on
/// the way out of __xsk_generic_xmit so that user space can count what one
/// call took).
pub const V6_18: Profile = Profile {
    name: "6.18",
    tx_budget: 32,
    cq_full_errno: libc_eagain(),
    tx_cons_published_on_return: true,
    // Measured: a frame sent from an odd umem address completes with the
    // even address below it. 6.18 carries the address to xsk_destruct_skb
    // in skb_shinfo(skb)->destructor_arg with bit 0 as the "single buffer"
    // tag, and masks the tag off the address it writes to the CQ.
    completion_clears_bit0: true,
    // BTF: struct xsk_addrs { u32 num_descs; u64 addrs[18]; }, i.e.
    // MAX_SKB_FRAGS + 1; /proc/sys/net/core/max_skb_frags reads 17.
    max_skb_frags: 17,
    // Measured (live.rs, `shared_umem_*`), and the BTF's struct xsk_addrs:
    // the destructor writes the packet's addresses at the producer as it
    // publishes them; for a multi-buffer packet only the first address
    // loses bit 0 (the others are kept as given), so `completed_addrs`.
    cq_addr_on_submit: true,
    // Measured (live.rs, `f1_dropped_fragment_completed`): f1 with
    // XDP_PKT_CONTD, then an invalid descriptor ending the packet, gives
    // completions [f1, f2] and tx_invalid_descs 2; a 20-descriptor packet
    // (-EOVERFLOW at the 19th) gives all 20 addresses and 20 invalid.
    drop_frags: DropFrags::Complete,
    tx_batch: 0,
};

const fn libc_eagain() -> i32 {
    11 // EAGAIN on Linux
}

impl Profile {
    /// The address the CQ receives for a transmitted descriptor at `addr`.
    pub fn completed_addr(&self, addr: u64) -> u64 {
        if self.completion_clears_bit0 {
            addr & !1
        } else {
            addr
        }
    }

    /// The profile of a `uname -r` release: 6.18 and later take V6_18,
    /// anything older V6_12 (the releases in between are not measured).
    pub fn for_release(release: &str) -> Profile {
        let mut it = release.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
        let major: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let minor: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        if (major, minor) >= (6, 18) {
            V6_18
        } else {
            V6_12
        }
    }

    /// 6.12.117 with the copy-mode batch series, batch off: the TX budget
    /// set with XDP_MAX_TX_SKB_BUDGET, and completions written when the
    /// skb is freed (the skb keeps its descriptors' addresses; a reserved
    /// CQ slot is only a count), full 64-bit addresses. So a lone
    /// completion (xsk_cq_submit_addr_single_locked) needs only a free
    /// slot. The rest of the loop is 6.12.117's.
    pub const fn design_b(budget: u32) -> Profile {
        Profile { name: "6.12+batch", tx_budget: budget, cq_addr_on_submit: true, ..V6_12 }
    }

    /// design_b with XDP_GENERIC_XMIT_BATCH = `batch` (batch.rs).
    pub const fn batch(batch: u32, budget: u32) -> Profile {
        Profile { tx_batch: batch, ..Profile::design_b(budget) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_picks_profile() {
        assert_eq!(Profile::for_release("6.18.44-fc-v595").name, "6.18");
        assert_eq!(Profile::for_release("6.12.117+deb12-amd64").name, "6.12");
        assert_eq!(Profile::for_release("7.0.1").name, "6.18");
    }

    #[test]
    fn batch_profile_is_6_12_with_design_b() {
        let p = Profile::batch(16, 64);
        assert_eq!((p.tx_batch, p.tx_budget, p.cq_addr_on_submit, p.completion_clears_bit0), (16, 64, true, false));
        assert_eq!((p.cq_full_errno, p.tx_cons_published_on_return, p.drop_frags), (0, false, DropFrags::Cancel));
        assert_eq!(Profile::design_b(32), Profile::batch(0, 32));
    }
}
