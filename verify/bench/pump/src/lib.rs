//! The ring bench's pump: ringlab's ring handles in both of an xsk ring's
//! pairings, sending 0, 1, 2, ... from one thread to another, every
//! receiver checking the order. It lives apart from the bench so that
//! `ringlab bench ring` can build it a second time, alone and quickly,
//! with `--cfg ringlab_unchecked` (the ring's protocol checks compiled
//! out) and set that build beside the one tests use.
//!
//! ringlab runs as both of its rings' pairings: the tx ring (libxdp's
//! producer, all-or-nothing reserve; the kernel's consumer, which publishes
//! `->consumer` after a batch, or for single entries when its cache runs
//! empty) and the completion ring (the kernel's producer, which reserves
//! what is free up to the batch; libxdp's consumer).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use ringlab_ring::{KernelCons, KernelProd, Ring, UserCons, UserProd};

/// Whether the ring's protocol checks are compiled into this build.
pub const CHECKED: bool = ringlab_ring::CHECKED;

/// The sending half: sends up to `n` entries `seq, seq + 1, ...`; returns
/// how many it sent (0: full).
pub trait Tx: Send + 'static {
    fn send(&mut self, seq: u64, n: u32) -> u32;
}

/// The receiving half: takes up to `n` entries, each of which must be
/// `*next` (then `*next` moves on); returns how many it took.
pub trait Rx: Send + 'static {
    fn recv(&mut self, n: u32, next: &mut u64) -> u32;
}

#[inline]
pub fn expect(v: u64, next: &mut u64) {
    if v != *next {
        out_of_order(v, *next);
    }
    *next += 1;
}

#[cold]
#[inline(never)]
pub fn out_of_order(v: u64, want: u64) -> ! {
    panic!("ring bench: received {v}, expected {want}")
}

type Mem = Arc<Ring<u64>>;

/// The array a consumer copies a batch out to: the kernel's pool->tx_descs,
/// the application's array of completed addresses. Producers store in
/// place (write_with).
fn buffer(size: u32) -> Vec<u64> {
    vec![0; size as usize]
}

/// The tx ring's pairing: libxdp produces, the kernel consumes.
pub struct TxProd(UserProd<Mem>);
pub struct TxCons(KernelCons<Mem>, Vec<u64>);
/// The completion ring's pairing: the kernel produces, libxdp consumes.
pub struct CqProd(KernelProd<Mem>);
pub struct CqCons(UserCons<Mem>, Vec<u64>);

pub fn ringlab_tx(size: u32) -> (TxProd, TxCons) {
    let ring = Arc::new(Ring::new(size, 0, 0u64).expect("a power-of-two size"));
    // Safety: one handle per side, both following the ring protocol.
    unsafe { (TxProd(UserProd::new(ring.clone())), TxCons(KernelCons::new(ring), buffer(size))) }
}

pub fn ringlab_cq(size: u32) -> (CqProd, CqCons) {
    let ring = Arc::new(Ring::new(size, 0, 0u64).expect("a power-of-two size"));
    // Safety: one handle per side, both following the ring protocol.
    unsafe { (CqProd(KernelProd::new(ring.clone())), CqCons(UserCons::new(ring), buffer(size))) }
}

fn check_all(entries: &[u64], next: &mut u64) {
    for &v in entries {
        expect(v, next);
    }
}

// Each ringlab handle's one-entry path is kept small (the batch path is
// out of line), so that it inlines into the sending or receiving loop as
// rtrb's push and pop do.

impl Tx for TxProd {
    #[inline]
    fn send(&mut self, seq: u64, n: u32) -> u32 {
        if n > 1 {
            return self.send_batch(seq, n);
        }
        let Some(idx) = self.0.reserve(1) else { return 0 };
        self.0.write(idx, seq);
        self.0.submit(1);
        1
    }
}

impl TxProd {
    #[inline(never)]
    fn send_batch(&mut self, seq: u64, n: u32) -> u32 {
        let Some(idx) = self.0.reserve(n) else { return 0 };
        // in place, as an application fills its tx descriptors
        self.0.write_with(idx, n, |i| seq + i as u64);
        self.0.submit(n);
        n
    }
}

