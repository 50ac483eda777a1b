//! Unit tests: each mutant reaching its invariant on a short trace, the
//! reference counts of a linked notification, the overflow list's order,
//! and the TLA+ printer.

use super::tla::{action, constants, state_conjunction, state_record, variables};
use super::*;

/// Run `actions` from Init, each of which must be enabled.
fn run(cfg: &Config, actions: &[Action]) -> State {
    let mut s = State::init(cfg);
    for a in actions {
        assert!(s.enabled(cfg).contains(a), "{a} is not enabled");
        s = s.step(cfg, a).unwrap_or_else(|| panic!("{a} did not step"));
    }
    s
}

/// The first invariant of every .cfg's list `s` violates.
fn first(cfg: &Config, s: &State) -> Option<&'static str> {
    s.violated(cfg, &INVARIANTS.map(|(n, _)| n))
}

fn prep(outcome: PrepOutcome) -> Action {
    Action::IoSendZcPrep { outcome }
}

fn send(r: Req, o: SendOutcome, ks: &[SkbId]) -> Action {
    Action::IoSendZc {
        r,
        u: ks.len() as u32,
        o,
        ks: ks.to_vec(),
    }
}

fn zc(m: Mutant) -> Config {
    Config::zc_notif().with_mutant(m)
}

/// Two requests submitted together: the first prepared ("nomem" or
/// "ok" as `o1`), the SQ's second still waiting.
fn two(o1: PrepOutcome) -> Vec<Action> {
    vec![
        Action::UserSubmit(1),
        Action::UserSubmit(2),
        Action::IoUringEnter,
        prep(o1),
    ]
}

/// Request 1 sends its two units into skbs 1 and 2; request 2 puts one
/// unit on skb 1 (linked behind 1) and stops short.
fn linked() -> Vec<Action> {
    let mut v = two(PrepOutcome::Ok);
    v.extend([
        send(1, SendOutcome::All, &[1, 2]),
        prep(PrepOutcome::Ok),
        send(2, SendOutcome::Partial, &[1]),
    ]);
    v
}

#[test]
fn a_linked_notification_holds_its_head() {
    let cfg = Config::zc_notif();
    let s = run(&cfg, &linked());
    // 1: its two skbs (the reference the link took was put as 2
    // completed); 2: none left, the submitter's put at the flush.
    assert_eq!(s.nd_of(1).refs, 2);
    assert_eq!(
        s.nd_of(2),
        Notif {
            state: NdState::Live,
            refs: 0,
            head: 1,
            next: 0
        }
    );
    assert_eq!(s.nd_of(1).next, 2);
    let v: std::collections::BTreeMap<_, _> = variables(&cfg, &s).into_iter().collect();
    assert_eq!(
        v["nd"],
        "<<[state |-> \"live\", ref |-> 2, head |-> 1, next |-> 2], \
         [state |-> \"live\", ref |-> 0, head |-> 1, next |-> 0]>>"
    );
    assert_eq!(s.skb_of(1).bufs, [1, 2].into());
    assert_eq!((s.holders(1), members(&s.nd, 1)), (2, vec![2]));
    // RefsAccounted counts only members with a reference: 2 has none.
    assert!(s.refs_accounted(&cfg));
    assert_eq!(first(&cfg, &s), None);
    // 2 is linked: never again.
    assert!(!s.linkable(&cfg, 2, 1, &s.nd));
    let s = run(
        &cfg,
        &[
            linked(),
            vec![Action::IoSubmitFlushCompletions, Action::SkbFree(2)],
        ]
        .concat(),
    );
    assert_eq!((s.nd_of(1).refs, s.tw.clone()), (1, vec![]));
    assert!(s.enabled(&cfg).iter().all(|a| a.name() != "IoRunTaskWork"));
    let s = s.step(&cfg, &Action::SkbFree(1)).unwrap();
    assert_eq!(
        (s.nd_of(1).refs, s.nd_of(1).state, s.tw.clone()),
        (0, NdState::Tw, vec![1])
    );
    // Its task work posts 2 with it, each dropping its rsrc node.
    let s = s.step(&cfg, &Action::IoRunTaskWork).unwrap();
    assert_eq!(&s.posted[2..], [Cqe::notif_of(1), Cqe::notif_of(2)]);
    assert_eq!(s.node, [Holder::Table].into());
    assert_eq!(first(&cfg, &s), None);
}

