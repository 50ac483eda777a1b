//! The SQ and CQ: ringlab_ring's rings, the same free-running u32 head
//! and tail with a mask as io_uring's struct io_rings. The application
//! produces SQEs and consumes CQEs (liburing's io_uring_get_sqe /
//! io_uring_cqe_seen); the kernel consumes SQEs (io_get_sqe,
//! io_commit_sqring) and produces CQEs (io_get_cqe, io_commit_cqring).

use ringlab_ring::sync::Arc;
use ringlab_ring::sync::Ordering::Acquire;
use ringlab_ring::{KernelCons, KernelProd, Ring, RingMem, UserCons, UserProd};

use super::cqe::{Cqe, Sqe};

pub type SqProd = UserProd<Arc<Ring<Sqe>>>;
pub type SqCons = KernelCons<Arc<Ring<Sqe>>>;
pub type CqProd = KernelProd<Arc<Ring<Cqe>>>;
pub type CqCons = UserCons<Arc<Ring<Cqe>>>;

/// The four handles of a new SQ and CQ, their counters at the starts.
pub fn rings(
    sq_size: u32,
    sq_start: u32,
    cq_size: u32,
    cq_start: u32,
) -> Result<(SqProd, SqCons, CqProd, CqCons), String> {
    let sq = Arc::new(Ring::new(sq_size, sq_start, Sqe::default()).map_err(|e| format!("SqSize: {e}"))?);
    let cq = Arc::new(Ring::new(cq_size, cq_start, Cqe::default()).map_err(|e| format!("CqSize: {e}"))?);
    // Safety: one handle of each side per ring, each used as its side.
    unsafe {
        Ok((
            UserProd::new(sq.clone()),
            KernelCons::new(sq),
            KernelProd::new(cq.clone()),
            UserCons::new(cq),
        ))
    }
}

/// The entries published and not consumed: from `->consumer` to
/// `->producer`, oldest first. Call it when no thread is in a ring call.
pub fn in_flight<T: Copy>(ring: &Ring<T>) -> Vec<T> {
    let (cons, prod) = (ring.consumer().load(Acquire), ring.producer().load(Acquire));
    let n = prod.wrapping_sub(cons);
    assert!(n <= ring.size(), "->producer {prod} is {n} past ->consumer {cons}");
    // Safety: the positions are published and not released, and no
    // thread writes the ring while the state is read.
    (0..n).map(|i| unsafe { ring.read(cons.wrapping_add(i)) }).collect()
}
