//! One thread sending and receiving in turn through each ring of the ring
//! benchmark, for instruction counts under callgrind:
//!
//! ```sh
//! cargo build --release -p ringlab --example ring_profile
//! valgrind --tool=callgrind target/release/examples/ring_profile tx 64
//! ```
//!
//! PEER is tx, cq, rtrb or crossbeam; BATCH the entries per send.

use ringlab_bench::ring::{crossbeam_pair, ringlab_cq, ringlab_tx, rtrb_chunks, rtrb_pair, Rx, Tx};

const ENTRIES: u64 = 1 << 22;

fn pump(mut tx: impl Tx, mut rx: impl Rx, batch: u32) -> u64 {
    let (mut seq, mut next) = (0u64, 0u64);
    while next < ENTRIES {
        seq += tx.send(seq, batch) as u64;
        rx.recv(batch, &mut next);
    }
    seq
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let peer = args.get(1).map(String::as_str).unwrap_or("tx");
    let batch: u32 = args.get(2).and_then(|b| b.parse().ok()).unwrap_or(64);
    let size = 2048;
    let sent = match (peer, batch) {
        ("tx", _) => {
            let (p, c) = ringlab_tx(size);
            pump(p, c, batch)
        }
        ("cq", _) => {
            let (p, c) = ringlab_cq(size);
            pump(p, c, batch)
        }
        ("rtrb", 1) => {
            let (p, c) = rtrb_pair(size);
            pump(p, c, batch)
        }
        ("rtrb", _) => {
            let (p, c) = rtrb_chunks(size);
            pump(p, c, batch)
        }
        ("crossbeam", _) => {
            let (p, c) = crossbeam_pair(size);
            pump(p, c, batch)
        }
        _ => {
            eprintln!("usage: ring_profile tx|cq|rtrb|crossbeam [BATCH]");
            std::process::exit(2);
        }
    };
    println!("{peer} batch {batch}: {sent} entries");
}
