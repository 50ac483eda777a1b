//! The IoUringZcNotif model's breadth-first search against
//! specs/manifest.json: for every ci model of the spec, the outcome it
//! must have (the first invariant violated, checked in the .cfg's order
//! as TLC does), and TLC's `distinct_states` and `depth`: for a violation
//! too, since the model takes successors in TLC's order and TLC checks
//! those models on one worker.

mod common;

use ringlab_model::iouring_zc::{self, tla, State};

#[test]
fn iouring_model_matches_manifest() {
    let models = common::plain_bfs::matches_manifest::<State>("IoUringZcNotif", "MCIoUringZcNotif", "ci", true, tla::state_conjunction);
    assert!(models.len() >= 2, "{} io_uring zc models", models.len());
}

/// enabled() and step() agree: every enabled action steps, the candidates
/// left out do not, and Done is the only stutter, along a run that picks
/// its actions in a fixed spread over the enabled ones.
#[test]
fn enabled_actions_step() {
    for cfg in [iouring_zc::Config::zc_notif(), iouring_zc::Config::batch1()] {
        let mut s = State::init(&cfg);
        for i in 0..60 {
            let acts = s.enabled(&cfg);
            assert!(!acts.is_empty());
            for a in s.candidate_actions(&cfg) {
                let t = s.step(&cfg, &a);
                assert_eq!(t.is_some(), acts.contains(&a), "{a}");
                if let Some(t) = t {
                    assert_eq!(t == s, a == iouring_zc::Action::Done, "{a}");
                }
            }
            s = s.step(&cfg, &acts[i * 7 % acts.len()]).unwrap();
        }
    }
}
