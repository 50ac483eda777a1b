//! Multi-buffer packets (XDP_PKT_CONTD) in __xsk_generic_xmit(): the skb
//! a packet's descriptors are built into (xs->skb), the drop of a whole
//! packet (xsk_drop_skb()), the completion one at a time of the rest of a
//! dropped packet (xs->drain_cont), and the NETDEV_TX_BUSY rollback of all
//! of a packet's descriptors. The spec's DropFrags is chosen here; its
//! PublishFrags where `->consumer` is stored ([`XskSock::peek`]).

use ringlab_model::copy_tx::DropFrags;

use super::pool::Pool;
use super::skb::Skb;
use super::sock::XskSock;
use super::umem::is_contd;
use ringlab_ring::idx::sub;
use ringlab_ring::{RingMem, XdpDesc};
use ringlab_ring::sync::Ordering::Relaxed;

impl XskSock {
    /// xsk_build_skb() for `d`: a packet's first descriptor allocates the
    /// skb (sock_alloc_send_skb(), charged to the socket); a later one
    /// adds a page to xs->skb (alloc_page(), skb_add_rx_frag(), and
    /// refcount_add() on sk_wmem_alloc).
    pub(super) fn build_skb(&mut self, pool: &Pool, d: XdpDesc) -> Skb {
        self.cost.allocs += 1;
        match self.skb.take() {
            None => {
                pool.charge(self.id, 1, &mut self.cost);
                Skb::of(self.id, d.addr)
            }
            Some(mut skb) => {
                self.cost.rmw += 1;
                skb.addrs.push(d.addr);
                skb
            }
        }
    }

    /// XmitSend(s) for a descriptor with XDP_PKT_CONTD. One too many
    /// (xsk_build_skb(): `nr_frags == MAX_SKB_FRAGS - 1 &&
    /// xp_mb_desc(desc)`, -EOVERFLOW): xsk_set_destructor_arg() counts d
    /// in, xsk_drop_skb() drops the packet, xskq_cons_release() consumes
    /// d, and the loop sets xs->drain_cont and goes on. Otherwise a
    /// fragment: xskq_cons_release(), `xs->skb = skb`, continue.
    pub(super) fn xmit_frag(&mut self, pool: &Pool, d: XdpDesc) {
        if self.frags() == self.xcfg.max_frags - 1 {
            let mut skb = self
                .skb
                .take()
                .expect("max_frags >= 2: a packet is being built");
            skb.addrs.push(d.addr);
            self.drop_skb(pool, skb);
            self.tx.release();
            self.drain_cont = true;
        } else {
            let skb = self.build_skb(pool, d);
            self.tx.release();
            self.skb = Some(skb);
        }
        self.continue_call();
    }

    /// xsk_drop_skb(): the packet's descriptors count in tx_invalid_descs;
    /// then DropFrags::Cancel (6.12.117) frees it with xsk_consume_skb(),
    /// which cancels their completion slots, so their frames never come
    /// back; DropFrags::Complete frees it with its destructor,
    /// xsk_destruct_skb(), which completes them.
    pub(super) fn drop_skb(&mut self, pool: &Pool, skb: Skb) {
        self.invalid_descs += skb.addrs.len() as u64;
        match self.xcfg.drop_frags {
            DropFrags::Cancel => pool.consume_skb(skb, &mut self.cost),
            DropFrags::Complete => pool.destruct_skb(skb, &mut self.cost),
        }
    }

    /// The loop's `xs->drain_cont` branch: `d` belongs to a dropped
    /// packet; xsk_cq_submit_addr_single_locked() completes it alone if it
    /// can ([`super::cq::Cq::submit_single`]), it is counted and released,
    /// and drain_cont follows its XDP_PKT_CONTD. False: -EAGAIN, nothing
    /// done.
    pub(super) fn drain_one(&mut self, pool: &Pool, d: XdpDesc) -> bool {
        if !pool.cq.submit_single(pool.completion, d.addr, &mut self.cost) {
            return false;
        }
        self.invalid_descs += 1;
        self.tx.release();
        self.drain_cont = is_contd(&d);
        self.continue_call();
        true
    }

    /// NETDEV_TX_BUSY: xskq_cons_cancel_n(xs->tx, xsk_get_num_desc(skb))
    /// puts all `n` of the packet's descriptors back for the retry. If a
    /// refresh had published `->consumer` past its fragments, `cached_cons`
    /// is now behind it: the consumer goes back over slots the application
    /// may have refilled (spec: rewound[s]).
    pub(super) fn cancel_packet(&mut self, n: u32) {
        self.tx.cancel_n_unchecked(n);
        let cons = self.tx.ring().consumer().load(Relaxed);
        let back = sub(cons, self.tx.cached_cons());
        if (1..=n).contains(&back) {
            self.rewound = true;
        }
    }

    /// mutant-mb-send-partial: the peek found the ring dry in the middle
    /// of a packet, and the fragments built so far go to the driver as a
    /// packet of their own.
    pub(super) fn send_partial(&mut self, pool: &Pool) {
        if let Some(mut skb) = self.skb.take() {
            skb.contd = true;
            self.cost.descs += skb.addrs.len() as u64;
            self.cost.doorbells += 1;
            pool.in_flight(|q| q.push(skb));
        }
    }
}
