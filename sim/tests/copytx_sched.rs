//! Copy-mode transmit under the seeded deterministic scheduler: many
//! seeds, each run checking every invariant after every step, then a drain
//! to a quiescent point. A failure names the seed, which replays it:
//! `ringlab sim copy-tx --seed S --design D --batch N --sockets K`.
//!
//! Multi-buffer runs take the spec's two choices: with a dropped packet's
//! fragments completed and the consumer published only up to the packet
//! being built, every invariant holds; 6.12.117's choices break
//! FrameConservation and TxConsumerMonotone, and nothing else.
//!
//! Kills (`ringlab mutants`): xsk-immature-cq, xsk-txbusy-rollback,
//! xsk-shared-cq-race, xsk-cq-leak-2019, mb-send-partial.

use ringlab_sim::copy_tx::{CopyTx, CopyTxConfig, Design, DropFrags, Publish, PublishFrags, Report};
use ringlab_sim::harness::{self, Failure, Sched};

/// A deterministic run of `cfg`: 300 random steps, then the drain.
fn run(cfg: CopyTxConfig) -> Result<Report, Failure> {
    let seed = cfg.seed;
    harness::run::<CopyTx>(cfg, 300, None).map_err(|e| e.into_failure(seed))
}

fn cfg(design: Design, batch: i64, seed: u64, publish: Publish) -> CopyTxConfig {
    let mut c = CopyTxConfig::new(design, batch, 2, 4);
    c.spec.tx_size = [2, 4][(seed % 2) as usize];
    c.spec.cq_size = [4, 2, 2][(seed % 3) as usize];
    c.spec.budget = 1 + (seed % 3) as i64;
    c.publish = publish;
    c.seed = seed;
    c
}

/// Multi-buffer packets of 2 to 4 descriptors at most, on design b.
fn mb(seed: u64, publish: Publish, drop: DropFrags, frags: PublishFrags) -> CopyTxConfig {
    cfg(Design::B, 0, seed, publish).multi_buf(2 + (seed % 3) as i64, drop, frags)
}

fn clean(design: Design, batch: i64, publish: Publish) {
    clean_runs(
        &format!("design {design:?} batch {batch} {publish:?}"),
        |seed| cfg(design, batch, seed, publish),
    );
}

fn clean_runs(what: &str, cfg: impl Fn(u64) -> CopyTxConfig) {
    let mut completed = 0;
    for seed in 0..300 {
        match run(cfg(seed)) {
            Ok(r) => completed += r.completed,
            Err(f) => panic!("{what}: {f}"),
        }
    }
    assert!(
        completed > 300 * 20,
        "only {completed} completions in 300 runs"
    );
}

#[test]
fn design_b_per_descriptor_keeps_every_invariant() {
    clean(Design::B, 0, Publish::Kernel);
    clean(Design::B, 0, Publish::EachStep);
}

#[test]
fn design_b_batches_keep_every_invariant() {
    for batch in [1, 2, 3] {
        clean(Design::B, batch, Publish::Kernel);
    }
    clean(Design::B, 2, Publish::EachStep);
}

/// 6.12.117 publishes completions by count, so a destructor publishes the
/// oldest reserved slot, whoever's it is: a frame whose skb is in flight
/// (NoImmatureCompletion), or one another socket reserved a slot for and
/// has not built, or gave up when its own cancel took back a later slot
/// instead (NoDoubleCompletion: the frame is also in a tx ring or the
/// application's). The scheduler finds both, and nothing else.
#[test]
fn design_a_completes_frames_still_in_flight() {
    let (mut immature, mut double) = (0, 0);
    for seed in 0..300 {
        match run(cfg(Design::A, 0, seed, Publish::Kernel)) {
            Ok(_) => {}
            Err(f) if f.invariant == Some("NoImmatureCompletion") => immature += 1,
            Err(f) if f.invariant == Some("NoDoubleCompletion") => double += 1,
            Err(f) => panic!("design a: {f}"),
        }
    }
    assert!(
        immature > 30,
        "only {immature} of 300 seeds found an immature completion"
    );
    assert!(double > 0, "no seed completed a frame held elsewhere");
}

