//! The binding's life: BindRx and Unbind.

use super::config::{Config, Mode, Mutant};
use super::state::{Binding, Bst, Mp, State};

impl State {
    /// BindRx(b, m): NETDEV_CMD_BIND_RX, net_devmem_bind_dmabuf(). The
    /// binding's net_iovs enter its page pool. The single-mode rule: no
    /// binding of the other mode may be bound (mutant dm-mode-mix: it may).
    pub fn bind_rx(&self, cfg: &Config, b: Binding, m: Mode) -> Option<State> {
        if !cfg.has_binding(b) || self.bst_of(b) != Bst::Idle || !cfg.modes.contains(&m) {
            return None;
        }
        if cfg.lifetime {
            if self.life.smode.is_some_and(|x| x != m) {
                return None;
            }
        } else {
            let single = cfg
                .binding_ids()
                .all(|c| self.bst_of(c) != Bst::Bound || self.mode_of(c) == m);
            if !single && cfg.mutant != Mutant::ModeMix {
                return None;
            }
        }
        let mut t = self.clone();
        let bi = usize::from(b);
        t.bst[bi] = Bst::Bound;
        t.mode[bi] = m;
        for n in cfg.niovs_of(b) {
            t.pool[cfg.niov_index(n)] = 1;
        }
        if cfg.lifetime {
            // The netlink socket's reference and the page pool's
            // (mp_dmabuf_devmem_init); the mode is set system-wide.
            t.life.mp[bi] = Mp::On;
            t.life.bref[bi] = 2;
            t.life.smode = Some(m);
            t.no_touch();
            t.life.tbind[bi] = true;
            t.life.tdev[bi] = true;
        }
        Some(t)
    }

    /// Unbind(b): net_devmem_unbind_dmabuf() (the netlink socket that
    /// bound it closes). Array mode: the references of tokens never
    /// returned are dropped, each uref exchanged with zero, and the
    /// application's tokens are void (mutant dm-unbind-no-cleanup: none of
    /// this).
    /// Lifetime = TRUE has NlSockClose instead.
    pub fn unbind(&self, cfg: &Config, b: Binding) -> Option<State> {
        if cfg.lifetime || !cfg.has_binding(b) || self.bst_of(b) != Bst::Bound {
            return None;
        }
        let mut t = self.clone();
        t.bst[usize::from(b)] = Bst::Dead;
        let clean = self.mode_of(b) == Mode::Array && cfg.mutant != Mutant::UnbindNoCleanup;
        if clean {
            let mut dec = vec![0; self.ppref.len()];
            for n in cfg.niovs_of(b) {
                let k = cfg.niov_index(n);
                dec[k] = self.uref[k];
                t.uref[k] = 0;
            }
            t.put(&dec);
            for s in cfg.socks_of(b) {
                t.user[cfg.sock_index(s)].fill(0);
            }
        }
        Some(t)
    }
}
