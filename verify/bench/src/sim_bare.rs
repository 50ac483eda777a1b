//! The bare twin of the simulator's threaded run (the `threads` column of
//! sim_rate.rs, ringlab_sim's copy_tx::threads): the same threads (one per
//! socket making whole sendto calls, a driver freeing a seeded-random skb
//! of the shared queue, an application reaping completions and submitting
//! the frames again), the same ring code (ringlab_ring) for the tx rings
//! and the completion ring, the same per-descriptor work (design b:
//! reserve a count at build, the destructor writes at `->producer` and
//! publishes; rare invalid descriptors, failed allocations, busy and
//! dropped transmits drawn with the simulator's odds) and the same yield
//! when idle; but no model state, no choice lists and no invariants.
//! What it still checks is that every frame came back exactly once. Its
//! application stops submitting at the run's count of completions and
//! the threads go on until every frame is back (the simulator stops its
//! threads there and drains on one, checking every step).
//! sim_bare_kernel.rs: the sockets and the destructor.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread;

use ringlab_model::rng::Rng;
use ringlab_ring::{KernelCons, KernelProd, Ring, UserCons, UserProd, XdpDesc};
use ringlab_sim::copy_tx::CopyTxConfig;

use super::sim_bare_kernel::{lock, Outcomes, Shared, Sock};

/// Rounds of the application's loop without progress before the run is
/// declared stuck (as the simulator's threaded run).
const STUCK: u64 = 20_000_000;

/// The packet length of every valid descriptor.
const PKT_LEN: u32 = 64;

/// Sets the stop flag when its thread ends, panicking or not, so the
/// others do not wait for it.
struct StopOnExit<'a>(&'a AtomicBool);

impl Drop for StopOnExit<'_> {
    fn drop(&mut self) {
        self.0.store(true, Relaxed);
    }
}

/// The application's side: a tx producer per socket, the completion
/// consumer, and which frames it owns.
struct App {
    tx: Vec<UserProd<Arc<Ring<XdpDesc>>>>,
    cq: UserCons<Arc<Ring<u64>>>,
    free: Vec<u32>,
    owned: Vec<bool>,
    frame_size: u64,
    submitted: u64,
    reaped: u64,
}

impl App {
    /// Takes every published completion; Err names a completion that is
    /// no frame, or a frame that came back while the application owned it.
    fn reap(&mut self) -> Result<bool, String> {
        let mut did = false;
        loop {
            let (n, idx) = self.cq.peek(1);
            if n == 0 {
                return Ok(did);
            }
            let addr = self.cq.read(idx);
            self.cq.release(1);
            let f = (addr / self.frame_size) as usize;
            match self.owned.get(f) {
                None => return Err(format!("completion {addr:#x} is no frame of the umem")),
                Some(true) => return Err(format!("frame {f} came back twice")),
                Some(false) => {}
            }
            self.owned[f] = true;
            self.free.push(f as u32);
            self.reaped += 1;
            did = true;
        }
    }

    /// Submits each owned frame on a random socket, one descriptor at a
    /// time, rarely an invalid one; a frame whose ring is full waits.
    fn submit(&mut self, rng: &mut Rng, keep: &mut Vec<u32>) -> bool {
        let mut did = false;
        keep.clear();
        for &f in &self.free {
            let s = rng.below(self.tx.len() as u32) as usize;
            let Some(idx) = self.tx[s].reserve(1) else {
                keep.push(f);
                continue;
            };
            let ok = !rng.chance(1, 32);
            let addr = f as u64 * self.frame_size;
            let len = if ok { PKT_LEN } else { 0 };
            self.tx[s].write(idx, XdpDesc { addr, len, options: 0 });
            self.tx[s].submit(1);
            self.owned[f as usize] = false;
            self.submitted += 1;
            did = true;
        }
        std::mem::swap(&mut self.free, keep);
        did
    }
}

