//! The choice policy: the spec's actions enabled in the projected state
//! (the model of the build's mutant says which), drawn by name with
//! weights, then one instance. The CPUs' receive steps and the
//! application's are common; releases rare, so that a run keeps sockets
//! to receive into.

use ringlab_model::rng::Rng;
use ringlab_model::xsk_rx::{Action, Verdict};

use super::system::XskRx;

/// The weight of an action's name: a release about once in a thousand
/// steps, so that most packets of a run find their socket.
fn weight(name: &str) -> u32 {
    match name {
        "XskRelease" => 1,
        "XskBind" | "XskMapUpdate" => 30,
        "NapiPoll" | "XdpDoFlush" | "XskReleaseDone" => 60,
        "UserFill" | "UserRecv" => 100,
        "XdpRun" => 100,
        _ => 160,
    }
}

/// The weight of one instance: a packet the program redirects six times
/// in eight, the rest dropped or passed.
fn instance_weight(a: &Action) -> u32 {
    match a {
        Action::XdpRun { v: Verdict::Redirect, .. } => 6,
        _ => 1,
    }
}

impl XskRx {
    /// The spec's actions enabled now, in the model's order.
    pub fn enabled(&self) -> Vec<Action> {
        self.model_state().enabled(&self.cfg.spec)
    }

    /// A step drawn from `rng`; None once Done is enabled (every packet
    /// has arrived and the CPUs are idle).
    pub(crate) fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        let enabled = self.enabled();
        if enabled.is_empty() || enabled.contains(&Action::Done) {
            return None;
        }
        let mut names: Vec<&'static str> = enabled.iter().map(|a| a.name()).collect();
        names.dedup();
        names.sort_unstable();
        names.dedup();
        let weights: Vec<u32> = names.iter().map(|n| weight(n)).collect();
        let name = names[rng.weighted(&weights)];
        let of: Vec<Action> = enabled.into_iter().filter(|a| a.name() == name).collect();
        let w: Vec<u32> = of.iter().map(instance_weight).collect();
        Some(of[rng.weighted(&w)])
    }

    /// The next step of the drain: a busy CPU's next receive step, a
    /// batch's next packet, a poll's end (or, for a poll that has no packet yet, a packet its
    /// program drops or passes), a release's end, a published descriptor
    /// read; None once none is left.
    pub(crate) fn drain_next(&self) -> Option<Action> {
        let enabled = self.enabled();
        let busy = |a: &Action| {
            a.cpu().is_some_and(|c| {
                self.recv[usize::from(c)].stage != ringlab_model::xsk_rx::Stage::Idle
            }) && !matches!(
                a,
                Action::XdpRun { .. } | Action::NapiPoll { .. } | Action::XdpDoFlush { .. }
            )
        };
        let prefer = |want: &dyn Fn(&Action) -> bool| enabled.iter().copied().find(|a| want(a));
        prefer(&busy)
            .or_else(|| prefer(&|a| matches!(a, Action::XskRcvBatch { .. })))
            .or_else(|| prefer(&|a| matches!(a, Action::XdpDoFlush { .. })))
            .or_else(|| {
                self.rxq.poller().and_then(|c| {
                    let run = |a: &Action| matches!(*a, Action::XdpRun { c: o, .. } if o == c);
                    let quiet = |a: &Action| {
                        matches!(*a, Action::XdpRun { v, .. } if v != ringlab_model::xsk_rx::Verdict::Redirect)
                    };
                    prefer(&|a| run(a) && quiet(a)).or_else(|| prefer(&run))
                })
            })
            .or_else(|| prefer(&|a| matches!(a, Action::XskReleaseDone { .. })))
            .or_else(|| prefer(&|a| matches!(a, Action::UserRecv { .. })))
    }
}