#[test]
fn a_chain_is_posted_in_next_order() {
    // Three requests, each of one unit, all on skb 1: 2 links behind 1,
    // then 3 goes right after 1, before 2.
    let cfg = Config::batch1();
    let mut steps = Vec::new();
    for r in 1..=3 {
        steps.extend([
            Action::UserSubmit(r),
            Action::IoUringEnter,
            prep(PrepOutcome::Ok),
            send(r, SendOutcome::All, &[1]),
            Action::IoSubmitFlushCompletions,
            Action::UserReap,
        ]);
    }
    let s = run(&cfg, &steps);
    assert_eq!((s.nd_of(2).head, s.nd_of(3).head), (1, 1));
    let next: Vec<Req> = s.nd.iter().map(|d| d.next).collect();
    assert_eq!(next, [3, 0, 2]);
    // The skb's reference: each link's was put as its request completed.
    assert_eq!(s.nd_of(1).refs, 1);
    assert_eq!(chain(&s.nd, 1), [1, 3, 2]);
    assert_eq!(members(&s.nd, 1), [2, 3]);
    assert_eq!(first(&cfg, &s), None);
    let s = s.step(&cfg, &Action::SkbFree(1)).unwrap();
    assert_eq!((s.nd_of(1).refs, s.tw.clone()), (0, vec![1]));
    let s = s.step(&cfg, &Action::IoRunTaskWork).unwrap();
    let notifs: Vec<Req> = s.cq.iter().chain(&s.ovf).map(|c| c.r).collect();
    assert_eq!(notifs, [1, 3, 2]);
    assert_eq!(
        s.nd.iter().map(|d| d.state).collect::<Vec<_>>(),
        [NdState::Posted; 3]
    );
}

#[test]
fn a_link_onto_a_members_skb_goes_after_the_member() {
    // 1 queues one unit on skb 1; 2 links onto it and opens skb 2; 3
    // puts a unit on skb 2, whose notification is 2: behind head 1,
    // right after 2.
    let cfg = Config {
        n_reqs: 3,
        req_len: 2,
        max_skbs: 2,
        sq_size: 3,
        cq_size: 3,
        batch: 1,
        fixed: false,
        link: true,
        fails: vec![Fail::Partial],
        reuse: Reuse::Notif,
        mutant: Mutant::None,
    };
    let mut steps = Vec::new();
    for (r, o, ks) in [
        (1, SendOutcome::Partial, vec![1]),
        (2, SendOutcome::All, vec![1, 2]),
        (3, SendOutcome::Partial, vec![2]),
    ] {
        steps.extend([
            Action::UserSubmit(r),
            Action::IoUringEnter,
            prep(PrepOutcome::Ok),
            send(r, o, &ks),
            Action::IoSubmitFlushCompletions,
        ]);
    }
    let s = run(&cfg, &steps);
    let d: Vec<(Req, Req)> = s.nd.iter().map(|d| (d.head, d.next)).collect();
    assert_eq!(d, [(1, 2), (1, 3), (1, 0)]);
    assert_eq!(chain(&s.nd, 1), [1, 2, 3]);
    // 1's references: skb 1, and 2's link while skb 2 holds 2.
    assert_eq!((s.nd_of(1).refs, s.nd_of(2).refs), (2, 1));
    assert_eq!(first(&cfg, &s), None);
    let s = run(
        &cfg,
        &[steps, vec![Action::SkbFree(2), Action::SkbFree(1)]].concat(),
    );
    assert_eq!(s.tw, [1]);
    let s = s.step(&cfg, &Action::IoRunTaskWork).unwrap();
    let notifs: Vec<Req> = s.posted.iter().filter(|c| c.notif).map(|c| c.r).collect();
    assert_eq!(notifs, [1, 2, 3]);
}