impl Rx for TxCons {
    #[inline]
    fn recv(&mut self, n: u32, next: &mut u64) -> u32 {
        if n > 1 {
            return self.recv_batch(n, next);
        }
        // xskq_cons_peek_desc + xskq_cons_release: ->consumer is
        // published when a peek finds the cache empty.
        let Some(v) = self.0.peek_entry() else { return 0 };
        expect(v, next);
        self.0.release();
        1
    }
}

impl TxCons {
    /// xsk_tx_peek_release_desc_batch: nb_entries, read, release, publish.
    #[inline(never)]
    fn recv_batch(&mut self, n: u32, next: &mut u64) -> u32 {
        let c = &mut self.0;
        let k = c.nb_entries(n);
        if k == 0 {
            return 0;
        }
        let out = &mut self.1[..k as usize];
        c.read_batch(c.cached_cons(), out);
        check_all(out, next);
        c.release_n(k);
        c.publish();
        k
    }
}

impl Tx for CqProd {
    #[inline]
    fn send(&mut self, seq: u64, n: u32) -> u32 {
        if n > 1 {
            return self.send_batch(seq, n);
        }
        if self.0.reserve_addr(seq).is_err() {
            return 0;
        }
        self.0.submit();
        1
    }
}

impl CqProd {
    #[inline(never)]
    fn send_batch(&mut self, seq: u64, n: u32) -> u32 {
        let p = &mut self.0;
        let k = p.reserve_n(n);
        if k == 0 {
            return 0;
        }
        // in place, as the loop of xskq_prod_write_addr_batch() stores
        p.write_with(p.cached_prod().wrapping_sub(k), k, |i| seq + i as u64);
        p.submit();
        k
    }
}

impl Rx for CqCons {
    #[inline]
    fn recv(&mut self, n: u32, next: &mut u64) -> u32 {
        if n > 1 {
            return self.recv_batch(n, next);
        }
        let (k, idx) = self.0.peek(1);
        if k == 0 {
            return 0;
        }
        expect(self.0.read(idx), next);
        self.0.release(1);
        1
    }
}

impl CqCons {
    #[inline(never)]
    fn recv_batch(&mut self, n: u32, next: &mut u64) -> u32 {
        let (k, idx) = self.0.peek(n);
        if k == 0 {
            return 0;
        }
        // copied out at once (read_with, one by one in place, keeps the
        // slots' lines longer from the producer)
        let out = &mut self.1[..k as usize];
        self.0.read_batch(idx, out);
        check_all(out, next);
        self.0.release(k);
        k
    }
}

/// Pins the calling thread to `cpu`, if the machine has it.
fn pin(cpu: usize) {
    if std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) <= cpu {
        return;
    }
    // Safety: a zeroed cpu_set_t is empty; CPU_SET stays within it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Sends for `run` from one thread, receives on another (pinned to CPUs 0
/// and 1 when there are two), and returns entries per second as the
/// receiver saw them: from the common start until it has every entry sent.
pub fn measure<T: Tx, R: Rx>(mut tx: T, mut rx: R, batch: u32, run: Duration) -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let total = Arc::new(AtomicU64::new(u64::MAX));
    let start = Arc::new(Barrier::new(3));
    let producer = {
        let (stop, total, start) = (stop.clone(), total.clone(), start.clone());
        std::thread::spawn(move || {
            pin(0);
            start.wait();
            let mut seq = 0u64;
            // At least one entry, even when this thread first runs after
            // `run` is over (a loaded machine): a rate needs a delivery.
            while seq == 0 || !stop.load(Ordering::Relaxed) {
                let n = tx.send(seq, batch);
                if n == 0 {
                    std::hint::spin_loop();
                }
                seq += n as u64;
            }
            total.store(seq, Ordering::Release);
        })
    };
    let consumer = {
        let (total, start) = (total.clone(), start.clone());
        std::thread::spawn(move || {
            pin(1);
            start.wait();
            let t0 = Instant::now();
            let mut next = 0u64;
            loop {
                if rx.recv(batch, &mut next) == 0 {
                    let t = total.load(Ordering::Acquire);
                    if t == next {
                        break;
                    }
                    std::hint::spin_loop();
                }
            }
            (next, t0.elapsed())
        })
    };
    start.wait();
    std::thread::sleep(run);
    stop.store(true, Ordering::Relaxed);
    producer.join().expect("ring bench producer");
    let (n, took) = consumer.join().expect("ring bench consumer");
    n as f64 / took.as_secs_f64().max(1e-9)
}

