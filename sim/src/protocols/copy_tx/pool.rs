//! What the sockets bound to one device queue share (struct
//! xsk_buff_pool with XDP_SHARED_UMEM): the umem, the completion queue,
//! and the device's queue of skbs the driver owns.

use ringlab_model::copy_tx::Design;

use super::cost::Cost;
use super::cq::Cq;
use super::skb::Skb;
use super::umem::Umem;
use ringlab_ring::sync::{AtomicU32, Mutex, Ordering::Relaxed};

#[derive(Debug)]
pub struct Pool {
    pub umem: Umem,
    pub cq: Cq,
    /// How completions are produced (see [`Pool::new`]).
    pub completion: Design,
    /// The skbs handed to the driver and not yet freed, oldest first.
    pub txq: Mutex<Vec<Skb>>,
    /// Each socket's sk_wmem_alloc, in skbs: charged at allocation,
    /// uncharged when the skb is freed.
    pub wmem: Vec<AtomicU32>,
}

impl Pool {
    pub fn new(umem: Umem, cq: Cq, design: Design, sockets: usize) -> Pool {
        // mutant-xsk-immature-cq: design b's destructor publishes by count
        // what the reservation stored, the behaviour before 30f241fcf52a
        // ("xsk: Fix immature cq descriptor production").
        let completion = if ringlab_mutant::on("mutant-xsk-immature-cq") {
            Design::A
        } else {
            design
        };
        Pool {
            umem,
            cq,
            completion,
            txq: Mutex::new(Vec::new()),
            wmem: (0..sockets).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The device's queue, as it is.
    pub fn in_flight<R>(&self, f: impl FnOnce(&mut Vec<Skb>) -> R) -> R {
        f(&mut self.txq.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// skb_set_owner_w() for `n` skbs of socket `s`, in one charge.
    pub(crate) fn charge(&self, s: usize, n: u32, cost: &mut Cost) {
        cost.rmw += 1;
        self.wmem[s].fetch_add(n, Relaxed);
    }

    /// sock_wfree() of one skb of socket `s`.
    pub(crate) fn uncharge(&self, s: usize, cost: &mut Cost) {
        cost.rmw += 1;
        let was = self.wmem[s].fetch_sub(1, Relaxed);
        assert!(
            was > 0,
            "socket {s}: an skb freed twice (sk_wmem_alloc was 0)"
        );
    }

    /// xsk_destruct_skb(): publish the skb's completions, then sock_wfree().
    pub fn destruct_skb(&self, skb: Skb, cost: &mut Cost) {
        self.cq.submit(self.completion, &skb.addrs, cost);
        self.uncharge(skb.sock, cost);
    }

    /// xsk_consume_skb(): free the skb without its destructor's
    /// completion; its slots are cancelled instead.
    pub fn consume_skb(&self, skb: Skb, cost: &mut Cost) {
        self.cq.cancel(skb.addrs.len() as u32, cost);
        self.uncharge(skb.sock, cost);
    }
}
