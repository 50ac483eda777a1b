//! Ring throughput: the simulator's ring handles (sim/src/ring/) between
//! two threads, one entry at a time and in batches, beside libxdp's own
//! ring functions (xsk_peer.rs), rtrb (push/pop, and its chunk API) and
//! crossbeam's ArrayQueue, in one run, on rings of the same size. Every
//! receiver checks it gets 0, 1, 2, ... in order.
//!
//! ringlab runs as both of its rings' pairings: the tx ring (libxdp's
//! producer, all-or-nothing reserve; the kernel's consumer, which publishes
//! `->consumer` after a batch, or for single entries when its cache runs
//! empty) and the completion ring (the kernel's producer, which reserves
//! what is free up to the batch; libxdp's consumer).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crossbeam_queue::ArrayQueue;
use ringlab_ring::{KernelCons, KernelProd, Ring, UserCons, UserProd};

use super::iouring_load;
use super::table::{col, median, paired_ratio, ChartSpec, Fmt, Table};

mod xsk_peer;

pub struct RingOpts {
    pub size: u32,
    pub batches: Vec<u32>,
    /// Each measurement is repeated this often, interleaved with the
    /// others; the median is reported.
    pub rounds: usize,
    /// How long one measurement sends.
    pub run: Duration,
}

impl RingOpts {
    pub fn new(quick: bool) -> RingOpts {
        RingOpts {
            size: 2048,
            batches: vec![1, 16, 64, 256],
            rounds: if quick { 1 } else { 7 },
            run: Duration::from_millis(if quick { 30 } else { 150 }),
        }
    }
}

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
fn expect(v: u64, next: &mut u64) {
    if v != *next {
        out_of_order(v, *next);
    }
    *next += 1;
}

