//! The socket's skbs that carry zero-copy pages: the ubuf_info each holds
//! a reference on (skb_zcopy(), 0 none) and the requests whose pages it
//! carries. A slot's lock stands for the socket's: the submitter appends
//! under it, the stack frees under it.

use ringlab_model::iouring_zc::Req;
use ringlab_ring::sync::Mutex;

#[derive(Debug, Default)]
pub struct Skb {
    slot: Mutex<Slot>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// The notification whose reference the skb holds; 0: no skb.
    pub uarg: Req,
    /// Bit r - 1: the skb carries pages of request r.
    pub bufs: u32,
}

impl Slot {
    pub fn carries(&self, r: Req) -> bool {
        self.bufs & bit(r) != 0
    }

    /// The requests whose pages it carries, ascending.
    pub fn reqs(&self) -> Vec<Req> {
        (1..=32).filter(|&r| self.carries(r)).collect()
    }
}

pub fn bit(r: Req) -> u32 {
    1 << (u32::from(r) - 1)
}

impl Skb {
    pub fn get(&self) -> Slot {
        *self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Under the socket's lock: `f` on the slot.
    pub fn with<T>(&self, f: impl FnOnce(&mut Slot) -> T) -> T {
        f(&mut self.slot.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The stack frees the skb: what it held, the slot empty; None if
    /// there was no skb.
    pub fn free(&self) -> Option<Slot> {
        self.with(|s| (s.uarg != 0).then(|| std::mem::take(s)))
    }
}
