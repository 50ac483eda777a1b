//! Receive: RxFrag and RecvMsg.

use super::config::{Config, Mode, Mutant};
use super::state::{Bst, Mp, Niov, Skb, Sock, State, Tok};

impl State {
    /// RxFrag(s, n): the NIC takes n from the page pool (page_pool_alloc:
    /// pp_ref_count set to 1, the skb's reference) and TCP queues the
    /// frag on s (tcp_data_queue).
    pub fn rx_frag(&self, cfg: &Config, s: Sock, n: Niov) -> Option<State> {
        if !cfg.has_sock(s) || !cfg.has_niov(n) || n.b != s.b {
            return None;
        }
        let (si, ni) = (cfg.sock_index(s), cfg.niov_index(n));
        if self.bst_of(n.b) != Bst::Bound || !self.open[si] || self.pool[ni] == 0 {
            return None;
        }
        if cfg.lifetime && self.life.mp[usize::from(n.b)] != Mp::On {
            return None;
        }
        let mut t = self.clone();
        if cfg.lifetime {
            t.no_touch();
        }
        t.pool[ni] -= 1;
        t.ppref[ni] = 1;
        t.rxq[si].push(Skb {
            niov: n,
            left: cfg.parts,
        });
        Some(t)
    }

    /// The token RecvMsg hands out for a piece of n on s: xarray mode, the
    /// lowest id free in s's xarray (xa_alloc); array mode, n's index.
    ///
    /// Panics when s's xarray is full: the spec's Min of the empty set,
    /// where TLC stops with an evaluation error (the spec's Toks is sized
    /// so that no model reaches it).
    pub fn recv_token(&self, cfg: &Config, s: Sock, n: Niov) -> Tok {
        match self.mode_of(n.b) {
            Mode::Xarray => {
                let xa = &self.xa[cfg.sock_index(s)];
                let id = xa.iter().position(Option::is_none).unwrap_or_else(|| {
                    panic!(
                        "RecvMsg({s:?}): no free xarray id in Toks: Min({{}}) is an evaluation error in TLC"
                    )
                });
                id as Tok
            }
            Mode::Array => Tok::from(n.i),
        }
    }

    /// RecvMsg(s), `told` being the `\E told` choice: tcp_recvmsg_dmabuf()
    /// reads one piece of the head skb's frag. The kernel takes a
    /// reference for the application (atomic_long_inc(pp_ref_count)) and
    /// records a token; an skb whose last piece is read is freed, dropping
    /// its own reference. In array mode an unbound binding hands out no
    /// tokens. Mutant dm-cmsg-trunc: `told` may be false (put_cmsg
    /// truncated the token's cmsg); dm-recv-no-ref: no reference is taken.
    pub fn recv_msg(&self, cfg: &Config, s: Sock, told: bool) -> Option<State> {
        if !cfg.has_sock(s) {
            return None;
        }
        let si = cfg.sock_index(s);
        if !self.open[si] || (!told && cfg.mutant != Mutant::CmsgTrunc) {
            return None;
        }
        let h = *self.rxq[si].first()?;
        let n = h.niov;
        let b = n.b;
        let mode = self.mode_of(b);
        if mode == Mode::Array && self.bst_of(b) != Bst::Bound {
            return None;
        }
        let reference = if cfg.mutant == Mutant::RecvNoRef {
            0
        } else {
            1
        };
        let last = h.left == 1;
        let tok = self.recv_token(cfg, s, n);
        let ni = cfg.niov_index(n);
        let mut t = self.clone();
        match mode {
            Mode::Xarray => t.xa[si][tok as usize] = Some(n),
            Mode::Array => t.uref[ni] += 1,
        }
        if told {
            t.user[si][tok as usize] += 1;
        }
        let ppref = self.ppref[ni] + reference - i64::from(last);
        t.ppref[ni] = ppref;
        if ppref == 0 {
            t.pool[ni] += 1;
        }
        if last {
            t.rxq[si].remove(0);
        } else {
            t.rxq[si][0].left -= 1;
        }
        if cfg.lifetime {
            // The binding is used (the cmsg's dmabuf id, binding->vec);
            // array mode: the first receive makes s a user holding a
            // reference (mutant dm-sock-no-binding-ref: without it).
            if mode == Mode::Array && !self.life.sref[si] {
                t.life.sref[si] = true;
                if !cfg.bug(Mutant::SockNoBindingRef) {
                    t.life.bref[usize::from(b)] += 1;
                }
            }
            t.no_touch();
            t.life.tbind[usize::from(b)] = true;
        }
        Some(t)
    }
}
