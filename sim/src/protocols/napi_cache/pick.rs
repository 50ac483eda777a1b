//! How the scheduler draws a step: an action of the spec enabled in the
//! state the simulator projects to (the model's enabled set, with the
//! run's mutant), drawn by name first so that the actions of many
//! instances (a free of each skb on each CPU) do not drown the rest, then
//! an instance, a slab call that fails one time in five where both are
//! enabled. Frames arriving and tun's batches are common; an IPI'd CPU
//! runs NET_RX soon; the clone actions are rarer than the frees.

use ringlab_model::napi_cache::{Action, XdpVerdict};
use ringlab_model::rng::Rng;

use super::system::NapiSkbCache;

/// The weight of an action's name.
fn weight(a: &Action) -> u32 {
    match a {
        Action::NapiBuildSkb { .. } => 16,
        Action::TunXdpOne { .. } | Action::TunSendmsgEnd { .. } => 20,
        Action::SkbAttemptDeferFree { .. } => 14,
        Action::NapiConsumeSkb { .. } => 10,
        Action::NetRxAction { .. } | Action::TunSendmsg { .. } => 6,
        Action::NapiComplete { .. } => 5,
        Action::KfreeSkb { .. } => 4,
        Action::SkbGet { .. } | Action::SkbGroReceiveList { .. } | Action::PskbCopy { .. } => 3,
    }
}

/// Whether an instance is a slab call's failure.
fn fails(a: &Action) -> bool {
    matches!(
        a,
        Action::NapiBuildSkb { fail: true, .. }
            | Action::TunSendmsg { fail: true, .. }
            | Action::TunXdpOne { verdict: XdpVerdict::PassSlab { fail: true } | XdpVerdict::PassCache { fail: true }, .. }
    )
}

impl NapiSkbCache {
    /// A step drawn from `rng`; None once the run is done or nothing is
    /// enabled.
    pub(crate) fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        if self.is_done() {
            return None;
        }
        let st = self.model_state();
        let enabled = st.enabled(&self.cfg.spec);
        if enabled.is_empty() {
            return None;
        }
        let mut names: Vec<&'static str> = enabled.iter().map(Action::name).collect();
        names.dedup();
        names.sort_unstable();
        names.dedup();
        let ws: Vec<u32> = names
            .iter()
            .map(|n| {
                let a = enabled.iter().find(|a| a.name() == *n).expect("a name of an enabled action");
                let kicked = a.cpu().is_some_and(|c| st.kick[usize::from(c) - 1]);
                match a {
                    Action::NetRxAction { .. } if kicked => 24,
                    _ => weight(a),
                }
            })
            .collect();
        let name = names[rng.weighted(&ws)];
        let of: Vec<&Action> = enabled.iter().filter(|a| a.name() == name).collect();
        let ws: Vec<u32> = of.iter().map(|a| if fails(a) { 1 } else { 4 }).collect();
        Some(*of[rng.weighted(&ws)])
    }
}