#[test]
fn put_of_a_member_puts_its_head_at_zero() {
    let live = |refs, head| Notif {
        state: NdState::Live,
        refs,
        head,
        next: 0,
    };
    let mut d = vec![live(2, 1), live(1, 1)];
    let mut t = Vec::new();
    put(&mut d, &mut t, 2);
    assert_eq!((d[0].refs, d[1].refs, t.clone()), (1, 0, vec![]));
    assert_eq!(d[1].state, NdState::Live);
    put(&mut d, &mut t, 1);
    assert_eq!((d[0].state, t.clone()), (NdState::Tw, vec![1]));
    // Below zero under a mutant: queued again.
    put(&mut d, &mut t, 1);
    assert_eq!((d[0].refs, t), (-1, vec![1, 1]));
    dropped(&mut d, 2);
    assert_eq!((d[1].refs, d[1].state), (0, NdState::Dropped));
}

#[test]
fn overflowed_cqes_keep_their_order() {
    let cfg = Config::zc_notif();
    // CQ of one: 1's -ENOMEM CQE fills it, 2's CQE overflows, and 2's
    // notification, posted with the CQ empty again, waits behind it.
    let steps = steps_to_notif();
    let s = run(&cfg, &steps);
    assert!(s.cq.is_empty());
    assert_eq!(s.ovf, [Cqe::req(2, 2, true), Cqe::notif_of(2)]);
    assert_eq!(first(&cfg, &s), None);
    let s = s.step(&cfg, &Action::IoCqringOverflowFlush).unwrap();
    assert_eq!(
        (s.cq.clone(), s.ovf.clone()),
        (vec![Cqe::req(2, 2, true)], vec![Cqe::notif_of(2)])
    );
    // Full again: the flush waits for a reap.
    assert!(s.step(&cfg, &Action::IoCqringOverflowFlush).is_none());
    let s = run(
        &cfg,
        &[
            steps,
            vec![
                Action::IoCqringOverflowFlush,
                Action::UserReap,
                Action::IoCqringOverflowFlush,
                Action::UserReap,
                Action::UserReuse(1),
                Action::UserReuse(2),
                Action::Done,
            ],
        ]
        .concat(),
    );
    assert_eq!(
        s.got[1],
        Got {
            cqe: true,
            notif: true
        }
    );
    assert_eq!((s.reaped, s.posted.len()), (3, 3));
    assert!(s.quiescent() && s.violations(&cfg).is_empty());
    // Only the buffers' table is left to drop.
    assert_eq!(
        s.enabled(&cfg),
        [Action::IoUringUnregisterBuffers, Action::Done]
    );
    // iou-overflow-bypass: the notification overtakes its request's CQE.
    let bypass = zc(Mutant::OverflowBypass);
    let s = run(&bypass, &steps_to_notif());
    assert_eq!(
        (s.cq.clone(), s.ovf.clone()),
        (vec![Cqe::notif_of(2)], vec![Cqe::req(2, 2, true)])
    );
    assert_eq!(first(&bypass, &s), Some("CqeNotLost"));
}

/// Request 1 fails without a notification and its CQE fills the CQ;
/// request 2 sends whole, its CQE overflows, and its notification is
/// posted behind it.
fn steps_to_notif() -> Vec<Action> {
    let mut steps = two(PrepOutcome::Nomem);
    steps.extend([
        prep(PrepOutcome::Ok),
        send(2, SendOutcome::All, &[1, 2]),
        Action::IoSubmitFlushCompletions,
        Action::UserReap,
        Action::SkbFree(1),
        Action::SkbFree(2),
        Action::IoRunTaskWork,
    ]);
    steps
}

