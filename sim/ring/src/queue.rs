//! The state every ring handle keeps: the ring and its two cached counters,
//! as the kernel's one `struct xsk_queue` serves producer and consumer alike
//! (libxdp's `xsk_ring_prod` and `xsk_ring_cons` hold the same pair).

use crate::{KernelCons, KernelProd, RingMem, UserCons, UserProd};
use crate::sync::Ordering::Relaxed;

/// A ring with the handle's cached `->producer` and `->consumer`. What each
/// cached value means is up to the handle that embeds it.
#[derive(Debug)]
pub struct Queue<R: RingMem> {
    pub(super) ring: R,
    pub(super) cached_prod: u32,
    pub(super) cached_cons: u32,
}

impl<R: RingMem> Queue<R> {
    /// Cache both counters of `ring` as they are.
    pub(super) fn new(ring: R) -> Self {
        // Relaxed: the ring is idle or ours (libxdp reads both plainly at
        // setup); a consumer's first peek refreshes with C.
        let cached_prod = ring.producer().load(Relaxed);
        let cached_cons = ring.consumer().load(Relaxed);
        Self {
            ring,
            cached_prod,
            cached_cons,
        }
    }

    /// The memory this handle works on.
    #[inline]
    pub fn ring(&self) -> &R {
        &self.ring
    }
    /// `q->cached_prod` (libxdp: `prod->` / `cons->cached_prod`).
    #[inline]
    pub fn cached_prod(&self) -> u32 {
        self.cached_prod
    }
    /// `q->cached_cons` (libxdp: `prod->` / `cons->cached_cons`).
    #[inline]
    pub fn cached_cons(&self) -> u32 {
        self.cached_cons
    }
}

/// Lets a handle embed a [`Queue`] as `q` and offer its getters.
macro_rules! deref_queue {
    ($($handle:ident),+) => {$(
        impl<R: RingMem> std::ops::Deref for $handle<R> {
            type Target = Queue<R>;
            fn deref(&self) -> &Queue<R> {
                &self.q
            }
        }
    )+};
}

deref_queue!(KernelProd, KernelCons, UserProd, UserCons);
