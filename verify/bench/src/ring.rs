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

use std::sync::Arc;
use std::time::Duration;

use crossbeam_queue::ArrayQueue;
pub use ringlab_ring_pump::{expect, measure, out_of_order, ringlab_cq, ringlab_tx, Rx, Tx};

use super::iouring_load;
use super::table::{col, median, paired_ratio, ChartSpec, Fmt, Table};

mod unchecked;
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

/// The peers of one batch size, in the table's order. "no checks": the
/// same handles built with their protocol checks compiled out (unchecked.rs).
const PEERS: [&str; 7] = ["ringlab tx", "ringlab cq", "libxdp", "rtrb", "crossbeam", "tx no checks", "cq no checks"];

/// Whether `peer` can run here (libxdp's needs its header, the unchecked
/// build cargo and the source tree).
fn built(peer: &str) -> bool {
    match peer {
        "libxdp" => xsk_peer::skipped().is_none(),
        "tx no checks" | "cq no checks" => unchecked::pump().is_ok(),
        _ => true,
    }
}

fn one(peer: &str, size: u32, batch: u32, run: Duration) -> f64 {
    match (peer, batch) {
        ("tx no checks" | "cq no checks", _) => {
            let pump = unchecked::pump().expect("built() said the unchecked pump runs");
            let side = &peer[..2];
            pump.measure(side, size, batch, run).unwrap_or_else(|e| panic!("ring bench, {peer}: {e}"))
        }
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
            col("ringlab_tx_unchecked", "tx no checks", Fmt::Rate),
            col("ringlab_cq_unchecked", "cq no checks", Fmt::Rate),
            col("tx_vs_libxdp", "tx/libxdp", Fmt::Ratio),
            col("cq_vs_libxdp", "cq/libxdp", Fmt::Ratio),
            col("tx_vs_rtrb", "tx/rtrb", Fmt::Ratio),
            col("cq_vs_rtrb", "cq/rtrb", Fmt::Ratio),
            col("tx_vs_crossbeam", "tx/xbeam", Fmt::Ratio),
            col("cq_vs_crossbeam", "cq/xbeam", Fmt::Ratio),
            col("tx_unchecked_vs_libxdp", "tx nc/libxdp", Fmt::Ratio),
            col("cq_unchecked_vs_libxdp", "cq nc/libxdp", Fmt::Ratio),
            col("tx_unchecked_vs_rtrb", "tx nc/rtrb", Fmt::Ratio),
            col("cq_unchecked_vs_rtrb", "cq nc/rtrb", Fmt::Ratio),
        ],
    );
    // per pairing (tx, cq, tx no checks, cq no checks): every batched
    // row at least rtrb's chunks; and the goals against libxdp
    // (libxdp_goal)
    let mut batched_ok = [true; 4];
    let mut libxdp_ok = [true; 4];
    for (b, &batch) in o.batches.iter().enumerate() {
        let m: Vec<Option<f64>> = samples[b].iter().map(|s| median(s)).collect();
        let [tx, cq, lx, rt, xb, txn, cqn] = [0, 1, 2, 3, 4, 5, 6].map(|p| &samples[b][p]);
        let r = [
            paired_ratio(tx, lx),
            paired_ratio(cq, lx),
            paired_ratio(tx, rt),
            paired_ratio(cq, rt),
            paired_ratio(tx, xb),
            paired_ratio(cq, xb),
            paired_ratio(txn, lx),
            paired_ratio(cqn, lx),
            paired_ratio(txn, rt),
            paired_ratio(cqn, rt),
        ];
        for (ok, ours) in batched_ok.iter_mut().zip([r[2], r[3], r[8], r[9]]) {
            if batch > 1 && !ours.is_some_and(|r| r >= 1.0) {
                *ok = false;
            }
        }
        for (ok, ours) in libxdp_ok.iter_mut().zip([r[0], r[1], r[6], r[7]]) {
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
    let unchecked = unchecked::pump().err();
    match unchecked {
        None => t.note("no checks: the same handles built apart with --cfg ringlab_unchecked (verify/bench/pump), their protocol checks compiled out; tests keep them"),
        Some(why) => t.note(format!("SKIP no checks: {why}")),
    }
    let yes = |b: bool| if b { "yes" } else { "no" };
    let both = |ok: &[bool; 4], i: usize| match unchecked {
        None => format!("{} ({} with checks)", yes(ok[i + 2]), yes(ok[i])),
        Some(_) => format!("{} with checks", yes(ok[i])),
    };
    t.note(format!("batched ringlab >= rtrb chunks: tx {}, cq {}", both(&batched_ok, 0), both(&batched_ok, 1)));
    if xsk_peer::skipped().is_none() {
        t.note(format!(
            "ringlab >= {:.1}x libxdp at batch 1 and >= {:.1}x above: tx {}, cq {}",
            libxdp_goal(1),
            libxdp_goal(2),
            both(&libxdp_ok, 0),
            both(&libxdp_ok, 1)
        ));
    }
    t.note(format!("before: {}; after: {}", iouring_load::line(&before), iouring_load::line(&after)));
    if let Some(why) = iouring_load::busy(&before, &after, cores) {
        t.note(format!("BUSY machine ({why}): figures lower and noisier than this machine can do; ratios of one run still compare"));
    }
    t.chart = Some(ChartSpec {
        label: "batch",
        series: vec!["ringlab_tx", "ringlab_cq", "libxdp", "rtrb", "crossbeam", "ringlab_tx_unchecked", "ringlab_cq_unchecked"],
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
        let col = |keys: &[&str]| keys.iter().map(|k| t.index(k).unwrap()).collect::<Vec<usize>>();
        let libxdp = col(&["libxdp", "tx_vs_libxdp", "cq_vs_libxdp", "tx_unchecked_vs_libxdp", "cq_unchecked_vs_libxdp"]);
        let nc = col(&["ringlab_tx_unchecked", "ringlab_cq_unchecked", "tx_unchecked_vs_libxdp", "cq_unchecked_vs_libxdp", "tx_unchecked_vs_rtrb", "cq_unchecked_vs_rtrb"]);
        for r in &t.rows {
            for (i, v) in r.iter().enumerate().skip(1) {
                if (libxdp.contains(&i) && !built("libxdp")) || (nc.contains(&i) && !built("tx no checks")) {
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