#[test]
fn skip_notif_breaks_more_and_every_prep() {
    let cfg = zc(Mutant::SkipNotif);
    let s = run(
        &cfg,
        &[
            Action::UserSubmit(1),
            Action::IoUringEnter,
            prep(PrepOutcome::Inval),
            Action::IoSubmitFlushCompletions,
        ],
    );
    assert_eq!(s.posted, [Cqe::req(1, EINVAL, false)]);
    assert_eq!(s.nd_of(1).state, NdState::Dropped);
    assert_eq!(first(&cfg, &s), Some("MoreMeansNotif"));
    let s = s.step(&cfg, &Action::UserReap).unwrap();
    let one = [
        "NotifForEveryPrep",
        "NotifOnce",
        "ReqBeforeNotif",
        "ResIsSent",
        "CqeNotLost",
    ];
    assert_eq!(s.violated(&cfg, &one), Some("NotifForEveryPrep"));
    // Without the mutant: F_MORE, then the notification.
    let ok = Config::zc_notif();
    let s = run(
        &ok,
        &[
            Action::UserSubmit(1),
            Action::IoUringEnter,
            prep(PrepOutcome::Inval),
            Action::IoSubmitFlushCompletions,
            Action::IoRunTaskWork,
        ],
    );
    assert_eq!(s.posted, [Cqe::req(1, EINVAL, true), Cqe::notif_of(1)]);
    assert_eq!(first(&ok, &s), None);
}

#[test]
fn notif_order_posts_before_the_request_cqe() {
    let cfg = zc(Mutant::NotifOrder);
    let s = run(
        &cfg,
        &[
            Action::UserSubmit(1),
            Action::IoUringEnter,
            prep(PrepOutcome::Ok),
            send(1, SendOutcome::Pipe, &[]),
        ],
    );
    // The task work ran at once: nothing queued, the node dropped.
    assert_eq!(
        (s.posted.clone(), s.tw.clone()),
        (vec![Cqe::notif_of(1)], vec![])
    );
    assert_eq!(s.compl, [Cqe::req(1, EPIPE, true)]);
    assert!(!s.node.contains(&Holder::Notif(1)));
    assert_eq!(first(&cfg, &s), Some("ReqBeforeNotif"));
}

#[test]
fn notif_order_posts_a_prep_failures_notification_at_once() {
    let steps = [
        Action::UserSubmit(1),
        Action::IoUringEnter,
        prep(PrepOutcome::Inval),
    ];
    let cfg = zc(Mutant::NotifOrder);
    let s = run(&cfg, &steps);
    assert_eq!(
        (s.posted.clone(), s.tw.clone(), s.nd_of(1).state),
        (vec![Cqe::notif_of(1)], vec![], NdState::Posted)
    );
    assert_eq!(s.compl, [Cqe::req(1, EINVAL, true)]);
    assert_eq!(first(&cfg, &s), Some("ReqBeforeNotif"));
    // Without the mutant the put queues task work.
    let ok = Config::zc_notif();
    let s = run(&ok, &steps);
    assert_eq!(
        (s.posted.clone(), s.tw.clone(), s.nd_of(1).state),
        (vec![], vec![1], NdState::Tw)
    );
    assert_eq!(first(&ok, &s), None);
}

#[test]
fn a_send_faults_only_before_its_first_sendmsg() {
    let cfg = Config::zc_notif();
    let prepared = [
        Action::UserSubmit(1),
        Action::IoUringEnter,
        prep(PrepOutcome::Ok),
    ];
    let s = run(
        &cfg,
        &[
            prepared.to_vec(),
            vec![
                send(1, SendOutcome::Fault, &[]),
                Action::IoSubmitFlushCompletions,
            ],
        ]
        .concat(),
    );
    // -EFAULT with F_MORE: the notification follows.
    assert_eq!(s.posted, [Cqe::req(1, EFAULT, true)]);
    assert_eq!((s.nd_of(1).state, s.tw.clone()), (NdState::Tw, vec![1]));
    assert_eq!(first(&cfg, &s), None);
    let s = s.step(&cfg, &Action::IoRunTaskWork).unwrap();
    assert_eq!(s.notifs_of(1), 1);
    // Nothing queued with it, and not after a unit was queued.
    let s = run(&cfg, &prepared);
    assert!(s.step(&cfg, &send(1, SendOutcome::Fault, &[1])).is_none());
    let s = run(
        &cfg,
        &[
            prepared.to_vec(),
            vec![send(1, SendOutcome::Eagain, &[]), Action::IoPollRetry(1)],
        ]
        .concat(),
    );
    assert!(s.step(&cfg, &send(1, SendOutcome::Fault, &[])).is_some());
    let s = run(
        &cfg,
        &[
            prepared.to_vec(),
            vec![send(1, SendOutcome::Eagain, &[1]), Action::IoPollRetry(1)],
        ]
        .concat(),
    );
    assert!(s.step(&cfg, &send(1, SendOutcome::Fault, &[])).is_none());
    // Outside Fails, no fault.
    let none = Config {
        fails: vec![Fail::Eagain],
        ..cfg.clone()
    };
    assert!(run(&none, &prepared)
        .step(&none, &send(1, SendOutcome::Fault, &[]))
        .is_none());
}

