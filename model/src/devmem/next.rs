//! Next: every action with every choice its \E allows, in the spec's order.

use super::action::Action;
use super::config::{Config, Mutant};
use super::state::State;

impl State {
    /// Apply one action with its choice; None if it is not enabled (or
    /// names a binding, socket, net_iov or token outside the config).
    pub fn step(&self, cfg: &Config, action: &Action) -> Option<State> {
        match *action {
            Action::BindRx { b, m } => self.bind_rx(cfg, b, m),
            Action::RxFrag { s, n } => self.rx_frag(cfg, s, n),
            Action::RecvMsg { s, told } => self.recv_msg(cfg, s, told),
            Action::Dontneed { s, t, c } => self.dontneed(cfg, s, t, c),
            Action::DontneedRead { s, t } => self.dontneed_read(cfg, s, t),
            Action::DontneedPut { s } => self.dontneed_put(cfg, s),
            Action::Close { s } => self.close(cfg, s),
            Action::Unbind { b } => self.unbind(cfg, b),
            Action::NlSockClose { b } => self.nl_sock_close(cfg, b),
            Action::NetdevUnregister { b } => self.netdev_unregister(cfg, b),
            Action::MpDmabufDevmemDestroy { b } => self.mp_dmabuf_devmem_destroy(cfg, b),
            Action::Done => self.done(cfg),
        }
    }

    /// Every action instance Next could take, enabled or not, in the order
    /// of Next's disjuncts and of each \E's sets in TLC's order (bindings
    /// as listed, sockets and net_iovs by binding then index, modes
    /// xarray before array, BOOLEAN as FALSE, TRUE). RxFrag is listed only
    /// for net_iovs of the socket's binding and RecvMsg's `told = FALSE`
    /// only under dm-cmsg-trunc, DontneedRead only under zcrx-uref-race:
    /// no other instance is ever enabled.
    pub fn candidate_actions(&self, cfg: &Config) -> Vec<Action> {
        let socks = cfg.socks();
        let mut out = Vec::new();
        for b in cfg.binding_ids() {
            out.extend(cfg.modes.iter().map(|&m| Action::BindRx { b, m }));
        }
        for &s in &socks {
            out.extend(
                cfg.niovs_of(s.b)
                    .into_iter()
                    .map(|n| Action::RxFrag { s, n }),
            );
        }
        let tolds: &[bool] = if cfg.mutant == Mutant::CmsgTrunc {
            &[false, true]
        } else {
            &[true]
        };
        for &s in &socks {
            out.extend(tolds.iter().map(|&told| Action::RecvMsg { s, told }));
        }
        for &s in &socks {
            for t in 0..cfg.toks() {
                out.extend((1..=cfg.max_count).map(|c| Action::Dontneed { s, t, c }));
            }
        }
        if cfg.mutant == Mutant::UrefRace {
            for &s in &socks {
                out.extend((0..cfg.toks()).map(|t| Action::DontneedRead { s, t }));
            }
        }
        out.extend(socks.iter().map(|&s| Action::DontneedPut { s }));
        out.extend(socks.iter().map(|&s| Action::Close { s }));
        out.extend(cfg.binding_ids().map(|b| Action::Unbind { b }));
        out.extend(cfg.binding_ids().map(|b| Action::NlSockClose { b }));
        out.extend(cfg.binding_ids().map(|b| Action::NetdevUnregister { b }));
        out.extend(
            cfg.binding_ids()
                .map(|b| Action::MpDmabufDevmemDestroy { b }),
        );
        out.push(Action::Done);
        out
    }

    /// Every enabled action instance, in candidate_actions' order.
    pub fn enabled(&self, cfg: &Config) -> Vec<Action> {
        self.successors(cfg).into_iter().map(|(a, _)| a).collect()
    }

    /// Every step of Next from this state (Done's stutter included).
    pub fn successors(&self, cfg: &Config) -> Vec<(Action, State)> {
        crate::explore::enabled_steps(self.candidate_actions(cfg), |a| self.step(cfg, a))
    }
}
