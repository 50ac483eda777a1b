//! loom: every interleaving (up to LOOM_MAX_PREEMPTIONS, default 3) of one
//! producer thread and one consumer thread on a small ring whose counters
//! start near u32::MAX, for both pairings of kernel and user code. Each
//! entry is its own position, so the consumer checks FIFO content; loom's
//! UnsafeCell tracking fails any slot access that the barriers do not order
//! against the other thread's.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p ringlab-sim --release --test loom`
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use ringlab_ring::{KernelCons, KernelProd, NoSpace, Ring, UserCons, UserProd, XdpDesc};

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(3);
    }
    b.check(f);
}

fn at(start: u32, i: u32) -> u32 {
    start.wrapping_add(i)
}

/// Position `pos` as a descriptor; every `bad_every`-th is invalid.
fn desc(pos: u32, start: u32, bad_every: u32) -> XdpDesc {
    let valid = bad_every == 0 || pos.wrapping_sub(start) % bad_every != bad_every - 1;
    XdpDesc {
        addr: pos as u64,
        len: valid as u32,
        options: 0,
    }
}

/// User producer (libxdp) filling `total` entries in batches of up to `batch`.
fn user_producer<T: Copy + Send + 'static>(
    ring: Arc<Ring<T>>,
    start: u32,
    total: u32,
    batch: u32,
    entry: fn(u32) -> T,
) -> thread::JoinHandle<()> {
    // Safety: the only producer of this ring.
    let mut p = unsafe { UserProd::new(ring) };
    thread::spawn(move || {
        let mut done = 0;
        while done < total {
            let nb = batch.min(total - done);
            let Some(idx) = p.reserve(nb) else {
                thread::yield_now();
                continue;
            };
            assert_eq!(
                idx,
                at(start, done),
                "reserve handed out a position out of order"
            );
            for i in 0..nb {
                p.write(at(idx, i), entry(at(idx, i)));
            }
            p.submit(nb);
            done += nb;
        }
    })
}

/// Fill ring: user producer, kernel consumer peeking one entry at a time
/// (xskq_cons_peek_addr_unchecked + xskq_cons_release).
fn fill(size: u32, start: u32, total: u32, batch: u32) {
    model(move || {
        let ring = Arc::new(Ring::new(size, start, u64::MAX).unwrap());
        // Safety: the only consumer of this ring.
        let mut c = unsafe { KernelCons::new(ring.clone()) };
        let prod = user_producer(ring, start, total, batch, |pos| pos as u64);
        for i in 0..total {
            let e = loop {
                match c.peek_entry() {
                    Some(e) => break e,
                    None => thread::yield_now(),
                }
            };
            assert_eq!(
                e,
                at(start, i) as u64,
                "FIFO: wrong entry at position {}",
                at(start, i)
            );
            c.release();
        }
        c.publish();
        prod.join().unwrap();
    });
}

/// Tx ring: user producer, kernel consumer in batches (xskq_cons_nb_entries
/// + xskq_cons_read_desc_batch + __xskq_cons_release), some descs invalid.
fn tx(size: u32, start: u32, total: u32, pbatch: u32, cbatch: u32, bad_every: u32) {
    model(move || {
        let ring = Arc::new(Ring::new(size, start, XdpDesc::default()).unwrap());
        // Safety: the only consumer of this ring.
        let mut c = unsafe { KernelCons::new(ring.clone()) };
        let entry = match bad_every {
            0 => |pos| desc(pos, 0, 0),
            _ => |pos| desc(pos, 0, 2),
        };
        let prod = user_producer(ring, start, total, pbatch, entry);
        let mut seen = 0;
        let mut out = Vec::new();
        while seen < total {
            let n = c.nb_entries(cbatch);
            if n == 0 {
                thread::yield_now();
                continue;
            }
            out.clear();
            let b = c.read_desc_batch(n, &mut out, XdpDesc::is_valid);
            for d in &out {
                let pos = at(start, seen);
                assert_eq!(d.addr, pos as u64, "FIFO: wrong desc at position {pos}");
                assert_eq!(d.is_valid(), entry(pos).is_valid());
                seen += 1;
            }
            assert_eq!(b.tx_descs + b.reclaim_descs, out.len() as u32);
            c.publish();
        }
        prod.join().unwrap();
    });
}