#[test]
fn sq_overrun_writes_past_the_sq() {
    let steps = [Action::UserSubmit(1), Action::UserSubmit(2)];
    let ok = Config::batch1();
    let s = run(&ok, &steps);
    assert!(s.step(&ok, &Action::UserSubmit(3)).is_none());
    let over = ok.with_mutant(Mutant::SqOverrun);
    let s = run(
        &over,
        &[steps.to_vec(), vec![Action::UserSubmit(3)]].concat(),
    );
    assert_eq!(s.sq, [1, 2, 3]);
    assert_eq!(first(&over, &s), Some("SqBounded"));
}

#[test]
fn fixedbuf_life_frees_the_pages_under_an_skb() {
    let steps = [
        Action::UserSubmit(1),
        Action::IoUringEnter,
        prep(PrepOutcome::Ok),
        send(1, SendOutcome::All, &[1, 2]),
        Action::IoSubmitFlushCompletions,
        Action::IoUringUnregisterBuffers,
    ];
    let cfg = zc(Mutant::FixedbufLife);
    let s = run(&cfg, &steps);
    assert!(s.node.is_empty());
    assert_eq!(first(&cfg, &s), Some("FixedBufPinned"));
    // The notification holds it until its task work.
    let ok = Config::zc_notif();
    let s = run(&ok, &steps);
    assert_eq!(s.node, [Holder::Notif(1)].into());
    assert_eq!(first(&ok, &s), None);
    // Once unregistered, a send from the table fails with -EFAULT, its
    // notification allocated.
    let s = run(
        &ok,
        &[
            Action::IoUringUnregisterBuffers,
            Action::UserSubmit(1),
            Action::IoUringEnter,
            prep(PrepOutcome::Ok),
        ],
    );
    assert_eq!(s.compl, [Cqe::req(1, EFAULT, true)]);
    assert_eq!((s.nd_of(1).state, s.tw.clone()), (NdState::Tw, vec![1]));
}

#[test]
fn overflow_drop_and_overrun() {
    let steps = [
        two(PrepOutcome::Nomem),
        vec![prep(PrepOutcome::Nomem), Action::IoSubmitFlushCompletions],
    ]
    .concat();
    let drop = zc(Mutant::CqOverflowDrop);
    let s = run(&drop, &steps);
    assert_eq!((s.cq.len(), s.ovf.len(), s.posted.len()), (1, 0, 2));
    assert_eq!(first(&drop, &s), Some("CqeNotLost"));
    let over = zc(Mutant::CqOverrun);
    let s = run(
        &over,
        &[steps.clone(), vec![Action::IoCqringOverflowFlush]].concat(),
    );
    assert_eq!((s.cq.len(), s.ovf.len()), (2, 0));
    assert_eq!(first(&over, &s), Some("CqBounded"));
    // A request without a notification may reuse its buffer on its CQE.
    let ok = Config::zc_notif();
    let s = run(&ok, &[steps, vec![Action::UserReap]].concat());
    assert!(s.user_reuse(&ok, 1).is_some() && s.user_reuse(&ok, 2).is_none());
}

