//! io_uring SEND_ZC on the running kernel against IoUringZcNotif's model:
//! every failure class settled, a seeded campaign, the projection's steps
//! legal in the model, and a run with a lost notification caught. Prints
//! SKIP and passes when this process cannot use io_uring (not root,
//! io_uring_disabled).

use ringlab_kernel::iouring::campaign::{self, check, in_net, Opts};
use ringlab_kernel::iouring::class::Class;
use ringlab_kernel::iouring::failures::{line, settle};
use ringlab_kernel::iouring::obs::Live;
use ringlab_kernel::iouring::project::project;
use ringlab_kernel::iouring::scenario::{Fault, Request, Scenario, Step, Transport};
use ringlab_kernel::iouring::sys::skip_reason;

fn skip() -> bool {
    match skip_reason() {
        Some(why) => {
            eprintln!("SKIP: {why}");
            true
        }
        None => false,
    }
}

fn zc(len: u32) -> Request {
    Request { zc: true, len, fault: Fault::None }
}

/// Each class: the kernel's request CQE carries the class's res, and the
/// model agrees on F_MORE and on whether a notification follows. Only
/// -ENOMEM may be skipped (no fault injection for io_alloc_notif()).
#[test]
fn every_failure_class_agrees_with_the_model() {
    if skip() {
        return;
    }
    let rows = settle().expect("the failure classes run");
    for r in &rows {
        eprintln!("{}", line(r));
    }
    for r in &rows {
        if r.skip.is_some() {
            assert_eq!(r.class, Class::Nomem, "only -ENOMEM may be skipped: {}", line(r));
            continue;
        }
        assert_eq!(r.divergence, None, "{}", line(r));
        let cqe = r.cqe.unwrap_or_else(|| panic!("no request CQE: {}", line(r)));
        // Every class that allocated the notification posts it, F_MORE
        // announcing it; CQE skip fails before the allocation.
        let allocated = r.class != Class::CqeSkip;
        assert_eq!(cqe.more(), allocated, "{}", line(r));
        assert_eq!(r.notif.is_some(), allocated, "{}", line(r));
    }
    assert!(rows.iter().filter(|r| r.skip.is_none()).count() >= 17, "too few classes ran");
}

/// Seeded scenarios over loopback and veth, UDP and TCP, plain and fixed
/// buffers, overflowing CQs: the kernel and the model agree, and the
/// campaign did overflow a CQ and see notifications.
#[test]
fn seeded_campaign_agrees() {
    if skip() {
        return;
    }
    let seed = 20261128;
    eprintln!("seed {seed}");
    let sum = campaign::run(Opts { scenarios: 60, seed, progress: false, out: None }).expect("the campaign runs");
    eprintln!("{}", sum.line());
    for d in &sum.divergences {
        eprintln!("divergence: {:?}\n  {:?}\n  kernel: {:?}", d.scenario, d.divergence, d.live.batches);
    }
    assert!(sum.divergences.is_empty());
    assert_eq!(sum.scenarios, 60);
    assert!(sum.flagged > 0 && sum.overflows > 0, "no batch overflowed the CQ");
    assert!(sum.zc_used + sum.zc_copied > 0, "no usage was reported");
}

fn overflowing() -> Scenario {
    Scenario {
        transport: Transport::UdpVeth,
        fixed: true,
        report_usage: true,
        sq: 4,
        cq: 4,
        steps: vec![Step::Batch(vec![zc(64), zc(1500), zc(9000), zc(60000)]), Step::Unregister, Step::Batch(vec![zc(64), zc(64)])],
    }
}

/// Every step of a projected run is one the model takes from the state
/// before it to the state after it, and the run ends quiescent.
#[test]
fn the_projection_steps_the_model_legally() {
    if skip() {
        return;
    }
    let s = overflowing();
    let (_, p) = in_net(move |net| check(net, &s)).expect("the scenario runs");
    let p = p.expect("kernel and model agree");
    assert_eq!(p.states.len(), p.actions.len() + 1);
    for (i, a) in p.actions.iter().enumerate() {
        assert_eq!(p.states[i].step(&p.config, a).as_ref(), Some(&p.states[i + 1]), "step {i}: {a}");
    }
    let names: Vec<&str> = p.actions.iter().map(|a| a.name()).collect();
    assert!(names.contains(&"IoCqringOverflowFlush"), "the CQ of four did not overflow: {names:?}");
    assert!(names.contains(&"IoUringUnregisterBuffers"));
    assert!(p.states.last().unwrap().quiescent());
}

/// A run whose notification the kernel had lost (taken out of the
/// observation) is a divergence, named with the notification owed.
#[test]
fn a_lost_notification_diverges() {
    if skip() {
        return;
    }
    let s = overflowing();
    let s2 = s.clone();
    let (live, p): (Live, _) = in_net(move |net| check(net, &s2)).expect("the scenario runs");
    assert!(p.is_ok());
    let mut lost = live.clone();
    let b = &mut lost.batches[0];
    let at = b.cqes.iter().position(|c| c.notif()).expect("the first batch has notifications");
    b.cqes.remove(at);
    let d = project(&s, &lost).expect_err("a lost notification is a divergence");
    assert!(d.why.contains("notification"), "{}", d.why);
    let mut twice = live;
    let c = twice.batches[0].cqes[at];
    twice.batches[0].cqes.push(c);
    assert!(project(&s, &twice).is_err(), "a second notification is a divergence");
}
