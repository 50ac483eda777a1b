//! Next: every action with every choice its \E allows, in the spec's order.

use super::action::Action;
use super::config::Config;
use super::state::{Frame, Sock, State};

impl State {
    /// Apply one action with its choice; None if it is not enabled.
    pub fn step(&self, cfg: &Config, action: &Action) -> Option<State> {
        match *action {
            Action::UserSubmit { s, f, ok, contd } => self.user_submit(cfg, s, f, ok, contd),
            Action::Sendto { s } => self.sendto(cfg, s),
            Action::UserReap => self.user_reap(cfg),
            Action::XmitReserve { s } => self.xmit_reserve(cfg, s),
            Action::XmitReserveStore { s } => self.xmit_reserve_store(cfg, s),
            Action::XmitAllocFail { s } => self.xmit_alloc_fail(cfg, s),
            Action::XmitSend { s, o } => self.xmit_send(cfg, s, o),
            Action::XmitBatchReserve { s } => self.xmit_batch_reserve(cfg, s),
            Action::XmitBatchAlloc { s, j } => self.xmit_batch_alloc(cfg, s, j),
            Action::XmitBatchAllocFail { s } => self.xmit_batch_alloc_fail(cfg, s),
            Action::XmitBatchSend { s, o } => self.xmit_batch_send(cfg, s, o),
            Action::DriverFree { f, sock } => self.driver_free(cfg, f, sock),
        }
    }

    /// Every action and choice that may be enabled here, in the order of
    /// Next and of each \E's set (BOOLEAN is {FALSE, TRUE}; Contd
    /// is {FALSE} unless MultiBuf).
    pub fn candidate_actions(&self, cfg: &Config) -> Vec<Action> {
        let frames = 0..cfg.frames.len() as Frame;
        let sockets = 0..cfg.sockets.len() as Sock;
        let mut out = vec![Action::UserReap];
        for f in frames.clone() {
            out.extend(sockets.clone().map(|sock| Action::DriverFree { f, sock }));
        }
        let contds: &[bool] = if cfg.multi_buf { &[false, true] } else { &[false] };
        for s in sockets {
            for f in frames.clone() {
                for ok in [false, true] {
                    out.extend(contds.iter().map(|&contd| Action::UserSubmit { s, f, ok, contd }));
                }
            }
            out.extend([
                Action::Sendto { s },
                Action::XmitReserve { s },
                Action::XmitReserveStore { s },
                Action::XmitAllocFail { s },
            ]);
            out.extend(cfg.outcomes.iter().map(|&o| Action::XmitSend { s, o }));
            out.push(Action::XmitBatchReserve { s });
            let pend = self.call[s as usize].pend;
            out.extend((1..=pend).map(|j| Action::XmitBatchAlloc { s, j }));
            out.push(Action::XmitBatchAllocFail { s });
            out.extend(cfg.outcomes.iter().map(|&o| Action::XmitBatchSend { s, o }));
        }
        out
    }

    /// Every step of Next from this state.
    pub fn successors(&self, cfg: &Config) -> Vec<(Action, State)> {
        crate::explore::enabled_steps(self.candidate_actions(cfg), |a| self.step(cfg, a))
    }
}