#[test]
fn res_requested_reports_the_length_asked_for() {
    let steps = [
        Action::UserSubmit(1),
        Action::IoUringEnter,
        prep(PrepOutcome::Ok),
        send(1, SendOutcome::Partial, &[1]),
        Action::IoSubmitFlushCompletions,
    ];
    let cfg = zc(Mutant::ResRequested);
    let s = run(&cfg, &steps);
    assert_eq!((s.posted[0].res, s.sent[0]), (2, 1));
    assert_eq!(first(&cfg, &s), Some("ResIsSent"));
    let ok = Config::zc_notif();
    assert_eq!(run(&ok, &steps).posted[0].res, 1);
}

#[test]
fn link_no_ref_breaks_the_count_then_the_pages() {
    let cfg = zc(Mutant::LinkNoRef);
    let s = run(&cfg, &linked());
    // Two skbs hold 1 and its count is one.
    assert_eq!((s.nd_of(1).refs, s.holders(1)), (1, 2));
    assert_eq!(first(&cfg, &s), Some("RefsAccounted"));
    let pages = ["NotifAfterLastSkb", "NotifOnce", "CqeNotLost"];
    assert_eq!(s.violated(&cfg, &pages), None);
    let more = [
        Action::SkbFree(2),
        Action::IoSubmitFlushCompletions,
        Action::IoRunTaskWork,
    ];
    let s = run(&cfg, &[linked(), more.to_vec()].concat());
    // Both posted while skb 1 still carries their pages.
    assert_eq!(s.skb_of(1).bufs, [1, 2].into());
    assert_eq!(
        (s.nd_of(1).state, s.nd_of(2).state),
        (NdState::Posted, NdState::Posted)
    );
    assert_eq!(s.violated(&cfg, &pages), Some("NotifAfterLastSkb"));
}

#[test]
fn double_flush_puts_twice_and_posts_twice() {
    let cfg = zc(Mutant::DoubleFlush);
    let sent = [
        Action::UserSubmit(1),
        Action::IoUringEnter,
        prep(PrepOutcome::Ok),
        send(1, SendOutcome::All, &[1, 2]),
    ];
    let s = run(&cfg, &sent);
    assert_eq!((s.nd_of(1).refs, s.holders(1)), (1, 2));
    assert_eq!(first(&cfg, &s), Some("RefsAccounted"));
    let s = run(
        &cfg,
        &[
            sent.to_vec(),
            vec![
                Action::SkbFree(1),
                Action::IoSubmitFlushCompletions,
                Action::IoRunTaskWork,
                Action::SkbFree(2),
            ],
        ]
        .concat(),
    );
    assert_eq!(
        (s.nd_of(1).refs, s.nd_of(1).state, s.tw.clone()),
        (-1, NdState::Tw, vec![1])
    );
    let s = s.step(&cfg, &Action::IoRunTaskWork).unwrap();
    assert_eq!(s.notifs_of(1), 2);
    assert_eq!(
        s.violated(&cfg, &["NotifOnce", "CqeNotLost"]),
        Some("NotifOnce")
    );
}

