//! The binding's lifetime (Lifetime = TRUE): NlSockClose,
//! NetdevUnregister, MpDmabufDevmemDestroy.

use super::config::{Config, Mutant};
use super::state::{Binding, Bst, Dev, Mp, State};

impl State {
    /// NlSockClose(b): the netlink socket that bound b closes,
    /// netdev_nl_sock_priv_destroy() -> net_devmem_unbind_dmabuf(). With
    /// the device present: its lock, the provider uninstalled (the page
    /// pool drains), the netlink socket's reference put, the unlock
    /// through a pointer saved before the put. With the device gone it is
    /// not touched. The queue was the last user: array-mode cleanup.
    /// Mutants: dm-nl-close-dev-gone (0afc44d8cdf6) locks the gone device;
    /// dm-nl-close-uaf (42f342387841) unlocks through binding->dev after
    /// the put; dm-mode-reset-early resets the mode here when no other
    /// binding is bound.
    pub fn nl_sock_close(&self, cfg: &Config, b: Binding) -> Option<State> {
        if !cfg.lifetime || !cfg.has_binding(b) || self.bst_of(b) != Bst::Bound {
            return None;
        }
        let bi = usize::from(b);
        let mut t = self.clone();
        t.bst[bi] = Bst::Dead;
        self.uninstall(&mut t, cfg, b);
        t.release(self, cfg, b, 1);
        if cfg.bug(Mutant::ModeResetEarly) {
            t.life.smode = if cfg
                .binding_ids()
                .filter(|&c| c != b)
                .all(|c| self.bst_of(c) != Bst::Bound)
            {
                None
            } else {
                self.life.smode
            };
        }
        t.no_touch();
        t.life.tdev[bi] = self.life.dev[bi] == Dev::Up || cfg.bug(Mutant::NlCloseDevGone);
        t.life.tbind[bi] = cfg.bug(Mutant::NlCloseUaf);
        Some(t)
    }

    /// The queue's provider uninstalled (the pool drains), and the
    /// cleanup if the queue was b's last user; `t` is the new state.
    fn uninstall(&self, t: &mut State, cfg: &Config, b: Binding) {
        let bi = usize::from(b);
        let inst = self.life.mp[bi] == Mp::On;
        let mut dec = vec![0; self.ppref.len()];
        t.clean(cfg, b, inst && self.users(cfg, b) == 1, &mut dec);
        t.put(&dec);
        if inst {
            t.life.mp[bi] = Mp::Drain;
        }
    }

    /// NetdevUnregister(b): b's device goes: the queue closed
    /// (page_pool_destroy) and the provider uninstalled
    /// (mp_dmabuf_devmem_uninstall). Nothing may use the device after.
    pub fn netdev_unregister(&self, cfg: &Config, b: Binding) -> Option<State> {
        if !cfg.lifetime || !cfg.has_binding(b) {
            return None;
        }
        let bi = usize::from(b);
        if self.life.dev[bi] != Dev::Up || !self.alive(b) {
            return None;
        }
        let mut t = self.clone();
        t.life.dev[bi] = Dev::Gone;
        self.uninstall(&mut t, cfg, b);
        t.no_touch();
        Some(t)
    }

    /// MpDmabufDevmemDestroy(b): once every net_iov of b is back in the
    /// drained page pool, the pool is released and puts its reference
    /// (mp_dmabuf_devmem_destroy); the last put frees b.
    pub fn mp_dmabuf_devmem_destroy(&self, cfg: &Config, b: Binding) -> Option<State> {
        if !cfg.lifetime || !cfg.has_binding(b) {
            return None;
        }
        let bi = usize::from(b);
        if self.life.mp[bi] != Mp::Drain {
            return None;
        }
        if cfg
            .niovs_of(b)
            .into_iter()
            .any(|n| self.pool[cfg.niov_index(n)] == 0)
        {
            return None;
        }
        let mut t = self.clone();
        t.life.mp[bi] = Mp::Off;
        t.release(self, cfg, b, 1);
        t.no_touch();
        Some(t)
    }
}
