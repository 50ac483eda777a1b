//! Next (and XskRedirectXsk's FastNext): every action with every choice
//! its \E allows, in the spec's order.

use super::action::Action;
use super::config::Config;
use super::state::State;

/// Which next-state relation a model checks: its SPECIFICATION.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spec {
    /// Spec: Init /\ [][Next]_vars.
    Spec,
    /// XskRedirectXsk.tla's FastSpec: Next without xsk_generic_rcv()'s
    /// RxLock and XskFlush.
    FastSpec,
}

impl Spec {
    /// The SPECIFICATION name's meaning; None for a name the specs do not
    /// define.
    pub fn from_name(name: &str) -> Option<Spec> {
        match name {
            "Spec" => Some(Spec::Spec),
            "FastSpec" => Some(Spec::FastSpec),
            _ => None,
        }
    }

    /// Whether the relation has the action.
    pub fn has(self, a: &Action) -> bool {
        self == Spec::Spec || a.in_fast_next()
    }
}

impl State {
    /// Apply one action with its choice; None if it is not enabled (or
    /// names a socket, buffer or CPU outside the config).
    pub fn step(&self, cfg: &Config, action: &Action) -> Option<State> {
        match *action {
            Action::UserFill { b } => self.user_fill(cfg, b),
            Action::UserRecv { s } => self.user_recv(cfg, s),
            Action::XskBind { s } => self.xsk_bind(cfg, s),
            Action::XskMapUpdate { k, s } => self.xsk_map_update(cfg, k, s),
            Action::XskRelease { s } => self.xsk_release(cfg, s),
            Action::XskReleaseDone { s } => self.xsk_release_done(cfg, s),
            Action::NapiPoll { c } => self.napi_poll(cfg, c),
            Action::XdpDoFlush { c } => self.xdp_do_flush(cfg, c),
            Action::XdpRun { c, v, k, len } => self.xdp_run(cfg, c, v, k, len),
            Action::XskRcvBatch { c } => self.xsk_rcv_batch(cfg, c),
            Action::RxLock { c } => self.rx_lock(cfg, c),
            Action::XskRcvCheckRoom { c } => self.xsk_rcv_check_room(cfg, c),
            Action::XpAllocFree { c } => self.xp_alloc_free(cfg, c),
            Action::XpAllocPeek { c } => self.xp_alloc_peek(cfg, c),
            Action::XpAllocTake { c } => self.xp_alloc_take(cfg, c),
            Action::XpAllocFail { c } => self.xp_alloc_fail(cfg, c),
            Action::XskRcvReserve { c } => self.xsk_rcv_reserve(cfg, c),
            Action::XskFlush { c } => self.xsk_flush(cfg, c),
            Action::Done => self.done(cfg),
        }
    }

    /// Every action instance Next could take, enabled or not, in the order
    /// of Next's disjuncts and of each \E's set (buffers, sockets and
    /// lengths ascending, CPUs as the .cfg lists them, verdicts as
    /// Verdict orders them). UserFill is listed for the buffers the
    /// application holds only: no other is enabled.
    pub fn candidate_actions(&self, cfg: &Config) -> Vec<Action> {
        let mut out: Vec<Action> = self.ufree.iter().map(|&b| Action::UserFill { b }).collect();
        out.push(Action::Done);
        for s in cfg.sockets() {
            out.extend([
                Action::UserRecv { s },
                Action::XskRelease { s },
                Action::XskReleaseDone { s },
                Action::XskBind { s },
            ]);
        }
        for k in cfg.keys() {
            out.extend(cfg.sockets().map(|s| Action::XskMapUpdate { k, s }));
        }
        for c in cfg.cpu_ids() {
            out.push(Action::NapiPoll { c });
            out.push(Action::XdpDoFlush { c });
            for &v in &cfg.verdicts {
                for k in cfg.sockets() {
                    out.extend((1..=cfg.max_len).map(|len| Action::XdpRun { c, v, k, len }));
                }
            }
            out.extend([
                Action::XskRcvBatch { c },
                Action::RxLock { c },
                Action::XskRcvCheckRoom { c },
                Action::XpAllocFree { c },
                Action::XpAllocPeek { c },
                Action::XpAllocTake { c },
                Action::XpAllocFail { c },
                Action::XskRcvReserve { c },
                Action::XskFlush { c },
            ]);
        }
        out
    }

    /// Every enabled action instance of Next, in candidate_actions' order.
    pub fn enabled(&self, cfg: &Config) -> Vec<Action> {
        self.successors(cfg).into_iter().map(|(a, _)| a).collect()
    }

    /// Every step of Next from this state (Done's stutter included).
    pub fn successors(&self, cfg: &Config) -> Vec<(Action, State)> {
        self.successors_of(cfg, Spec::Spec)
    }

    /// Every step of `spec`'s next-state relation from this state.
    pub fn successors_of(&self, cfg: &Config, spec: Spec) -> Vec<(Action, State)> {
        let mut candidates = self.candidate_actions(cfg);
        candidates.retain(|a| spec.has(a));
        crate::explore::enabled_steps(candidates, |a| self.step(cfg, a))
    }
}