/// Runs until the application has taken `packets` completions and owns
/// every frame again; returns the descriptors transmitted. The sizes,
/// budget and outcomes are `cfg`'s (design b, per-descriptor loop,
/// single-buffer packets only).
pub fn run(cfg: &CopyTxConfig, packets: u64) -> Result<u64, String> {
    cfg.validate()?;
    let spec = &cfg.spec;
    if spec.batch_size != 0 || spec.multi_buf {
        return Err("the bare twin runs the per-descriptor loop with single-buffer packets only".into());
    }
    let (sockets, frames) = (cfg.sockets(), cfg.frames());
    let cq_ring = Arc::new(Ring::new(spec.cq_size as u32, cfg.cq_start, u64::MAX).map_err(|e| e.to_string())?);
    // Safety: the shared state holds the completion ring's only producer,
    // the application its only consumer.
    let (kprod, ucons) = unsafe { (KernelProd::new(cq_ring.clone()), UserCons::new(cq_ring)) };
    let mut socks = Vec::new();
    let mut prods = Vec::new();
    for id in 0..sockets {
        let ring = Arc::new(Ring::new(spec.tx_size as u32, cfg.tx_start, XdpDesc::default()).map_err(|e| e.to_string())?);
        // Safety: socket `id` is this ring's only consumer, the
        // application its only producer.
        let (kcons, uprod) = unsafe { (KernelCons::new(ring.clone()), UserProd::new(ring)) };
        let (budget, frames, frame_size) = (spec.budget as u32, frames as u64, cfg.frame_size);
        socks.push(Sock { id, tx: kcons, budget, frames, frame_size });
        prods.push(uprod);
    }
    let sh = Shared {
        cq: Mutex::new(kprod),
        txq: Mutex::new(Vec::new()),
        wmem: (0..sockets).map(|_| AtomicU32::new(0)).collect(),
        stop: AtomicBool::new(false),
    };
    let mut app = App {
        tx: prods,
        cq: ucons,
        free: (0..frames as u32).collect(),
        owned: vec![true; frames],
        frame_size: cfg.frame_size,
        submitted: 0,
        reaped: 0,
    };
    let out = Outcomes::new(spec.alloc_fails, &spec.outcomes);
    let seed = cfg.seed;
    let (sent, app) = thread::scope(|scope| {
        let (sh, out) = (&sh, &out);
        let kernel: Vec<_> = socks
            .into_iter()
            .map(|mut k| {
                scope.spawn(move || {
                    let _stop = StopOnExit(&sh.stop);
                    let mut rng = Rng::new(seed ^ (0x5e7d << 8) ^ k.id as u64);
                    let mut sent = 0u64;
                    while !sh.stop.load(Relaxed) {
                        let n = k.sendto(sh, out, &mut rng);
                        if n == 0 {
                            thread::yield_now();
                        }
                        sent += n as u64;
                    }
                    sent
                })
            })
            .collect();
        let driver = scope.spawn(move || {
            let _stop = StopOnExit(&sh.stop);
            let mut rng = Rng::new(seed ^ 0xd71e);
            loop {
                let skb = {
                    let mut q = lock(&sh.txq);
                    let n = q.len() as u32;
                    (n > 0).then(|| q.remove(rng.below(n) as usize))
                };
                match skb {
                    Some(skb) => sh.destruct(skb),
                    None if sh.stop.load(Relaxed) => return,
                    None => thread::yield_now(),
                }
            }
        });
        let user = scope.spawn(move || {
            let _stop = StopOnExit(&sh.stop);
            let mut rng = Rng::new(seed ^ 0x05e7);
            let mut keep = Vec::with_capacity(frames);
            let mut idle = 0u64;
            while app.reaped < packets || app.free.len() < frames {
                let mut did = app.reap()?;
                if app.reaped < packets {
                    did |= app.submit(&mut rng, &mut keep);
                }
                if did {
                    idle = 0;
                } else if sh.stop.load(Relaxed) {
                    return Err("another thread ended before the application".to_string());
                } else {
                    idle += 1;
                    if idle > STUCK {
                        return Err(format!(
                            "stuck: {} of {packets} completions, {} of {frames} frames back, after {STUCK} idle rounds",
                            app.reaped,
                            app.free.len()
                        ));
                    }
                    thread::yield_now();
                }
            }
            Ok(app)
        });
        let app = user.join().map_err(|_| "the application panicked".to_string());
        let mut sent = 0;
        for (s, k) in kernel.into_iter().enumerate() {
            sent += k.join().map_err(|_| format!("socket {s} panicked"))?;
        }
        driver.join().map_err(|_| "the driver panicked".to_string())?;
        Ok::<_, String>((sent, app??))
    })?;
    if app.reaped != app.submitted {
        return Err(format!("{} descriptors submitted, {} completions taken", app.submitted, app.reaped));
    }
    if let Some(s) = sh.wmem.iter().position(|w| w.load(Relaxed) != 0) {
        return Err(format!("socket {s}: skbs still charged at the end"));
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim_rate::config;

    #[test]
    fn every_frame_comes_back_once() {
        for (ring, sockets) in [(4, 2), (64, 1), (64, 4), (1024, 2)] {
            let descs = run(&config(ring, sockets, 3), 3_000).unwrap_or_else(|e| panic!("ring {ring}, {sockets} sockets: {e}"));
            assert!(descs > 0, "ring {ring}, {sockets} sockets: nothing sent");
        }
    }

    /// A completion of a frame the application owns, or of no frame, is
    /// caught: the count the twin's runs rest on.
    #[test]
    fn a_frame_back_twice_or_no_frame_is_an_error() {
        let ring = Arc::new(Ring::new(4, 0, u64::MAX).unwrap());
        // Safety: this test holds the ring's only producer and consumer.
        let (mut prod, cq) = unsafe { (KernelProd::new(ring.clone()), UserCons::new(ring)) };
        let mut app = App { tx: Vec::new(), cq, free: vec![1], owned: vec![false, true], frame_size: 2048, submitted: 1, reaped: 0 };
        for addr in [0, 2048, 3 * 2048] {
            prod.reserve_n(1);
            prod.write_at_producer(&[addr]);
            prod.submit_n(1);
        }
        assert_eq!(app.reap().unwrap_err(), "frame 1 came back twice");
        assert_eq!((app.reaped, app.free.as_slice()), (1, [1, 0].as_slice()));
        assert_eq!(app.reap().unwrap_err(), "completion 0x1800 is no frame of the umem");
    }

    #[test]
    fn batches_and_multi_buffer_packets_are_refused() {
        let mut cfg = config(64, 1, 1);
        cfg.spec.batch_size = 4;
        assert!(run(&cfg, 10).unwrap_err().contains("per-descriptor loop"));
        let cfg = config(64, 1, 1).multi_buf(3, ringlab_model::copy_tx::DropFrags::Complete, ringlab_model::copy_tx::PublishFrags::Packet);
        assert!(run(&cfg, 10).unwrap_err().contains("single-buffer"));
    }
}
