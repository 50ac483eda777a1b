//! The spec's VARIABLES and Init, and the operators the actions and the
//! invariants share (Put, Holder, SkbRefs, KernelTokens, UserTokens).

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

use super::config::{Config, Mode};

/// A binding: its position in Config::bindings (the spec's model values).
pub type Binding = u8;

/// A token value: an xarray id (xarray mode) or a net_iov index (array
/// mode). The spec's Toks is 0 .. Config::toks() - 1.
pub type Tok = u32;

/// A socket, the spec's tuple `<<b, i>>` in Socks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Sock {
    pub b: Binding,
    pub i: u8,
}

/// A net_iov, the spec's tuple `<<b, i>>` in Niovs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Niov {
    pub b: Binding,
    pub i: u8,
}

/// `bst[b]`: where a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Bst {
    Idle,
    Bound,
    /// Unbound.
    Dead,
}

impl Bst {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Bst::Idle => "idle",
            Bst::Bound => "bound",
            Bst::Dead => "dead",
        }
    }
}

/// `dev[b]`: the binding's netdev.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Dev {
    Up,
    /// Unregistered (or its module unloaded).
    Gone,
}

impl Dev {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Dev::Up => "up",
            Dev::Gone => "gone",
        }
    }
}

/// `mp[b]`: the binding's memory provider on its RX queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mp {
    Off,
    /// Installed; the queue's page pool holds a binding reference.
    On,
    /// Uninstalled; the page pool waits for its net_iovs.
    Drain,
}

impl Mp {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Mp::Off => "off",
            Mp::On => "on",
            Mp::Drain => "drain",
        }
    }
}

/// The spec's Lifetime variables (constant when Lifetime = FALSE).
/// Per-binding vectors are indexed by Binding, `sref` by
/// Config::sock_index.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Life {
    /// `dev[b]`
    pub dev: Vec<Dev>,
    /// `mp[b]`
    pub mp: Vec<Mp>,
    /// `bref[b]`: the binding's refcount (mutants drive it below zero).
    pub bref: Vec<i64>,
    /// `sref[s]`: array mode: s received from its binding and holds a
    /// reference on it.
    pub sref: Vec<bool>,
    /// `freed[b]`: __net_devmem_dmabuf_binding_free has run.
    pub freed: Vec<bool>,
    /// `smode`: the system-wide mode (None: "none").
    pub smode: Option<Mode>,
    /// `tbind[b]`: the last step used b after the references it dropped.
    pub tbind: Vec<bool>,
    /// `tdev[b]`: the last step used b's netdev.
    pub tdev: Vec<bool>,
}

impl Life {
    /// Init's values, which Lifetime = FALSE keeps.
    pub fn init(cfg: &Config) -> Life {
        let nb = cfg.bindings.len();
        let ns = nb * usize::from(cfg.socks_per);
        Life {
            dev: vec![Dev::Up; nb],
            mp: vec![Mp::Off; nb],
            bref: vec![0; nb],
            sref: vec![false; ns],
            freed: vec![false; nb],
            smode: None,
            tbind: vec![false; nb],
            tdev: vec![false; nb],
        }
    }
}

/// An skb queued on a socket (spec: `[niov |-> n, left |-> k]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Skb {
    pub niov: Niov,
    /// Pieces not yet read, 1 .. Parts.
    pub left: u32,
}

/// A release through socket `by` of token `tok` that socket `from`
/// received (spec: `[by |-> s, from |-> o, tok |-> i]`). Fields are in
/// TLC's order of the record's names, so the derived order is TLC's order
/// of `stolen`'s elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Stolen {
    pub tok: Tok,
    pub by: Sock,
    pub from: Sock,
}

