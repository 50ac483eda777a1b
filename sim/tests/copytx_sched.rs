//! Copy-mode transmit under the seeded deterministic scheduler: many
//! seeds, each run checking every invariant after every step, then a drain
//! to a quiescent point. A failure names the seed, which replays it:
//! `ringlab sim --seed S --design D --batch N --sockets K`.
//!
//! Kills (`ringlab mutants`): xsk-immature-cq, xsk-txbusy-rollback,
//! xsk-shared-cq-race, xsk-cq-leak-2019.

use ringlab_sim::copy_tx::sched::{self, Sched};
use ringlab_sim::copy_tx::{CopyTxConfig, Design, Publish};

fn cfg(design: Design, batch: i64, seed: u64, publish: Publish) -> CopyTxConfig {
    let mut c = CopyTxConfig::new(design, batch, 2, 4);
    c.spec.tx_size = [2, 4][(seed % 2) as usize];
    c.spec.cq_size = [4, 2, 2][(seed % 3) as usize];
    c.spec.budget = 1 + (seed % 3) as i64;
    c.publish = publish;
    c.seed = seed;
    c
}

fn clean(design: Design, batch: i64, publish: Publish) {
    let mut completed = 0;
    for seed in 0..300 {
        let c = cfg(design, batch, seed, publish);
        match sched::run(c, 300) {
            Ok(r) => completed += r.completed,
            Err(f) => panic!("design {design:?} batch {batch} {publish:?}: {f}"),
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
        match sched::run(cfg(Design::A, 0, seed, Publish::Kernel), 300) {
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
        let mut s = Sched::new(cfg(Design::B, 2, seed, Publish::Kernel)).unwrap();
        let actions: Vec<_> = (0..200).map(|_| s.step_random().unwrap()).collect();
        (actions, s.sys.model_state())
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42).0, run(43).0);
}

#[test]
fn a_broken_run_names_the_invariant_seed_and_step() {
    let mut s = Sched::new(cfg(Design::A, 0, 5, Publish::Kernel)).unwrap();
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
