//! struct xsk_buff_pool of the queue, shared by every socket bound to
//! it (one umem): pool->fq, the fill ring's kernel consumer; the free
//! list; pool->rx_lock; and the umem's chunks, into which a receive
//! copies its packet (the packet's number stands for its bytes).
//!
//! The fill ring's consumer and the free list are used by one CPU at a
//! time: the queue's NAPI poll (driver path) or the holder of
//! pool->rx_lock (generic path). They sit in the sync shim's cells, so
//! loom reports two CPUs inside them at once.

use ringlab_model::xsk_rx::Buf;
use ringlab_ring::sync::Ordering::{Acquire, Relaxed};
use ringlab_ring::sync::{Arc, AtomicU8, UnsafeCell};
use ringlab_ring::{KernelCons, Ring, RingMem};

use super::lock::SpinLock;

/// Bytes of a umem chunk.
pub const CHUNK: u64 = 2048;

/// The umem address of buffer b (1-based, as the spec numbers them).
pub fn addr_of(b: Buf) -> u64 {
    u64::from(b - 1) * CHUNK
}

/// The buffer at umem address `addr`.
pub fn buf_of(addr: u64) -> Buf {
    u8::try_from(addr / CHUNK + 1).expect("a umem of at most 255 chunks")
}

/// The kernel's consumer of the fill ring.
pub type FqCons = KernelCons<Arc<Ring<u64>>>;

#[derive(Debug)]
pub struct Pool {
    /// pool->rx_lock: xsk_generic_rcv()'s lock.
    pub rx_lock: SpinLock,
    /// The fill ring the application fills.
    pub fq_ring: Arc<Ring<u64>>,
    /// pool->fq, the kernel's side.
    fq: UnsafeCell<FqCons>,
    /// pool->free_list, head first.
    free_list: UnsafeCell<Vec<Buf>>,
    /// The umem's chunks: the packet each was last filled with.
    chunks: Vec<AtomicU8>,
}

// Safety: the cells are used by one CPU at a time (the NAPI poll or the
// rx_lock's holder), which is what loom checks.
unsafe impl Sync for Pool {}
unsafe impl Send for Pool {}

impl Pool {
    pub fn new(fq_size: u32, n_bufs: u8) -> Result<Pool, String> {
        let fq_ring = Arc::new(Ring::new(fq_size, 0, 0u64).map_err(|e| format!("FqSize: {e}"))?);
        // Safety: the pool is the fill ring's only kernel consumer.
        let fq = unsafe { KernelCons::new(fq_ring.clone()) };
        Ok(Pool {
            rx_lock: SpinLock::default(),
            fq_ring,
            fq: UnsafeCell::new(fq),
            free_list: UnsafeCell::new(Vec::new()),
            chunks: (0..n_bufs).map(|_| AtomicU8::new(0)).collect(),
        })
    }

    /// `f` on pool->fq. The caller runs the queue's poll or holds the
    /// rx lock the sockets of this pool take.
    pub fn with_fq<R>(&self, f: impl FnOnce(&mut FqCons) -> R) -> R {
        // Safety: one CPU at a time (see the module's comment); loom
        // checks it.
        self.fq.with_mut(|p| unsafe { f(&mut *p) })
    }

    fn with_free<R>(&self, f: impl FnOnce(&mut Vec<Buf>) -> R) -> R {
        // Safety: as with_fq.
        self.free_list.with_mut(|p| unsafe { f(&mut *p) })
    }

    /// Fill ring entries the kernel has not taken (xskq_cons_nb_entries(),
    /// which refreshes the producer without publishing the consumer), up
    /// to `max`.
    pub fn fq_entries(&self, max: u32) -> u32 {
        self.with_fq(|q| q.nb_entries(max))
    }

    /// xp_can_alloc() for `count` chunks: the free list, then the fill
    /// ring.
    pub fn xp_can_alloc(&self, count: u32) -> bool {
        let free = self.with_free(|l| l.len() as u32);
        free >= count || self.fq_entries(count - free) >= count - free
    }

    /// xp_alloc()'s first choice: the head of pool->free_list.
    pub fn xp_alloc_free(&self) -> Option<Buf> {
        self.with_free(|l| (!l.is_empty()).then(|| l.remove(0)))
    }

    /// __xp_alloc()'s xskq_cons_peek_addr_unchecked(): the fill ring
    /// entry at cached_cons, if there is one. The refresh is
    /// xskq_cons_nb_entries()'s: the spec publishes the consumer only at
    /// the flush.
    pub fn xp_alloc_peek(&self) -> Option<Buf> {
        self.with_fq(|q| (q.nb_entries(1) == 1).then(|| buf_of(q.read(q.cached_cons()))))
    }

    /// __xp_alloc()'s xskq_cons_release(): cached_cons moves past the
    /// entry. False if no entry is left to move past.
    pub fn xp_alloc_take(&self) -> bool {
        self.with_fq(|q| {
            let ok = q.nb_entries(1) == 1;
            if ok {
                q.release();
            }
            ok
        })
    }

    /// xsk_buff_alloc(): a free buffer or the fill ring's next, in one
    /// call (rcv.rs's).
    pub fn xsk_buff_alloc(&self) -> Option<Buf> {
        self.xp_alloc_free().or_else(|| {
            let b = self.xp_alloc_peek()?;
            self.xp_alloc_take().then_some(b)
        })
    }

    /// xsk_buff_free() of `bufs`: back at the head of the free list, in
    /// order.
    pub fn xsk_buff_free(&self, bufs: &[Buf]) {
        self.with_free(|l| {
            l.splice(0..0, bufs.iter().copied());
        })
    }

    /// __xskq_cons_release(pool->fq): the consumer is published.
    pub fn fq_release(&self) {
        self.with_fq(|q| q.publish())
    }

    /// The copy of packet p into buffer b (xsk_copy_xdp()).
    pub fn copy(&self, b: Buf, p: u8) {
        self.chunks[usize::from(b - 1)].store(p, Relaxed);
    }

    /// The packet buffer b holds.
    pub fn chunk(&self, b: Buf) -> u8 {
        self.chunks[usize::from(b - 1)].load(Acquire)
    }

    /// The free list, head first (for projections and checks).
    pub fn free_list(&self) -> Vec<Buf> {
        self.with_free(|l| l.clone())
    }

    /// The fill ring's entries not taken, oldest first, and how many
    /// were taken since the consumer was last published. Call it when no
    /// CPU receives.
    pub fn fq_state(&self) -> (Vec<Buf>, u32) {
        self.with_fq(|q| {
            let ring = q.ring();
            let prod = ring.producer().load(Acquire);
            let cons = q.cached_cons();
            let n = prod.wrapping_sub(cons);
            // Safety: positions between cached_cons and the producer are
            // published and not consumed; no CPU writes fill ring slots.
            let fq = (0..n)
                .map(|i| buf_of(unsafe { ring.read(cons.wrapping_add(i)) }))
                .collect();
            (fq, cons.wrapping_sub(ring.consumer().load(Acquire)))
        })
    }
}