/// A state of the spec: its twenty variables (`life` holds eight). Per-binding vectors are
/// indexed by Binding, per-socket ones by Config::sock_index, per-net_iov
/// ones by Config::niov_index, per-token ones by the token.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct State {
    /// `bst[b]`
    pub bst: Vec<Bst>,
    /// `mode[b]`: the mode the bind asked for (Init's CHOOSE before).
    pub mode: Vec<Mode>,
    /// `pool[n]`: times n sits in the page pool's free list.
    pub pool: Vec<u32>,
    /// `ppref[n]`: pp_ref_count (mutants drive it below zero).
    pub ppref: Vec<i64>,
    /// `uref[n]`: array mode: tokens handed out and not returned.
    pub uref: Vec<i64>,
    /// `rxq[s]`: skbs queued on s, head first.
    pub rxq: Vec<Vec<Skb>>,
    /// `xa[s][id]`: xarray mode: the net_iov id names in s (None: NoNiov).
    pub xa: Vec<Vec<Option<Niov>>>,
    /// `open[s]`: the socket is not closed.
    pub open: Vec<bool>,
    /// `user[s][t]`: tokens t the application holds from s (history).
    pub user: Vec<Vec<u32>>,
    /// Releases through one socket of a token another received.
    pub stolen: BTreeSet<Stolen>,
    /// Tokens the last SO_DEVMEM_DONTNEED examined.
    pub work: u32,
    /// `pend[s]`: zcrx-uref-race: the token of a release that saw uref > 0
    /// and has not decremented it yet (None: NoTok).
    pub pend: Vec<Option<Tok>>,
    /// dev, mp, bref, sref, freed, smode, tbind, tdev.
    pub life: Life,
}

impl State {
    /// The spec's Init (its only initial state).
    pub fn init(cfg: &Config) -> State {
        let nb = cfg.bindings.len();
        let ns = nb * usize::from(cfg.socks_per);
        let nn = nb * usize::from(cfg.niovs_per);
        let toks = cfg.toks() as usize;
        State {
            bst: vec![Bst::Idle; nb],
            mode: vec![cfg.init_mode(); nb],
            pool: vec![0; nn],
            ppref: vec![0; nn],
            uref: vec![0; nn],
            rxq: vec![Vec::new(); ns],
            xa: vec![vec![None; toks]; ns],
            open: vec![true; ns],
            user: vec![vec![0; toks]; ns],
            stolen: BTreeSet::new(),
            work: 0,
            pend: vec![None; ns],
            life: Life::init(cfg),
        }
    }

    /// `bst[b]`
    pub fn bst_of(&self, b: Binding) -> Bst {
        self.bst[usize::from(b)]
    }

    /// `mode[b]`
    pub fn mode_of(&self, b: Binding) -> Mode {
        self.mode[usize::from(b)]
    }

    /// Alive(b): b exists (bound, or unbound and not yet freed).
    pub fn alive(&self, b: Binding) -> bool {
        self.bst_of(b) != Bst::Idle && !self.life.freed[usize::from(b)]
    }

    /// Users(b): the queue while the provider is installed, and the
    /// sockets that received from b.
    pub fn users(&self, cfg: &Config, b: Binding) -> i64 {
        let q = i64::from(self.life.mp[usize::from(b)] == Mp::On);
        q + self.srefs(cfg, b)
    }

    /// Sockets of b holding a reference on it.
    fn srefs(&self, cfg: &Config, b: Binding) -> i64 {
        cfg.socks_of(b)
            .into_iter()
            .filter(|&s| self.life.sref[cfg.sock_index(s)])
            .count() as i64
    }

    /// Holders(b): the netlink socket while bound, the queue's page pool,
    /// the sockets that received from b.
    pub fn holders(&self, cfg: &Config, b: Binding) -> i64 {
        i64::from(self.bst_of(b) == Bst::Bound)
            + i64::from(self.life.mp[usize::from(b)] != Mp::Off)
            + self.srefs(cfg, b)
    }

    /// Release(b, k) and the system-wide mode after it (ModeAfter): `self`
    /// is the new state, `old` the state the action starts from.
    pub(super) fn release(&mut self, old: &State, cfg: &Config, b: Binding, k: i64) {
        let bi = usize::from(b);
        let freeing = k > 0 && old.life.bref[bi] - k == 0;
        self.life.bref[bi] = old.life.bref[bi] - k;
        self.life.freed[bi] = old.life.freed[bi] || freeing;
        if freeing
            && !cfg.bug(super::config::Mutant::ModeResetEarly)
            && cfg.binding_ids().filter(|&c| c != b).all(|c| !old.alive(c))
        {
            self.life.smode = None;
        }
    }