/// Kernel producer: one entry at a time (xskq_prod_reserve_addr +
/// xskq_prod_submit) or, with `batch` > 1, xskq_prod_nb_free +
/// xskq_prod_write_addr_batch (`in_place`: its loop, with write_with) +
/// xskq_prod_submit_n; with `cancel`, the first batch reserves one more
/// entry and gives it back (xskq_prod_cancel_n).
fn kernel_producer<T: Copy + Send + 'static>(
    ring: Arc<Ring<T>>,
    total: u32,
    batch: u32,
    cancel: bool,
    in_place: bool,
    entry: fn(u32) -> T,
) -> thread::JoinHandle<()> {
    // Safety: the only producer of this ring.
    let mut p = unsafe { KernelProd::new(ring) };
    thread::spawn(move || {
        let mut done = 0;
        let mut cancel = cancel;
        while done < total {
            if batch == 1 {
                let pos = p.cached_prod();
                match p.reserve_addr(entry(pos)) {
                    Ok(()) => {
                        p.submit();
                        done += 1;
                    }
                    Err(NoSpace) => thread::yield_now(),
                }
                continue;
            }
            let want = batch.min(total - done);
            let n = p.nb_free(want);
            if n == 0 {
                thread::yield_now();
                continue;
            }
            let first = p.cached_prod();
            if in_place {
                assert_eq!(p.reserve_n(n), n);
                p.write_with(first, n, |i| entry(at(first, i)));
            } else {
                let entries: Vec<T> = (0..n).map(|i| entry(at(first, i))).collect();
                p.write_addr_batch(&entries);
            }
            if cancel && n > 1 {
                p.cancel_n(1);
                p.submit_n(n - 1);
                done += n - 1;
                cancel = false;
            } else {
                p.submit_n(n);
                done += n;
            }
        }
    })
}

/// User consumer (libxdp) taking up to `batch` at a time.
fn user_consume<T: Copy>(
    c: &mut UserCons<Arc<Ring<T>>>,
    start: u32,
    total: u32,
    batch: u32,
    pos_of: fn(T) -> u32,
) {
    let mut seen = 0;
    while seen < total {
        let (n, idx) = c.peek(batch);
        if n == 0 {
            thread::yield_now();
            continue;
        }
        assert_eq!(idx, at(start, seen));
        for i in 0..n {
            let pos = at(idx, i);
            assert_eq!(
                pos_of(c.read(pos)),
                pos,
                "FIFO: wrong entry at position {pos}"
            );
        }
        c.release(n);
        seen += n;
    }
}

/// Completion ring: kernel producer, user consumer.
fn comp(size: u32, start: u32, total: u32, pbatch: u32, cbatch: u32, cancel: bool) {
    model(move || {
        let ring = Arc::new(Ring::new(size, start, u64::MAX).unwrap());
        // Safety: the only consumer of this ring.
        let mut c = unsafe { UserCons::new(ring.clone()) };
        let prod = kernel_producer(ring, total, pbatch, cancel, false, |pos| pos as u64);
        user_consume(&mut c, start, total, cbatch, |e| e as u32);
        prod.join().unwrap();
    });
}

/// Rx ring: kernel producer, user consumer, descriptors.
fn rx(size: u32, start: u32, total: u32, pbatch: u32, cbatch: u32) {
    model(move || {
        let ring = Arc::new(Ring::new(size, start, XdpDesc::default()).unwrap());
        // Safety: the only consumer of this ring.
        let mut c = unsafe { UserCons::new(ring.clone()) };
        let prod = kernel_producer(ring, total, pbatch, false, false, |pos| desc(pos, 0, 0));
        user_consume(&mut c, start, total, cbatch, |d| d.addr as u32);
        prod.join().unwrap();
    });
}