#[cold]
#[inline(never)]
fn out_of_order(v: u64, want: u64) -> ! {
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

/// rtrb, one entry at a time (push / pop).
pub struct RtrbProd(rtrb::Producer<u64>);
pub struct RtrbCons(rtrb::Consumer<u64>);
/// rtrb's chunk API (write_chunk_uninit / read_chunk).
pub struct RtrbChunkProd(rtrb::Producer<u64>);
pub struct RtrbChunkCons(rtrb::Consumer<u64>);

pub fn rtrb_pair(size: u32) -> (RtrbProd, RtrbCons) {
    let (p, c) = rtrb::RingBuffer::new(size as usize);
    (RtrbProd(p), RtrbCons(c))
}

pub fn rtrb_chunks(size: u32) -> (RtrbChunkProd, RtrbChunkCons) {
    let (p, c) = rtrb::RingBuffer::new(size as usize);
    (RtrbChunkProd(p), RtrbChunkCons(c))
}

impl Tx for RtrbProd {
    #[inline]
    fn send(&mut self, seq: u64, n: u32) -> u32 {
        for i in 0..n {
            if self.0.push(seq + i as u64).is_err() {
                return i;
            }
        }
        n
    }
}

impl Rx for RtrbCons {
    #[inline]
    fn recv(&mut self, n: u32, next: &mut u64) -> u32 {
        for i in 0..n {
            match self.0.pop() {
                Ok(v) => expect(v, next),
                Err(_) => return i,
            }
        }
        n
    }
}

impl Tx for RtrbChunkProd {
    #[inline]
    fn send(&mut self, seq: u64, n: u32) -> u32 {
        match self.0.write_chunk_uninit(n as usize) {
            Ok(chunk) => chunk.fill_from_iter(seq..seq + n as u64) as u32,
            Err(_) => 0,
        }
    }
}

impl Rx for RtrbChunkCons {
    #[inline]
    fn recv(&mut self, n: u32, next: &mut u64) -> u32 {
        let k = self.0.slots().min(n as usize);
        if k == 0 {
            return 0;
        }
        let chunk = self.0.read_chunk(k).expect("slots() said they are there");
        let (a, b) = chunk.as_slices();
        for &v in a.iter().chain(b) {
            expect(v, next);
        }
        chunk.commit_all();
        k as u32
    }
}

/// crossbeam's ArrayQueue (no batch API: a batch is a loop).
pub struct Xbeam(Arc<ArrayQueue<u64>>);

pub fn crossbeam_pair(size: u32) -> (Xbeam, Xbeam) {
    let q = Arc::new(ArrayQueue::new(size as usize));
    (Xbeam(q.clone()), Xbeam(q))
}

impl Tx for Xbeam {
    #[inline]
    fn send(&mut self, seq: u64, n: u32) -> u32 {
        for i in 0..n {
            if self.0.push(seq + i as u64).is_err() {
                return i;
            }
        }
        n
    }
}

impl Rx for Xbeam {
    #[inline]
    fn recv(&mut self, n: u32, next: &mut u64) -> u32 {
        for i in 0..n {
            match self.0.pop() {
                Some(v) => expect(v, next),
                None => return i,
            }
        }
        n
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

/// The peers of one batch size, in the table's order.
const PEERS: [&str; 5] = ["ringlab tx", "ringlab cq", "libxdp", "rtrb", "crossbeam"];

/// Whether `peer` can run in this build (libxdp's needs its header).
fn built(peer: &str) -> bool {
    peer != "libxdp" || xsk_peer::skipped().is_none()
}

fn one(peer: &str, size: u32, batch: u32, run: Duration) -> f64 {
    match (peer, batch) {
        #[cfg(libxdp_ring)]
        ("libxdp", _) => {
            let (p, c) = xsk_peer::pair(size).expect("the ring bench's sizes are powers of two");
            measure(p, c, batch, run)
        }
        ("ringlab tx", _) => {
            let (p, c) = ringlab_tx(size);
            measure(p, c, batch, run)
        }
        ("ringlab cq", _) => {
            let (p, c) = ringlab_cq(size);
            measure(p, c, batch, run)
        }
        ("rtrb", 1) => {
            let (p, c) = rtrb_pair(size);
            measure(p, c, batch, run)
        }
        ("rtrb", _) => {
            let (p, c) = rtrb_chunks(size);
            measure(p, c, batch, run)
        }
        ("crossbeam", _) => {
            let (p, c) = crossbeam_pair(size);
            measure(p, c, batch, run)
        }
        _ => unreachable!("unknown peer {peer}"),
    }
}

/// The benchmark's table; `progress` prints a line per round on stderr.
pub fn bench(o: &RingOpts, progress: bool) -> Table {
    let mut samples = vec![vec![Vec::new(); PEERS.len()]; o.batches.len()];
    let before = iouring_load::sample();
    for round in 0..o.rounds {
        if progress {
            eprintln!("  ring: round {}/{}", round + 1, o.rounds);
        }
        for (b, &batch) in o.batches.iter().enumerate() {
            for (p, peer) in PEERS.iter().enumerate() {
                if built(peer) {
                    samples[b][p].push(one(peer, o.size, batch, o.run));
                }
            }
        }
    }
    let after = iouring_load::sample();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut t = Table::new(
        "ring",
        format!("ring throughput (entries/s, two threads, {}-entry rings of u64)", o.size),
        vec![
            col("batch", "batch", Fmt::Text),
            col("ringlab_tx", "ringlab tx", Fmt::Rate),
            col("ringlab_cq", "ringlab cq", Fmt::Rate),
            col("libxdp", "libxdp", Fmt::Rate),
            col("rtrb", "rtrb", Fmt::Rate),
            col("crossbeam", "crossbeam", Fmt::Rate),
            col("tx_vs_libxdp", "tx/libxdp", Fmt::Ratio),
            col("cq_vs_libxdp", "cq/libxdp", Fmt::Ratio),
            col("tx_vs_rtrb", "tx/rtrb", Fmt::Ratio),
            col("cq_vs_rtrb", "cq/rtrb", Fmt::Ratio),
            col("tx_vs_crossbeam", "tx/xbeam", Fmt::Ratio),
            col("cq_vs_crossbeam", "cq/xbeam", Fmt::Ratio),
        ],
    );
    // per pairing (tx, cq): every batched row at least rtrb's chunks; and
    // the goals against libxdp (libxdp_goal)
    let mut batched_ok = [true, true];
    let mut libxdp_ok = [true, true];
    for (b, &batch) in o.batches.iter().enumerate() {
        let m: Vec<Option<f64>> = samples[b].iter().map(|s| median(s)).collect();
        let [tx, cq, lx, rt, xb] = [&samples[b][0], &samples[b][1], &samples[b][2], &samples[b][3], &samples[b][4]];
        let r = [
            paired_ratio(tx, lx),
            paired_ratio(cq, lx),
            paired_ratio(tx, rt),
            paired_ratio(cq, rt),
            paired_ratio(tx, xb),
            paired_ratio(cq, xb),
        ];
        for (ok, ours) in batched_ok.iter_mut().zip([r[2], r[3]]) {
            if batch > 1 && !ours.is_some_and(|r| r >= 1.0) {
                *ok = false;
            }
        }
        for (ok, ours) in libxdp_ok.iter_mut().zip([r[0], r[1]]) {
            if !ours.is_some_and(|r| r >= libxdp_goal(batch)) {
                *ok = false;
            }
        }
        let mut row = vec![batch.to_string().into()];
        row.extend(m.into_iter().map(Into::into));
        row.extend(r.into_iter().map(Into::into));
        t.push(row);
    }
    t.note("tx: libxdp producer -> kernel consumer; cq: kernel producer -> libxdp consumer (sim/src/ring/)");
    match xsk_peer::skipped() {
        None => t.note(
            "libxdp: <xdp/xsk.h>'s xsk_ring_prod__reserve/submit -> xsk_ring_cons__peek/release over the same layout (c/xsk_ring_peer.c, called out of line)",
        ),
        Some(why) => t.note(format!("SKIP libxdp: {why}")),
    }
    t.note("rtrb: push/pop at batch 1, write_chunk_uninit/read_chunk above; crossbeam: ArrayQueue push/pop in a loop");
    t.note(format!(
        "median of {} interleaved rounds of {} ms runs (ratios: median of each round's ratio); threads pinned to CPUs 0 and 1",
        o.rounds,
        o.run.as_millis()
    ));
    let yes = |b: bool| if b { "yes" } else { "no" };
    t.note(format!(
        "batched ringlab >= rtrb chunks: tx {}, cq {}",
        yes(batched_ok[0]),
        yes(batched_ok[1])
    ));
    if xsk_peer::skipped().is_none() {
        t.note(format!(
            "ringlab >= {:.1}x libxdp at batch 1 and >= {:.1}x above: tx {}, cq {}",
            libxdp_goal(1),
            libxdp_goal(2),
            yes(libxdp_ok[0]),
            yes(libxdp_ok[1])
        ));
    }
    t.note(format!("before: {}; after: {}", iouring_load::line(&before), iouring_load::line(&after)));
    if let Some(why) = iouring_load::busy(&before, &after, cores) {
        t.note(format!("BUSY machine ({why}): figures lower and noisier than this machine can do; ratios of one run still compare"));
    }
    t.chart = Some(ChartSpec {
        label: "batch",
        series: vec!["ringlab_tx", "ringlab_cq", "libxdp", "rtrb", "crossbeam"],
        unit: "entries per second by batch size (longer is faster)".into(),
        skip_prefix: None,
    });
    t
}

/// The ratio ringlab / libxdp aimed for at `batch`: on a par once batched;
/// at one entry a little slack, as libxdp's peer is timed through an
/// out-of-line call where ringlab's handles inline.
fn libxdp_goal(batch: u32) -> f64 {
    if batch > 1 {
        1.0
    } else {
        0.9
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Val;

    /// Every pairing delivers every entry in order, single and batched,
    /// on a ring small enough to fill.
    #[test]
    fn every_peer_delivers_in_order() {
        for batch in [1, 3, 8] {
            for peer in PEERS.into_iter().filter(|p| built(p)) {
                let rate = one(peer, 8, batch, Duration::from_millis(5));
                assert!(rate.is_finite() && rate > 0.0, "{peer} batch {batch}: {rate}");
            }
        }
    }

    #[test]
    fn the_table_has_a_row_per_batch_and_finite_ratios() {
        let o = RingOpts { size: 64, batches: vec![1, 16], rounds: 1, run: Duration::from_millis(5) };
        let t = bench(&o, false);
        assert_eq!(t.rows.len(), 2);
        let libxdp: Vec<usize> = ["libxdp", "tx_vs_libxdp", "cq_vs_libxdp"].iter().map(|k| t.index(k).unwrap()).collect();
        for r in &t.rows {
            for (i, v) in r.iter().enumerate().skip(1) {
                if libxdp.contains(&i) && !built("libxdp") {
                    assert_eq!(v, &Val::None, "no libxdp figure without the peer");
                } else {
                    assert!(matches!(v, Val::Num(x) if x.is_finite() && *x > 0.0), "{v:?}");
                }
            }
        }
        let skip_line = t.notes.iter().any(|n| n.starts_with("SKIP libxdp: "));
        assert_eq!(skip_line, !built("libxdp"));
    }
}
