//! The receive queue: its NAPI instance (NAPI_STATE_SCHED: which CPU
//! polls it), the packets that reached it and what became of each (the
//! wire's record, the spec's arrived and fate), and seed 002's
//! netdev_rx_queue socket pointer.

use ringlab_model::xsk_rx::{Cpu, Fate, Pkt, Sock};
use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Relaxed, Release};
use ringlab_ring::sync::{AtomicU32, AtomicU8, Mutex};

#[derive(Debug)]
pub struct RxQueue {
    /// NAPI_STATE_SCHED: the polling CPU + 1, 0 none.
    napi: AtomicU8,
    /// Packets arrived when the current (or last) poll started.
    poll_start: AtomicU32,
    arrived: AtomicU32,
    max_pkts: u32,
    fate: Mutex<Vec<Fate>>,
    /// rxq->xsk (seed 002): the queue's one socket, 0 none.
    pub xsk: AtomicU8,
}

impl RxQueue {
    pub fn new(max_pkts: u8, xsk: Sock) -> RxQueue {
        RxQueue {
            napi: AtomicU8::new(0),
            poll_start: AtomicU32::new(0),
            arrived: AtomicU32::new(0),
            max_pkts: u32::from(max_pkts),
            fate: Mutex::new(vec![Fate::None; usize::from(max_pkts)]),
            xsk: AtomicU8::new(xsk),
        }
    }

    /// napi_schedule_prep(): CPU c takes the poll if no CPU has it.
    pub fn napi_schedule(&self, c: Cpu) -> bool {
        let ok = self
            .napi
            .compare_exchange(0, c + 1, AcqRel, Acquire)
            .is_ok();
        if ok {
            self.poll_start.store(self.arrived.load(Acquire), Relaxed);
        }
        ok
    }

    /// napi_complete_done() by the polling CPU c.
    pub fn napi_complete(&self, c: Cpu) {
        let held = self.napi.swap(0, AcqRel);
        assert_eq!(
            held,
            c + 1,
            "napi_complete_done() by CPU {c}, not the poller"
        );
    }

    pub fn poller(&self) -> Option<Cpu> {
        match self.napi.load(Acquire) {
            0 => None,
            c => Some(c - 1),
        }
    }

    pub fn poll_start(&self) -> u32 {
        self.poll_start.load(Acquire)
    }

    pub fn arrived(&self) -> u32 {
        self.arrived.load(Acquire)
    }

    /// The next packet arrives, if any is left to: its number, busy.
    pub fn arrive(&self) -> Option<Pkt> {
        let n = self
            .arrived
            .fetch_update(AcqRel, Acquire, |a| (a < self.max_pkts).then_some(a + 1))
            .ok()?
            + 1;
        self.set_fate(n as Pkt, Fate::Busy);
        Some(n as Pkt)
    }

    /// What became of packet p.
    pub fn set_fate(&self, p: Pkt, f: Fate) {
        self.fate.lock().unwrap_or_else(|e| e.into_inner())[usize::from(p) - 1] = f;
    }

    pub fn fates(&self) -> Vec<Fate> {
        self.fate.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// rxq->xsk.
    pub fn xsk(&self) -> Sock {
        self.xsk.load(Acquire)
    }

    pub fn set_xsk(&self, s: Sock) {
        self.xsk.store(s, Release);
    }
}
