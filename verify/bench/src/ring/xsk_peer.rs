//! The libxdp peer: libxdp's own inline ring functions (<xdp/xsk.h>,
//! compiled from c/xsk_ring_peer.c by build.rs) over a ring in memory, as
//! the ring bench's Tx and Rx. Built only with `cfg(libxdp_ring)`; without
//! it, SKIP says why.

/// Why the peer was not built, or None when it was.
pub fn skipped() -> Option<&'static str> {
    if cfg!(libxdp_ring) {
        None
    } else {
        Some(option_env!("RINGLAB_XSK_PEER_SKIP").unwrap_or("built without cfg(libxdp_ring)"))
    }
}

#[cfg(libxdp_ring)]
pub use built::pair;

#[cfg(libxdp_ring)]
mod built {
    use std::ptr::NonNull;
    use std::sync::Arc;

    use super::super::{out_of_order, Rx, Tx};

    #[repr(C)]
    struct XskPeer {
        _opaque: [u8; 0],
    }

    extern "C" {
        fn xsk_peer_new(size: u32) -> *mut XskPeer;
        fn xsk_peer_free(r: *mut XskPeer);
        fn xsk_peer_send(r: *mut XskPeer, seq: u64, n: u32) -> u32;
        fn xsk_peer_recv(r: *mut XskPeer, n: u32, next: *mut u64, bad: *mut u64) -> u32;
    }

    /// The C ring, freed when both halves are gone.
    struct Shared(NonNull<XskPeer>);

    // Safety: the producer's and the consumer's halves touch disjoint
    // private state, and the shared counters only through libxdp's
    // acquire loads and release stores.
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}

    impl Drop for Shared {
        fn drop(&mut self) {
            // Safety: from xsk_peer_new, freed once, here.
            unsafe { xsk_peer_free(self.0.as_ptr()) }
        }
    }

    /// libxdp's producer (xsk_ring_prod__reserve / __submit).
    pub struct XskProd(Arc<Shared>);
    /// libxdp's consumer (xsk_ring_cons__peek / __release).
    pub struct XskCons(Arc<Shared>);

    /// A ring of `size` entries (a power of two) and its two halves.
    pub fn pair(size: u32) -> Result<(XskProd, XskCons), String> {
        // Safety: no preconditions; NULL is handled.
        let r = NonNull::new(unsafe { xsk_peer_new(size) })
            .ok_or_else(|| format!("libxdp ring of {size} entries: not a power of two, or out of memory"))?;
        let s = Arc::new(Shared(r));
        Ok((XskProd(s.clone()), XskCons(s)))
    }

    impl Tx for XskProd {
        #[inline]
        fn send(&mut self, seq: u64, n: u32) -> u32 {
            // Safety: this is the ring's one producer.
            unsafe { xsk_peer_send(self.0 .0.as_ptr(), seq, n) }
        }
    }

    impl Rx for XskCons {
        #[inline]
        fn recv(&mut self, n: u32, next: &mut u64) -> u32 {
            let mut bad = 0;
            // Safety: this is the ring's one consumer.
            let k = unsafe { xsk_peer_recv(self.0 .0.as_ptr(), n, next, &mut bad) };
            if k == u32::MAX {
                out_of_order(bad, *next);
            }
            k
        }
    }
}

#[cfg(all(test, libxdp_ring))]
mod tests {
    use super::super::{Rx, Tx};
    use super::*;

    /// Sends 0..total at `batch` from one thread and takes them on another,
    /// which must see every one in order; returns how many it took.
    fn move_in_order(size: u32, batch: u32, total: u64) -> u64 {
        let (mut p, mut c) = pair(size).unwrap();
        let producer = std::thread::spawn(move || {
            let mut seq = 0;
            while seq < total {
                let n = batch.min((total - seq) as u32);
                let sent = p.send(seq, n);
                assert!(sent == 0 || sent == n, "all or nothing: sent {sent} of {n}");
                seq += sent as u64;
            }
        });
        let mut next = 0;
        while next < total {
            c.recv(batch, &mut next);
        }
        producer.join().unwrap();
        assert_eq!(c.recv(batch, &mut next), 0, "nothing beyond what was sent");
        next
    }

    #[test]
    fn moves_every_value_in_order_at_batch_1_and_16() {
        for batch in [1, 16] {
            // a small ring fills and wraps its indices many times over
            assert_eq!(move_in_order(32, batch, 200_000), 200_000, "batch {batch}");
        }
    }

    #[test]
    fn a_batch_larger_than_the_free_space_is_refused_whole() {
        let (mut p, mut c) = pair(8).unwrap();
        assert_eq!(p.send(0, 6), 6);
        assert_eq!(p.send(6, 3), 0, "3 do not fit beside 6 in 8");
        assert_eq!(p.send(6, 2), 2);
        let mut next = 0;
        assert_eq!(c.recv(5, &mut next), 5);
        assert_eq!(c.recv(16, &mut next), 3);
        assert_eq!(next, 8);
        assert_eq!(p.send(8, 8), 8, "all of the ring once the consumer released");
    }

    #[test]
    fn a_size_that_is_not_a_power_of_two_is_an_error() {
        assert!(pair(12).is_err());
        assert!(pair(0).is_err());
    }
}
