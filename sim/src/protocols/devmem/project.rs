//! The projection of the simulator onto the spec's variables (bst, mode,
//! pool, ppref, uref, rxq, xa, open, user, stolen, work, pend). Every
//! model value is built here, so a change of the model's types changes
//! this file alone.

use ringlab_model::devmem::{self as model, Niov, Sock};

use super::system::Devmem;
use super::xarray::Slot;

impl Devmem {
    /// The spec's state this system is in: each binding's state and mode;
    /// each net_iov's place in the free list and its two counters; each
    /// socket's receive queue, xarray (ids beyond the spec's Toks, or an
    /// id still reserved, panic: neither is a state of the spec) and
    /// whether it is open; the application's tokens; the last
    /// SO_DEVMEM_DONTNEED's work; the releases pending under
    /// zcrx-uref-race.
    ///
    /// Call it when no thread is inside a kernel function.
    pub fn model_state(&self) -> model::State {
        let spec = &self.cfg.spec;
        let niov = |s: Sock, n: usize| Niov {
            b: s.b,
            i: u8::try_from(n).expect("at most 255 net_iovs a binding"),
        };
        let mut pool = Vec::new();
        let mut ppref = Vec::new();
        let mut uref = Vec::new();
        for b in &self.bindings {
            pool.extend(b.pool.pooled());
            for n in &b.niovs {
                let (p, u) = n.counts();
                ppref.push(p);
                uref.push(i64::from(u));
            }
        }
        let toks = spec.toks() as usize;
        model::State {
            bst: self.bindings.iter().map(|b| b.state()).collect(),
            mode: self.bindings.iter().map(|b| b.mode()).collect(),
            pool,
            ppref,
            uref,
            rxq: self
                .socks
                .iter()
                .map(|s| {
                    s.skbs()
                        .into_iter()
                        .map(|k| model::Skb {
                            niov: niov(s.id, k.niov),
                            left: k.left,
                        })
                        .collect()
                })
                .collect(),
            xa: self
                .socks
                .iter()
                .map(|s| {
                    let mut xa = vec![None; toks];
                    for (id, slot) in s.user_frags().entries() {
                        let Slot::Niov(n) = slot else {
                            panic!("socket {:?}: id {id} is reserved between steps", s.id)
                        };
                        let at = xa.get_mut(id as usize).unwrap_or_else(|| {
                            panic!("socket {:?}: id {id} is outside the spec's Toks", s.id)
                        });
                        *at = Some(niov(s.id, n));
                    }
                    xa
                })
                .collect(),
            open: self.socks.iter().map(|s| s.is_open()).collect(),
            user: self
                .app
                .user
                .iter()
                .map(|u| {
                    let mut u = u.clone();
                    u.resize(toks.max(u.len()), 0);
                    u
                })
                .collect(),
            stolen: self.app.stolen.clone(),
            work: self.work,
            pend: self.pend.clone(),
            // The simulator has no binding lifetime (Lifetime = FALSE).
            life: model::Life::init(spec),
        }
    }
}
