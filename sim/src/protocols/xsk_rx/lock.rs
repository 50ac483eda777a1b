//! A spinlock on one atomic, as spin_lock_bh() is: pool->rx_lock (and,
//! under xsk-gen-rx-race, each socket's own xs->rx_lock). The holder is
//! recorded (the CPU + 1, 0 free) so that a projection can name it, and
//! so that a step can take the lock and a later step release it.

use ringlab_model::xsk_rx::Cpu;
use ringlab_ring::sync::thread;
use ringlab_ring::sync::AtomicU8;
use ringlab_ring::sync::Ordering::{Acquire, Relaxed, Release};

#[derive(Debug, Default)]
pub struct SpinLock {
    owner: AtomicU8,
}

impl SpinLock {
    /// spin_trylock(): true if CPU c now holds the lock (Acquire: what
    /// the last holder did before its unlock is seen).
    pub fn try_lock(&self, c: Cpu) -> bool {
        self.owner
            .compare_exchange(0, c + 1, Acquire, Relaxed)
            .is_ok()
    }

    /// spin_lock_bh(): spins until CPU c holds the lock.
    pub fn lock(&self, c: Cpu) {
        while !self.try_lock(c) {
            thread::yield_now();
        }
    }

    /// spin_unlock_bh() by CPU c, which must hold it (Release).
    pub fn unlock(&self, c: Cpu) {
        let held = self.owner.load(Relaxed);
        assert_eq!(
            held,
            c + 1,
            "rx_lock: CPU {c} unlocks a lock held by {held} - 1"
        );
        self.owner.store(0, Release);
    }

    /// The CPU holding the lock.
    pub fn holder(&self) -> Option<Cpu> {
        match self.owner.load(Acquire) {
            0 => None,
            o => Some(o - 1),
        }
    }
}