#[test]
fn a_seed_replays_its_run() {
    let run = |seed| {
        let mut s = Sched::<CopyTx>::new(cfg(Design::B, 2, seed, Publish::Kernel)).unwrap();
        let actions: Vec<_> = (0..200).map(|_| s.step_random().unwrap()).collect();
        (actions, s.sys.model_state())
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42).0, run(43).0);
}

#[test]
fn a_broken_run_names_the_invariant_seed_and_step() {
    let mut s = Sched::<CopyTx>::new(cfg(Design::A, 0, 5, Publish::Kernel)).unwrap();
    let f = loop {
        if let Err(f) = s.step_random() {
            break f;
        }
    };
    let text = f.to_string();
    assert!(text.starts_with("seed 5 step "), "{text}");
    assert!(
        text.contains("invariant NoImmatureCompletion violated"),
        "{text}"
    );
}

#[test]
fn multi_buffer_packets_keep_every_invariant() {
    for publish in [Publish::Kernel, Publish::EachStep] {
        clean_runs(&format!("multi-buffer {publish:?}"), |seed| {
            mb(seed, publish, DropFrags::Complete, PublishFrags::Packet)
        });
    }
}

/// The multi-buffer runs reach what they are for: packets of several
/// descriptors sent whole, packets dropped (too many descriptors, or an
/// invalid one among them), and the rest of a dropped packet drained.
#[test]
fn multi_buffer_runs_send_drop_and_drain_packets() {
    let (mut whole, mut dropped, mut drained) = (0, 0, 0);
    for seed in 0..100 {
        let mut s = Sched::<CopyTx>::new(mb(
            seed,
            Publish::Kernel,
            DropFrags::Complete,
            PublishFrags::Packet,
        ))
        .unwrap();
        for _ in 0..300 {
            let a = s.step_random().unwrap_or_else(|f| panic!("{f}"));
            let sys = &s.sys;
            whole += sys
                .pool
                .in_flight(|q| q.iter().filter(|k| k.addrs.len() > 1).count());
            drained += sys.socks.iter().filter(|k| k.drain_cont).count();
            if a.is_some_and(|a| a.name() == "XmitSend") {
                dropped += sys.socks.iter().filter(|k| k.drain_cont).count();
            }
        }
    }
    assert!(whole > 100, "{whole} multi-descriptor skbs seen in flight");
    assert!(
        dropped > 10,
        "{dropped} packets dropped for too many descriptors"
    );
    assert!(drained > 100, "{drained} steps draining a dropped packet");
}

/// The seeds that fail with one of 6.12.117's choices, by invariant.
fn failures(drop: DropFrags, frags: PublishFrags) -> (usize, Vec<String>) {
    let (mut n, mut other) = (0, Vec::new());
    for seed in 0..300 {
        let c = mb(seed, Publish::Kernel, drop, frags);
        let want = match drop {
            DropFrags::Cancel => "FrameConservation",
            DropFrags::Complete => "TxConsumerMonotone",
        };
        match run(c) {
            Ok(_) => {}
            Err(f) if f.invariant == Some(want) => n += 1,
            Err(f) => other.push(f.to_string()),
        }
    }
    (n, other)
}

/// 6.12.117's xsk_drop_skb() cancels a dropped packet's completion slots:
/// its fragments' frames are lost (FrameConservation), and nothing else
/// breaks.
#[test]
fn dropping_with_cancel_loses_the_fragments_frames() {
    let (n, other) = failures(DropFrags::Cancel, PublishFrags::Packet);
    eprintln!("{n} of 300 seeds lost a frame");
    assert!(other.is_empty(), "{other:?}");
    assert!(n > 30, "only {n} of 300 seeds lost a frame");
}

/// 6.12.117's refresh publishes the tx consumer past a packet's fragments;
/// NETDEV_TX_BUSY then takes it back over them (TxConsumerMonotone), and
/// nothing else breaks.
#[test]
fn publishing_past_fragments_rewinds_the_consumer() {
    let (n, other) = failures(DropFrags::Complete, PublishFrags::All);
    eprintln!("{n} of 300 seeds rewound a consumer");
    assert!(other.is_empty(), "{other:?}");
    assert!(n > 10, "only {n} of 300 seeds rewound a consumer");
}
