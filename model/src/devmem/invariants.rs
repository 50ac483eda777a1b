//! The spec's invariants, TypeOK first, then in the order the
//! MCDevmem_*.cfg files list them.

use super::config::{Config, Mode};
use super::state::{Bst, Dev, State};

/// An invariant: its spec name and its predicate.
pub type Invariant = (&'static str, fn(&State, &Config) -> bool);

pub const INVARIANTS: [Invariant; 14] = [
    ("TypeOK", State::type_ok),
    ("RefsAccounted", State::refs_accounted),
    ("NoUnderflow", State::no_underflow),
    ("PoolOnlyUnreferenced", State::pool_only_unreferenced),
    ("NoLeakAfterClose", State::no_leak_after_close),
    ("NoLeakAfterUnbind", State::no_leak_after_unbind),
    ("BudgetPerCall", State::budget_per_call),
    ("TokensDelivered", State::tokens_delivered),
    ("SingleMode", State::single_mode),
    ("OwnTokensOnly", State::own_tokens_only),
    ("NoUseAfterFree", State::no_use_after_free),
    ("NoDevAfterGone", State::no_dev_after_gone),
    ("RefsBalanced", State::refs_balanced),
    ("ModeStable", State::mode_stable),
];

/// The invariant with this spec name.
pub fn invariant(name: &str) -> Option<Invariant> {
    INVARIANTS.into_iter().find(|(n, _)| *n == name)
}

/// `v` has `outer` vectors of `inner` elements.
fn sized<T>(v: &[Vec<T>], outer: usize, inner: usize) -> bool {
    v.len() == outer && v.iter().all(|x| x.len() == inner)
}

impl State {
    /// TypeOK, beyond what the Rust types give: the vectors have the
    /// config's sizes, skbs have 1 .. Parts pieces left and name a net_iov
    /// of the config, pend names an index of Toks.
    pub fn type_ok(&self, cfg: &Config) -> bool {
        let nb = cfg.bindings.len();
        let ns = nb * usize::from(cfg.socks_per);
        let nn = nb * usize::from(cfg.niovs_per);
        let toks = cfg.toks();
        self.bst.len() == nb
            && self.mode.len() == nb
            && [self.pool.len(), self.ppref.len(), self.uref.len()] == [nn; 3]
            && self.rxq.len() == ns
            && self.open.len() == ns
            && self.pend.len() == ns
            && sized(&self.xa, ns, toks as usize)
            && sized(&self.user, ns, toks as usize)
            && self
                .rxq
                .iter()
                .flatten()
                .all(|k| cfg.has_niov(k.niov) && (1..=cfg.parts).contains(&k.left))
            && self.xa.iter().flatten().flatten().all(|n| cfg.has_niov(*n))
            && self.pend.iter().flatten().all(|t| *t < toks)
            && [
                self.life.dev.len(),
                self.life.mp.len(),
                self.life.bref.len(),
                self.life.freed.len(),
                self.life.tbind.len(),
                self.life.tdev.len(),
            ] == [nb; 6]
            && self.life.sref.len() == ns
    }

    /// RefsAccounted: per net_iov, references held = tokens outstanding +
    /// skbs queued.
    pub fn refs_accounted(&self, cfg: &Config) -> bool {
        cfg.niovs().into_iter().all(|n| {
            self.ppref[cfg.niov_index(n)] == self.skb_refs(cfg, n) + self.kernel_tokens(cfg, n)
        })
    }

    /// NoUnderflow: neither counter goes below zero.
    pub fn no_underflow(&self, _cfg: &Config) -> bool {
        self.ppref.iter().chain(&self.uref).all(|c| *c >= 0)
    }

    /// PoolOnlyUnreferenced: a net_iov is in the pool only once, and only
    /// when nothing refers to it.
    pub fn pool_only_unreferenced(&self, cfg: &Config) -> bool {
        cfg.niovs().into_iter().all(|n| {
            let k = cfg.niov_index(n);
            self.pool[k] == 0
                || (self.pool[k] == 1
                    && self.ppref[k] == 0
                    && self.skb_refs(cfg, n) == 0
                    && self.kernel_tokens(cfg, n) == 0
                    && self.user_tokens(cfg, n) == 0)
        })
    }

    /// NoLeakAfterClose: autorelease: a closed socket of an xarray-mode
    /// binding holds nothing.
    pub fn no_leak_after_close(&self, cfg: &Config) -> bool {
        cfg.socks().into_iter().all(|s| {
            let si = cfg.sock_index(s);
            self.open[si]
                || self.mode_of(s.b) != Mode::Xarray
                || (self.rxq[si].is_empty() && self.xa[si].iter().all(Option::is_none))
        })
    }

    /// NoLeakAfterUnbind: array mode: once unbound (Lifetime: and its
    /// last user gone), no token holds a reference.
    pub fn no_leak_after_unbind(&self, cfg: &Config) -> bool {
        cfg.niovs().into_iter().all(|n| {
            self.bst_of(n.b) != Bst::Dead
                || self.mode_of(n.b) != Mode::Array
                || (cfg.lifetime && self.users(cfg, n.b) != 0)
                || self.uref[cfg.niov_index(n)] == 0
        })
    }

    /// NoUseAfterFree: nothing uses a binding after its last reference is
    /// dropped.
    pub fn no_use_after_free(&self, _cfg: &Config) -> bool {
        self.life
            .tbind
            .iter()
            .zip(&self.life.freed)
            .all(|(t, f)| !t || !f)
    }

    /// NoDevAfterGone: nothing uses a binding's device after it is
    /// unregistered.
    pub fn no_dev_after_gone(&self, _cfg: &Config) -> bool {
        self.life
            .tdev
            .iter()
            .zip(&self.life.dev)
            .all(|(t, d)| !t || *d == Dev::Up)
    }

    /// RefsBalanced: Lifetime: every reference taken is put once: the
    /// count is the number of holders, never below zero.
    pub fn refs_balanced(&self, cfg: &Config) -> bool {
        !cfg.lifetime
            || cfg.binding_ids().all(|b| {
                let r = self.life.bref[usize::from(b)];
                r >= 0 && r == self.holders(cfg, b)
            })
    }

    /// ModeStable: Lifetime: the system-wide mode is every existing
    /// binding's mode.
    pub fn mode_stable(&self, cfg: &Config) -> bool {
        !cfg.lifetime
            || cfg
                .binding_ids()
                .all(|b| !self.alive(b) || self.life.smode == Some(self.mode_of(b)))
    }

    /// BudgetPerCall: bounded work per SO_DEVMEM_DONTNEED call.
    pub fn budget_per_call(&self, cfg: &Config) -> bool {
        self.work <= cfg.dontneed_limit
    }

    /// TokensDelivered: a token reaches the application iff the kernel
    /// took a reference for it.
    pub fn tokens_delivered(&self, cfg: &Config) -> bool {
        cfg.niovs()
            .into_iter()
            .all(|n| self.kernel_tokens(cfg, n) == self.user_tokens(cfg, n))
    }

    /// SingleMode: the single-mode rule.
    pub fn single_mode(&self, _cfg: &Config) -> bool {
        let mut bound = self
            .bst
            .iter()
            .zip(&self.mode)
            .filter(|(b, _)| **b == Bst::Bound)
            .map(|(_, m)| *m);
        match bound.next() {
            None => true,
            Some(m) => bound.all(|o| o == m),
        }
    }

    /// OwnTokensOnly: a socket releases only tokens it received.
    pub fn own_tokens_only(&self, _cfg: &Config) -> bool {
        self.stolen.is_empty()
    }

    /// The first of the invariants `names` that this state violates, in
    /// the order given (TLC checks a .cfg's INVARIANTS in its order).
    ///
    /// Panics on a name that is not one of the spec's invariants
    /// (`invariant` tells).
    pub fn violated<S: AsRef<str>>(&self, cfg: &Config, names: &[S]) -> Option<&'static str> {
        names.iter().find_map(|name| {
            let (n, holds) = invariant(name.as_ref())
                .unwrap_or_else(|| panic!("DevmemTokens.tla has no invariant {}", name.as_ref()));
            (!holds(self, cfg)).then_some(n)
        })
    }

    /// Every invariant this state violates, in INVARIANTS' order.
    pub fn violations(&self, cfg: &Config) -> Vec<&'static str> {
        INVARIANTS
            .iter()
            .filter(|(_, holds)| !holds(self, cfg))
            .map(|(n, _)| *n)
            .collect()
    }
}
