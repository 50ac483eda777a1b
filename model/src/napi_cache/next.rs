//! Next: every action with every choice its \E allows, in the spec's order.

use super::action::{Action, XdpVerdict};
use super::config::Config;
use super::state::State;

impl State {
    /// Apply one action with its choice; None if it is not enabled (or
    /// names a CPU or skb outside the config, or a choice the config
    /// does not offer).
    pub fn step(&self, cfg: &Config, action: &Action) -> Option<State> {
        match *action {
            Action::NetRxAction { c } => self.net_rx_action(cfg, c),
            Action::NapiComplete { c } => self.napi_complete(cfg, c),
            Action::NapiBuildSkb { c, fail } => self.napi_build_skb(cfg, c, fail),
            Action::TunSendmsg { c, fail } => self.tun_sendmsg(cfg, c, fail),
            Action::TunXdpOne { c, verdict } => self.tun_xdp_one(cfg, c, verdict),
            Action::TunSendmsgEnd { c } => self.tun_sendmsg_end(cfg, c),
            Action::NapiConsumeSkb { c, s } => self.napi_consume_skb(cfg, c, s),
            Action::SkbAttemptDeferFree { c, s } => self.skb_attempt_defer_free(cfg, c, s),
            Action::PskbCopy { c, p } => self.pskb_copy(cfg, c, p),
            Action::SkbGroReceiveList { c, p, t } => self.skb_gro_receive_list(cfg, c, p, t),
            Action::KfreeSkb { s } => self.kfree_skb(cfg, s),
            Action::SkbGet { s } => self.skb_get(cfg, s),
        }
    }

    /// Every action instance Next could take, in the order of Next's
    /// disjuncts and of each \E's set in TLC's order (CPUs and skbs
    /// ascending, Fails as FALSE, TRUE; TunXdpOne's disjuncts in the
    /// spec's order). Choices the config never offers are left out.
    pub fn candidate_actions(&self, cfg: &Config) -> Vec<Action> {
        let fails = cfg.fails();
        let mut out = Vec::new();
        for c in cfg.cpus() {
            out.push(Action::NetRxAction { c });
            out.push(Action::NapiComplete { c });
            out.extend(fails.iter().map(|&fail| Action::NapiBuildSkb { c, fail }));
            out.extend(fails.iter().map(|&fail| Action::TunSendmsg { c, fail }));
            out.push(Action::TunXdpOne { c, verdict: XdpVerdict::Drop });
            out.push(Action::TunXdpOne { c, verdict: XdpVerdict::PassHead });
            out.extend(fails.iter().map(|&fail| Action::TunXdpOne {
                c,
                verdict: XdpVerdict::PassCache { fail },
            }));
            out.extend(fails.iter().map(|&fail| Action::TunXdpOne {
                c,
                verdict: XdpVerdict::PassSlab { fail },
            }));
            out.push(Action::TunSendmsgEnd { c });
            for s in cfg.skbs() {
                out.push(Action::NapiConsumeSkb { c, s });
                out.push(Action::SkbAttemptDeferFree { c, s });
            }
            if cfg.clone {
                for p in cfg.skbs() {
                    out.push(Action::PskbCopy { c, p });
                    out.extend(cfg.skbs().map(|t| Action::SkbGroReceiveList { c, p, t }));
                }
            }
        }
        for s in cfg.skbs() {
            out.push(Action::KfreeSkb { s });
            out.push(Action::SkbGet { s });
        }
        out
    }

    /// Every enabled action instance, in candidate_actions' order.
    pub fn enabled(&self, cfg: &Config) -> Vec<Action> {
        self.successors(cfg).into_iter().map(|(a, _)| a).collect()
    }

    /// Every step of Next from this state.
    pub fn successors(&self, cfg: &Config) -> Vec<(Action, State)> {
        crate::explore::enabled_steps(self.candidate_actions(cfg), |a| self.step(cfg, a))
    }
}
