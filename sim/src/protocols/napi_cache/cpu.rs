//! A CPU as the cache sees it: whether BH is off on it (the nested-BH
//! local lock: a softirq and a task with BH off exclude each other), the
//! context it runs in (task, a NAPI poll in net_rx_action(), tun_sendmsg()
//! between local_bh_disable() and local_bh_enable()), the IPI flag
//! kick_defer_list_purge() raises, its cache, its defer list and tun's
//! batch in progress on it.

use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Release};
use ringlab_ring::sync::{thread, AtomicBool, AtomicU8};

use super::cache::{Access, NapiAllocCache};
use super::defer::DeferList;
use super::tun::TunBatch;

/// The spec's ctx[c].
pub const IDLE: u8 = 0;
pub const NAPI: u8 = 1;
pub const TUN: u8 = 2;

#[derive(Debug)]
pub struct Cpu {
    pub id: u8,
    bh: AtomicBool,
    ctx: AtomicU8,
    kick: AtomicBool,
    pub cache: NapiAllocCache,
    pub defer: DeferList,
    pub tun: TunBatch,
}

impl Cpu {
    pub fn new(id: u8, cache_size: usize, bulk: usize) -> Cpu {
        Cpu {
            id,
            bh: AtomicBool::new(false),
            ctx: AtomicU8::new(IDLE),
            kick: AtomicBool::new(false),
            cache: NapiAllocCache::new(id, cache_size, bulk),
            defer: DeferList::new(),
            tun: TunBatch::default(),
        }
    }

    /// local_bh_disable(): wait for whoever has BH off on this CPU.
    pub fn local_bh_disable(&self) {
        while self.bh.compare_exchange(false, true, AcqRel, Acquire).is_err() {
            thread::yield_now();
        }
    }

    /// local_bh_disable() if BH is on now; false if it is off.
    pub fn try_local_bh_disable(&self) -> bool {
        self.bh.compare_exchange(false, true, AcqRel, Acquire).is_ok()
    }

    pub fn local_bh_enable(&self) {
        self.bh.store(false, Release);
    }

    pub fn bh_off(&self) -> bool {
        self.bh.load(Acquire)
    }

    /// An access from this CPU as it is now.
    pub fn here(&self) -> Access {
        Access { cpu: self.id, bh: self.bh_off() }
    }

    pub fn ctx(&self) -> u8 {
        self.ctx.load(Acquire)
    }

    pub fn set_ctx(&self, c: u8) {
        self.ctx.store(c, Release)
    }

    pub fn kicked(&self) -> bool {
        self.kick.load(Acquire)
    }

    /// kick_defer_list_purge(): the IPI that raises NET_RX here.
    pub fn kick(&self) {
        self.kick.store(true, Release)
    }

    /// The IPI answered.
    pub fn unkick(&self) {
        self.kick.store(false, Release)
    }
}