#[test]
fn reuse_on_the_cqe_rewrites_pages_in_flight() {
    let steps = [
        Action::UserSubmit(1),
        Action::IoUringEnter,
        prep(PrepOutcome::Ok),
        send(1, SendOutcome::Partial, &[1]),
        Action::IoSubmitFlushCompletions,
        Action::UserReap,
    ];
    let ok = Config::zc_notif();
    assert!(run(&ok, &steps).user_reuse(&ok, 1).is_none());
    let early = Config {
        reuse: Reuse::Cqe,
        ..Config::zc_notif()
    };
    let s = run(
        &early,
        &[steps.to_vec(), vec![Action::UserReuse(1)]].concat(),
    );
    assert_eq!(first(&early, &s), Some("BufferNotReused"));
    // TLC's last state of MCIoUringZcNotif_ReuseEarly.cfg's trace, as it
    // prints it (the .cfg's Reuse = "cqe": a CQE's r before notif).
    let tlc = "/\\ posted = <<[r |-> 1, notif |-> FALSE, res |-> 1, more |-> TRUE]>>\n\
               /\\ node = {<<\"notif\", 1>>, <<\"table\", 0>>}\n\
               /\\ nd = << [state |-> \"live\", ref |-> 1, head |-> 1, next |-> 0],\n   \
               [state |-> \"none\", ref |-> 0, head |-> 2, next |-> 0] >>\n\
               /\\ cq = <<>>\n\
               /\\ ovf = <<>>\n\
               /\\ skb = <<[uarg |-> 1, bufs |-> {1}], [uarg |-> 0, bufs |-> {}]>>\n\
               /\\ reaped = 1\n\
               /\\ sq = <<>>\n\
               /\\ st = <<\"done\", \"user\">>\n\
               /\\ tw = <<>>\n\
               /\\ compl = <<>>\n\
               /\\ sent = <<1, 0>>\n\
               /\\ got = <<{\"cqe\"}, {}>>\n\
               /\\ reused = <<TRUE, FALSE>>\n\
               /\\ todo = 0\n";
    let ours = state_conjunction(&early, &s);
    assert_eq!(
        crate::tla::parse_state(&ours).unwrap(),
        crate::tla::parse_state(tlc).unwrap()
    );
    let v: std::collections::BTreeMap<_, _> = variables(&early, &s).into_iter().collect();
    assert_eq!(
        v["posted"],
        "<<[r |-> 1, notif |-> FALSE, res |-> 1, more |-> TRUE]>>"
    );
    assert_eq!(v["node"], "{<<\"notif\", 1>>, <<\"table\", 0>>}");
    assert_eq!(
        v["skb"],
        "<<[uarg |-> 1, bufs |-> {1}], [uarg |-> 0, bufs |-> {}]>>"
    );
}

#[test]
fn prints_states_as_tlc_does() {
    // TLC's state 4 of MCIoUringZcNotif_SkipNotif.cfg's trace, in the
    // spec's vars order (Reuse = "notif": a CQE's notif first).
    let cfg = zc(Mutant::SkipNotif);
    let s = run(
        &cfg,
        &[
            Action::UserSubmit(1),
            Action::IoUringEnter,
            prep(PrepOutcome::Inval),
        ],
    );
    assert_eq!(
        state_conjunction(&cfg, &s),
        "/\\ sq = <<>>\n\
         /\\ todo = 0\n\
         /\\ st = <<\"done\", \"user\">>\n\
         /\\ sent = <<0, 0>>\n\
         /\\ nd = <<[state |-> \"dropped\", ref |-> 0, head |-> 1, next |-> 0], [state |-> \"none\", ref |-> 0, head |-> 2, next |-> 0]>>\n\
         /\\ skb = <<[uarg |-> 0, bufs |-> {}], [uarg |-> 0, bufs |-> {}]>>\n\
         /\\ compl = <<[notif |-> FALSE, r |-> 1, res |-> -22, more |-> FALSE]>>\n\
         /\\ tw = <<>>\n\
         /\\ cq = <<>>\n\
         /\\ ovf = <<>>\n\
         /\\ posted = <<>>\n\
         /\\ reaped = 0\n\
         /\\ got = <<{}, {}>>\n\
         /\\ reused = <<FALSE, FALSE>>\n\
         /\\ node = {<<\"table\", 0>>}\n"
    );
    assert!(state_record(&cfg, &s).starts_with("[sq |-> <<>>, todo |-> 0, st |-> "));
    // Sets: got with Reuse's string first, node in TLC's tuple order.
    let mut t = s.clone();
    t.got[0] = Got {
        cqe: true,
        notif: true,
    };
    t.node = [
        Holder::Req(2),
        Holder::Table,
        Holder::Notif(2),
        Holder::Notif(1),
    ]
    .into();
    let v: std::collections::BTreeMap<_, _> = variables(&cfg, &t).into_iter().collect();
    assert_eq!(v["got"], "<<{\"notif\", \"cqe\"}, {}>>");
    assert_eq!(
        v["node"],
        "{<<\"notif\", 1>>, <<\"notif\", 2>>, <<\"table\", 0>>, <<\"req\", 2>>}"
    );
    let early = Config {
        reuse: Reuse::Cqe,
        ..cfg.clone()
    };
    let v: std::collections::BTreeMap<_, _> = variables(&early, &t).into_iter().collect();
    assert_eq!(v["got"], "<<{\"cqe\", \"notif\"}, {}>>");
    assert_eq!(
        action(&cfg, &send(2, SendOutcome::All, &[1, 2])),
        "IoSendZc(2)"
    );
    assert_eq!(action(&cfg, &Action::SkbFree(1)), "SkbFree(1)");
    assert_eq!(action(&cfg, &prep(PrepOutcome::Ok)), "IoSendZcPrep");
    assert_eq!(
        send(2, SendOutcome::Eagain, &[1]).to_string(),
        "IoSendZc(2, 1, \"eagain\", <<1>>)"
    );
}

