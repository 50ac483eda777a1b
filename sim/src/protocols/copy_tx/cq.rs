//! The completion queue the sockets share (pool->cq) and its lock
//! (pool->cq_lock): every producer operation of the copy path, each one
//! critical section, with its cost.

use ringlab_model::copy_tx::Design;

use super::cost::Cost;
use ringlab_ring::idx::sub;
use ringlab_ring::{KernelProd, Ring, RingMem};
use ringlab_ring::sync::Ordering::Relaxed;
use ringlab_ring::sync::{Arc, Mutex};

/// The kernel's producer side of the completion ring.
pub type CqProd = KernelProd<Arc<Ring<u64>>>;

/// Bytes of a completion entry.
const ENTRY: u64 = 8;

#[derive(Debug)]
pub struct Cq {
    /// pool->cq_lock around pool->cq.
    prod: Mutex<CqProd>,
}

impl Cq {
    pub fn new(prod: CqProd) -> Cq {
        Cq {
            prod: Mutex::new(prod),
        }
    }

    /// The producer as it is, for projections and checks; no cost. A
    /// panic under the lock (a broken ring assertion) does not hide it.
    pub fn peek<R>(&self, f: impl FnOnce(&CqProd) -> R) -> R {
        f(&self.prod.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// spin_lock_irqsave(&pool->cq_lock) ... unlock, around `f`.
    fn locked<R>(&self, cost: &mut Cost, f: impl FnOnce(&mut CqProd, &mut Cost) -> R) -> R {
        cost.lock();
        let mut g = self.prod.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g, cost)
    }

    /// xskq_prod_nb_free() with its cost: a load of `->consumer` when the
    /// cache shows fewer than `max` free.
    fn nb_free(p: &mut CqProd, max: u32, cost: &mut Cost) -> u32 {
        let cached_free = p.ring().size() - sub(p.cached_prod(), p.cached_cons());
        if cached_free < max {
            cost.idx_loads += 1;
        }
        p.nb_free(max)
    }

    /// xsk_cq_reserve_addr_locked() (design a: each address stored in its
    /// slot now) or xsk_cq_reserve_locked() (design b: the slots only),
    /// for up to addrs.len() slots; returns how many were reserved.
    pub fn reserve(&self, design: Design, addrs: &[u64], cost: &mut Cost) -> u32 {
        self.locked(cost, |p, cost| {
            let k = Cq::nb_free(p, addrs.len() as u32, cost);
            match design {
                Design::A => {
                    let first = p.cached_prod();
                    p.write_addr_batch(&addrs[..k as usize]);
                    cost.slots(first, k, p.ring().mask(), ENTRY);
                }
                Design::B => {
                    p.reserve_n(k);
                }
            }
            k
        })
    }

    /// xsk_cq_cancel_locked(n): xskq_prod_cancel_n() gives back the last
    /// n reserved slots, whoever reserved them.
    pub fn cancel(&self, n: u32, cost: &mut Cost) {
        if n > 0 {
            self.locked(cost, |p, _| p.cancel_n(n));
        }
    }

    /// The completion of xsk_destruct_skb(): design a publishes the next
    /// addrs.len() reserved slots, whatever they hold (xskq_prod_submit_n);
    /// design b first stores the skb's own addresses at `->producer`.
    pub fn submit(&self, design: Design, addrs: &[u64], cost: &mut Cost) {
        self.locked(cost, |p, cost| {
            let n = addrs.len() as u32;
            if design == Design::B {
                let prod = p.ring().producer().load(Relaxed);
                cost.idx_loads += 1;
                p.write_at_producer(addrs);
                cost.slots(prod, n, p.ring().mask(), ENTRY);
            }
            Cq::submit_n(p, n, cost);
        })
    }

    /// xskq_prod_submit_n() with its cost.
    fn submit_n(p: &mut CqProd, n: u32, cost: &mut Cost) {
        cost.idx_loads += 1;
        cost.index_store();
        p.submit_n(n);
    }

    /// xsk_cq_submit_addr_single_locked(): complete an invalid
    /// descriptor's address at once. Design a publishes by position, so
    /// only when no completion is reserved before it (6.12.117 xsk.c
    /// l.763); design b's reserved slots are counts, so a free slot is
    /// enough: one more is reserved, written at `->producer` and published
    /// (the series' patch 0002). False: the caller retries later.
    pub fn submit_single(&self, design: Design, addr: u64, cost: &mut Cost) -> bool {
        self.locked(cost, |p, cost| {
            cost.idx_loads += 1;
            let prod = p.ring().producer().load(Relaxed);
            if design == Design::A && p.cached_prod() != prod {
                return false;
            }
            if Cq::nb_free(p, 1, cost) == 0 {
                return false;
            }
            match design {
                Design::A => {
                    p.reserve_addr(addr)
                        .expect("a free slot was seen under the lock");
                }
                Design::B => {
                    p.reserve_n(1);
                    p.write_at_producer(&[addr]);
                }
            }
            cost.slots(prod, 1, p.ring().mask(), ENTRY);
            Cq::submit_n(p, 1, cost);
            true
        })
    }

    /// mutant-xsk-shared-cq-race, first half of a reservation: whether a
    /// slot is free, and the `cached_prod` read. Before f09ced4053bc
    /// ("xsk: Fix race in SKB mode transmit with shared cq") only the
    /// socket's own lock was held, so nothing keeps this read and the
    /// store of [`Cq::store_reservation`] together: each access is whole,
    /// the pair is not.
    pub fn read_reservation(&self, cost: &mut Cost) -> Option<u32> {
        self.locked(cost, |p, cost| {
            (Cq::nb_free(p, 1, cost) > 0).then(|| p.cached_prod())
        })
    }

    /// mutant-xsk-shared-cq-race, second half: `cached_prod = snap + 1`,
    /// and (design a) the address stored at `snap`.
    pub fn store_reservation(&self, design: Design, snap: u32, addr: u64, cost: &mut Cost) {
        self.locked(cost, |p, cost| {
            p.set_cached_prod(snap.wrapping_add(1));
            if design == Design::A {
                p.write(snap, addr);
                cost.slots(snap, 1, p.ring().mask(), ENTRY);
            }
        })
    }
}
