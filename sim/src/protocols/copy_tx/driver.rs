//! The driver: frees the skbs it was handed, in any order.

use ringlab_model::rng::Rng;

use super::cost::Cost;
use super::pool::Pool;
use super::Disabled;
use super::Step;

/// The driver's side of the device queue; the skbs are in [`Pool::txq`].
#[derive(Debug, Default)]
pub struct Driver {
    pub cost: Cost,
    pub freed: u64,
}

impl Driver {
    /// DriverFree(f): free the skb of socket `sock` holding the address
    /// `addr` (consume_skb() after the transmit); its destructor,
    /// xsk_destruct_skb(), publishes its completions.
    pub fn driver_free(&mut self, pool: &Pool, addr: u64, sock: usize) -> Step {
        let skb = pool.in_flight(|q| {
            let at = q
                .iter()
                .position(|k| k.sock == sock && k.addrs.contains(&addr))?;
            Some(q.remove(at))
        });
        let skb = skb.ok_or_else(|| {
            Disabled::new(
                "DriverFree",
                format!("no skb of socket {sock} holds {addr:#x}"),
            )
        })?;
        pool.destruct_skb(skb, &mut self.cost);
        self.freed += 1;
        Ok(())
    }

    /// Free the `i`th skb in flight (oldest first), if there is one.
    pub fn free_nth(&mut self, pool: &Pool, i: usize) -> bool {
        self.free_picked(pool, |n| (i < n).then_some(i))
    }

    /// Free an skb in flight drawn by `rng` (uniformly), if there is one:
    /// the draw and the removal under one hold of the queue's lock.
    pub fn free_drawn(&mut self, pool: &Pool, rng: &mut Rng) -> bool {
        self.free_picked(pool, |n| (n > 0).then(|| rng.below(n as u32) as usize))
    }

    /// Free the skb `pick` names, given how many are in flight, under the
    /// queue's lock.
    fn free_picked(&mut self, pool: &Pool, pick: impl FnOnce(usize) -> Option<usize>) -> bool {
        let Some(skb) = pool.in_flight(|q| pick(q.len()).map(|i| q.remove(i))) else {
            return false;
        };
        pool.destruct_skb(skb, &mut self.cost);
        self.freed += 1;
        true
    }
}