    /// Cleans(b, last) with CleanDec, CleanUref, CleanUser: array mode,
    /// the last user of b goes: each uref exchanged with zero, those
    /// references dropped, the application's tokens of b void (mutant
    /// dm-unbind-no-cleanup: none of this). Adds to `dec`; `self` is the
    /// new state.
    pub(super) fn clean(&mut self, cfg: &Config, b: Binding, last: bool, dec: &mut [i64]) {
        if !last
            || self.mode_of(b) != Mode::Array
            || cfg.mutant == super::config::Mutant::UnbindNoCleanup
        {
            return;
        }
        for n in cfg.niovs_of(b) {
            let k = cfg.niov_index(n);
            dec[k] += self.uref[k];
            self.uref[k] = 0;
        }
        for s in cfg.socks_of(b) {
            self.user[cfg.sock_index(s)].fill(0);
        }
    }

    /// NoTouch: the step uses no binding and no device after its puts.
    pub(super) fn no_touch(&mut self) {
        self.life.tbind.fill(false);
        self.life.tdev.fill(false);
    }

    /// Put(dec): drop dec[n] references from every net_iov; one that
    /// reaches exactly zero goes back to the pool (napi_pp_put_page ->
    /// page_pool_put_netmem). `dec` is indexed by Config::niov_index.
    pub(super) fn put(&mut self, dec: &[i64]) {
        for (k, &d) in dec.iter().enumerate() {
            let left = self.ppref[k] - d;
            if d > 0 && left == 0 {
                self.pool[k] += 1;
            }
            self.ppref[k] = left;
        }
    }

    /// Holder(s, i): the socket through which the application received
    /// the token it returns as i through s: s when s holds one, else the
    /// first socket of s's binding (TLC's CHOOSE) that does, else s.
    pub fn holder(&self, cfg: &Config, s: Sock, i: Tok) -> Sock {
        let holds = |o: Sock| self.user[cfg.sock_index(o)][i as usize] > 0;
        if holds(s) {
            return s;
        }
        cfg.socks_of(s.b)
            .into_iter()
            .find(|&o| holds(o))
            .unwrap_or(s)
    }

    /// SkbRefs(n): references skbs queued on a socket hold on n (the
    /// spec counts the first NiovsPer skbs of each queue).
    pub fn skb_refs(&self, cfg: &Config, n: Niov) -> i64 {
        self.rxq
            .iter()
            .map(|q| {
                q.iter()
                    .take(usize::from(cfg.niovs_per))
                    .filter(|k| k.niov == n)
                    .count() as i64
            })
            .sum()
    }

    /// KernelTokens(n): tokens the kernel accounts for on n.
    pub fn kernel_tokens(&self, cfg: &Config, n: Niov) -> i64 {
        match self.mode_of(n.b) {
            Mode::Xarray => cfg
                .socks_of(n.b)
                .into_iter()
                .map(|s| {
                    let xa = &self.xa[cfg.sock_index(s)];
                    xa.iter().filter(|x| **x == Some(n)).count() as i64
                })
                .sum(),
            Mode::Array => self.uref[cfg.niov_index(n)],
        }
    }

    /// UserTokens(n): tokens the application holds on n.
    pub fn user_tokens(&self, cfg: &Config, n: Niov) -> i64 {
        let socks = cfg.socks_of(n.b).into_iter().map(|s| cfg.sock_index(s));
        match self.mode_of(n.b) {
            Mode::Xarray => socks
                .map(|k| {
                    self.xa[k]
                        .iter()
                        .zip(&self.user[k])
                        .filter(|(x, u)| **x == Some(n) && **u > 0)
                        .count() as i64
                })
                .sum(),
            Mode::Array => socks
                .map(|k| i64::from(self.user[k][usize::from(n.i)]))
                .sum(),
        }
    }
}