#[test]
fn choices_follow_the_spec() {
    let cfg = Config::zc_notif();
    let s = run(&cfg, &two(PrepOutcome::Ok));
    // Two new skbs for two units, each once.
    assert_eq!(s.choices(&cfg, 1, 2), [vec![1, 2], vec![2, 1]]);
    assert_eq!(s.choices(&cfg, 1, 0), [Vec::<SkbId>::new()]);
    // After -EAGAIN the request's own skb takes more units.
    let s = run(
        &cfg,
        &[
            Action::UserSubmit(1),
            Action::IoUringEnter,
            prep(PrepOutcome::Ok),
            send(1, SendOutcome::Eagain, &[1]),
            Action::IoPollRetry(1),
        ],
    );
    assert_eq!(s.choices(&cfg, 1, 1), [vec![1], vec![2]]);
    let t = s.step(&cfg, &send(1, SendOutcome::All, &[1])).unwrap();
    assert_eq!((t.nd_of(1).refs, t.sent[0]), (1, 2));
    // An outcome outside Fails, a unit count that does not match it, or
    // an skb outside the choices: no step.
    let none = Config {
        fails: vec![],
        ..cfg.clone()
    };
    assert!(s.step(&none, &send(1, SendOutcome::All, &[1])).is_some());
    assert!(s.step(&none, &send(1, SendOutcome::Partial, &[])).is_none());
    assert!(s.step(&cfg, &send(1, SendOutcome::All, &[])).is_none());
    assert!(s.step(&cfg, &send(1, SendOutcome::Pipe, &[1])).is_none());
    assert!(s.step(&cfg, &send(1, SendOutcome::All, &[3])).is_none());
    // Without Link, another request's skb is not a choice.
    let nolink = Config {
        link: false,
        ..cfg.clone()
    };
    let s = run(
        &nolink,
        &[
            two(PrepOutcome::Ok),
            vec![send(1, SendOutcome::All, &[1, 2])],
        ]
        .concat(),
    );
    let s = s.step(&nolink, &prep(PrepOutcome::Ok)).unwrap();
    assert!(s.choices(&nolink, 2, 1).is_empty());
    assert_eq!(s.choices(&cfg, 2, 1), [vec![1], vec![2]]);
    // io_link_skb links once: never two units on foreign skbs.
    assert!(s.choices(&cfg, 2, 2).is_empty());
}

#[test]
fn constants_read_back_and_mutants_are_named() {
    for cfg in [
        Config::zc_notif(),
        Config::batch1().with_mutant(Mutant::LinkNoRef),
        Config {
            reuse: Reuse::Cqe,
            fails: vec![],
            ..Config::zc_notif()
        },
    ] {
        assert_eq!(ModelCfg::parse(&constants(&cfg)).unwrap().config, cfg);
    }
    for m in Mutant::ALL {
        assert_eq!(m.id().parse::<Mutant>(), Ok(m));
    }
    assert_eq!(Mutant::ALL.len(), 11);
    let e = "iou-nope".parse::<Mutant>().unwrap_err();
    assert!(e.to_string().contains("iou-cq-overrun"), "{e}");
}