/// Tx ring with the batch copies: libxdp's producer stores each batch with
/// write_batch (or, `in_place`, write_with), the kernel's consumer loads
/// each with read_batch (the owned ring's per-run copy, whose slot accesses
/// loom tracks one by one).
fn tx_copies(size: u32, start: u32, total: u32, batch: u32, in_place: bool) {
    model(move || {
        let ring = Arc::new(Ring::new(size, start, u64::MAX).unwrap());
        // Safety: the only consumer and the only producer of this ring.
        let (mut c, mut p) = unsafe { (KernelCons::new(ring.clone()), UserProd::new(ring)) };
        let prod = thread::spawn(move || {
            let mut done = 0;
            while done < total {
                let nb = batch.min(total - done);
                let Some(idx) = p.reserve(nb) else {
                    thread::yield_now();
                    continue;
                };
                if in_place {
                    p.write_with(idx, nb, |i| at(idx, i) as u64);
                } else {
                    let entries: Vec<u64> = (0..nb).map(|i| at(idx, i) as u64).collect();
                    p.write_batch(idx, &entries);
                }
                p.submit(nb);
                done += nb;
            }
        });
        let mut seen = 0;
        while seen < total {
            let n = c.nb_entries(batch);
            if n == 0 {
                thread::yield_now();
                continue;
            }
            let mut out = vec![u64::MAX; n as usize];
            c.read_batch(c.cached_cons(), &mut out);
            for e in out {
                let pos = at(start, seen);
                assert_eq!(e, pos as u64, "FIFO: wrong entry at position {pos}");
                seen += 1;
            }
            c.release_n(n);
            c.publish();
        }
        prod.join().unwrap();
    });
}

/// Completion ring with the batch copies: the kernel's write_addr_batch,
/// libxdp's consumer loading each peek with read_batch; or, `in_place`,
/// the kernel's write_with and libxdp's read_with.
fn comp_copies(size: u32, start: u32, total: u32, batch: u32, in_place: bool) {
    model(move || {
        let ring = Arc::new(Ring::new(size, start, u64::MAX).unwrap());
        // Safety: the only consumer of this ring.
        let mut c = unsafe { UserCons::new(ring.clone()) };
        let prod = kernel_producer(ring, total, batch, false, in_place, |pos| pos as u64);
        let mut seen = 0;
        while seen < total {
            let (n, idx) = c.peek(batch);
            if n == 0 {
                thread::yield_now();
                continue;
            }
            let mut out = vec![u64::MAX; n as usize];
            if in_place {
                let mut i = 0;
                c.read_with(idx, n, |e| {
                    out[i] = e;
                    i += 1;
                });
            } else {
                c.read_batch(idx, &mut out);
            }
            for e in out {
                let pos = at(start, seen);
                assert_eq!(e, pos as u64, "FIFO: wrong entry at position {pos}");
                seen += 1;
            }
            c.release(n);
        }
        prod.join().unwrap();
    });
}

const NEAR_MAX: u32 = u32::MAX - 1;

#[test]
fn fill_size1_single() {
    fill(1, NEAR_MAX, 3, 1);
}

#[test]
fn fill_size2_batches() {
    fill(2, NEAR_MAX, 4, 2);
}

#[test]
fn tx_size2_batches_with_invalid_descs() {
    tx(2, NEAR_MAX, 4, 2, 2, 2);
}

/// The consumer hands back one entry at a time, so the producer sees the
/// ring part free.
#[test]
fn tx_size2_partial_release() {
    tx(2, NEAR_MAX, 4, 2, 1, 0);
}

#[test]
fn tx_size4_batches() {
    tx(4, u32::MAX - 2, 5, 4, 4, 0);
}

#[test]
fn comp_size1_single() {
    comp(1, NEAR_MAX, 3, 1, 1, false);
}

#[test]
fn comp_size2_batches_with_cancel() {
    comp(2, NEAR_MAX, 4, 2, 2, true);
}

#[test]
fn rx_size2_batches() {
    rx(2, NEAR_MAX, 4, 2, 2);
}

#[test]
fn rx_size4_batches() {
    rx(4, u32::MAX - 2, 5, 4, 4);
}

#[test]
fn tx_size2_batch_copies() {
    tx_copies(2, NEAR_MAX, 4, 2, false);
}

#[test]
fn tx_size2_in_place() {
    tx_copies(2, NEAR_MAX, 4, 2, true);
}

#[test]
fn comp_size2_batch_copies() {
    comp_copies(2, NEAR_MAX, 4, 2, false);
}

#[test]
fn comp_size2_in_place() {
    comp_copies(2, NEAR_MAX, 4, 2, true);
}
