//! struct net_iov: one page of a dmabuf binding, with the two counters the
//! token accounting turns on. Both are the sync shim's atomics, so loom
//! sees every access.

use super::cost::Cost;
use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Relaxed};
use ringlab_ring::sync::{AtomicI32, AtomicI64};

#[derive(Debug, Default)]
pub struct NetIov {
    /// niov->pp_ref_count: references the page pool counts (skbs' and the
    /// application's tokens').
    pub pp_ref_count: AtomicI64,
    /// niov->uref (seed 004, array mode): tokens handed out on this net_iov
    /// and not yet returned.
    pub uref: AtomicI32,
}

impl NetIov {
    /// page_pool_set_pp_info(): the page pool hands the net_iov out with
    /// one reference, the skb's (a plain store).
    pub fn set_first_ref(&self) {
        self.pp_ref_count.store(1, Relaxed);
    }

    /// atomic_long_inc(&niov->pp_ref_count): tcp_recvmsg_dmabuf() takes a
    /// reference for the application's token.
    pub fn get_ref(&self, cost: &mut Cost) {
        cost.pp_rmw += 1;
        self.pp_ref_count.fetch_add(1, Relaxed);
    }

    /// page_pool_unref_netmem(netmem, k): drop `k` references, returning
    /// how many are left. (The kernel skips the RMW when it reads exactly
    /// `k`, leaving the count at 1 for the pool; the simulator always
    /// subtracts, so a pooled net_iov reads 0 as in the spec.)
    pub fn unref(&self, k: i64, cost: &mut Cost) -> i64 {
        cost.pp_rmw += 1;
        self.pp_ref_count.fetch_sub(k, AcqRel) - k
    }

    /// atomic_inc(&niov->uref): a token handed out (array mode).
    pub fn uref_inc(&self, cost: &mut Cost) {
        cost.uref_rmw += 1;
        self.uref.fetch_add(1, Relaxed);
    }

    /// atomic_dec_if_positive(&niov->uref) >= 0: the release of one token
    /// in one atomic step, a compare-exchange loop. Each attempt is an RMW.
    /// False: no token was outstanding (already returned, or unbind's
    /// cleanup took it).
    pub fn uref_dec_if_positive(&self, cost: &mut Cost) -> bool {
        let mut cur = self.uref.load(Relaxed);
        loop {
            if cur <= 0 {
                return false;
            }
            cost.uref_rmw += 1;
            match self.uref.compare_exchange(cur, cur - 1, AcqRel, Relaxed) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// mutant-zcrx-uref-race, first half: the release reads uref > 0.
    pub fn uref_positive(&self) -> bool {
        self.uref.load(Acquire) > 0
    }

    /// mutant-zcrx-uref-race, second half: the decrement, later, whatever
    /// uref is by then.
    pub fn uref_dec(&self, cost: &mut Cost) {
        cost.uref_rmw += 1;
        self.uref.fetch_sub(1, AcqRel);
    }

    /// atomic_xchg(&niov->uref, 0): unbind takes every token left.
    pub fn uref_take(&self, cost: &mut Cost) -> i32 {
        cost.uref_rmw += 1;
        self.uref.swap(0, AcqRel)
    }

    /// Both counters as they are (for checks and projections).
    pub fn counts(&self) -> (i64, i32) {
        (self.pp_ref_count.load(Acquire), self.uref.load(Acquire))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn dec_if_positive_stops_at_zero() {
        let n = NetIov::default();
        let mut c = Cost::default();
        n.uref_inc(&mut c);
        assert!(n.uref_dec_if_positive(&mut c));
        assert!(!n.uref_dec_if_positive(&mut c));
        assert_eq!(n.counts().1, 0);
        assert_eq!(c.uref_rmw, 2, "the failed release made no RMW");
    }

    #[test]
    fn the_split_release_goes_below_zero() {
        let n = NetIov::default();
        let mut c = Cost::default();
        n.uref_inc(&mut c);
        assert!(n.uref_positive());
        assert_eq!(n.uref_take(&mut c), 1);
        n.uref_dec(&mut c);
        assert_eq!(n.counts().1, -1);
    }
}
