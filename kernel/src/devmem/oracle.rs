//! The model beside a live devmem receiver: every kernel event applied to
//! model::devmem in Lifetime mode as the spec action it is, and the model's
//! answer (the token it hands out, the frags a DONTNEED frees, whether the
//! binding is gone) given back to be held against the kernel's.
//!
//! One binding, `socks` sockets, `niovs` net_iovs, each frag one whole
//! net_iov read in one piece (Parts = 1): the test device writes at most a
//! page per frag and the receiver reads with a buffer larger than what is
//! queued, so no frag is split across recvmsg calls.

use ringlab_model::devmem::{Action, Config, Mode, Mutant, Niov, Sock, State};

/// SO_DEVMEM_DONTNEED's limit on frags per call (MAX_DONTNEED_FRAGS).
pub const DONTNEED_FRAGS: u32 = 1024;

/// What the model could not do that the kernel did, or the two answered
/// differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence(pub String);

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone)]
pub struct Oracle {
    cfg: Config,
    state: State,
    /// Every action applied, in order, as the spec prints it.
    pub trace: Vec<String>,
    /// Init and the state after each action, when recorded: a trace TLC
    /// can check against specs/DevmemTokens.tla.
    pub states: Option<Vec<State>>,
}

const B: u8 = 0;

impl Oracle {
    /// The model with the binding made (BindRx) in `mode`; `max_count`
    /// is the most tokens one DONTNEED may name (MaxCount), `record` keeps
    /// the states.
    pub fn bound(mode: Mode, socks: u8, niovs: u8, max_count: u32, record: bool) -> Result<Oracle, Divergence> {
        let cfg = Config {
            bindings: vec!["b1".into()],
            socks_per: socks,
            niovs_per: niovs,
            parts: 1,
            modes: vec![mode],
            max_count,
            dontneed_limit: DONTNEED_FRAGS,
            lifetime: true,
            mutant: Mutant::None,
        };
        cfg.validate().map_err(|e| Divergence(format!("model configuration: {e}")))?;
        let init = State::init(&cfg);
        let mut o = Oracle { states: record.then(|| vec![init.clone()]), state: init, cfg, trace: Vec::new() };
        o.apply(Action::BindRx { b: B, m: mode })?;
        Ok(o)
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn mode(&self) -> Mode {
        self.state.mode_of(B)
    }

    fn apply(&mut self, a: Action) -> Result<(), Divergence> {
        let next = self.state.step(&self.cfg, &a).ok_or_else(|| {
            Divergence(format!("the kernel did {a}, which the model does not allow here (after {} steps)", self.trace.len()))
        })?;
        if let Some(inv) = next.violated(&self.cfg, &checked()) {
            return Err(Divergence(format!("{a} breaks {inv} in the model")));
        }
        if let Some(st) = self.states.as_mut() {
            st.push(next.clone());
        }
        self.state = next;
        self.trace.push(a.to_string());
        Ok(())
    }

    fn sock(&self, s: u8) -> Result<Sock, Divergence> {
        let sock = Sock { b: B, i: s };
        if self.cfg.has_sock(sock) {
            Ok(sock)
        } else {
            Err(Divergence(format!("socket {s} is not among the model's {}", self.cfg.socks_per)))
        }
    }

    /// The kernel handed net_iov `niov` to socket `s` and recvmsg gave it
    /// to the application with one token: RxFrag then RecvMsg. Returns the
    /// token the kernel must have given (xarray ids start at 1 in the
    /// kernel, XA_FLAGS_ALLOC1; the model's at 0).
    pub fn received(&mut self, s: u8, niov: u32) -> Result<u32, Divergence> {
        let sock = self.sock(s)?;
        let n = u8::try_from(niov)
            .ok()
            .map(|i| Niov { b: B, i })
            .filter(|&n| self.cfg.has_niov(n))
            .ok_or_else(|| Divergence(format!("net_iov {niov} is outside the binding's {}", self.cfg.niovs_per)))?;
        self.apply(Action::RxFrag { s: sock, n })?;
        let tok = self.state.recv_token(&self.cfg, sock, n);
        self.apply(Action::RecvMsg { s: sock, told: true })?;
        Ok(match self.mode() {
            Mode::Xarray => tok + 1,
            Mode::Array => tok,
        })
    }

    /// SO_DEVMEM_DONTNEED on `s` with one dmabuf_token {start, count}:
    /// the frags the model frees, or None when the model refuses the call
    /// (array mode on a socket that never received: -EINVAL).
    pub fn dontneed(&mut self, s: u8, start: u32, count: u32) -> Result<Option<u32>, Divergence> {
        let sock = self.sock(s)?;
        // the model's tokens: xarray ids shifted by one; an id 0 or past
        // the model's range frees nothing in either
        let (t, c) = match self.mode() {
            Mode::Xarray if start == 0 => (0, count.saturating_sub(1)),
            Mode::Xarray => (start - 1, count),
            Mode::Array => (start, count),
        };
        if c == 0 || t >= self.cfg.toks() {
            // tokens the model has no room for free nothing; whether the
            // call is refused does not depend on them
            let probe = Action::Dontneed { s: sock, t: 0, c: 1 };
            return Ok(self.state.step(&self.cfg, &probe).map(|_| 0));
        }
        let before = self.held(sock);
        let a = Action::Dontneed { s: sock, t, c };
        match self.state.step(&self.cfg, &a) {
            None => Ok(None),
            Some(_) => {
                self.apply(a)?;
                Ok(Some(before - self.held(sock)))
            }
        }
    }

    /// Tokens the model counts as held for `s`: its xarray ids, or, in
    /// array mode, the binding's user references.
    fn held(&self, s: Sock) -> u32 {
        let si = self.cfg.sock_index(s);
        let xa = self.state.xa[si].iter().flatten().count() as i64;
        let uref: i64 = self.cfg.niovs_of(s.b).iter().map(|&n| self.state.uref[self.cfg.niov_index(n)]).sum();
        (xa + uref) as u32
    }

    /// close(2) of socket `s`.
    pub fn close(&mut self, s: u8) -> Result<(), Divergence> {
        let sock = self.sock(s)?;
        self.apply(Action::Close { s: sock })
    }

    /// The netlink socket that made the binding closed (unbind).
    pub fn unbind(&mut self) -> Result<(), Divergence> {
        self.apply(Action::NlSockClose { b: B })
    }

    /// The page pool, drained, lets go of the binding, if it can yet.
    pub fn settle(&mut self) -> Result<(), Divergence> {
        let a = Action::MpDmabufDevmemDestroy { b: B };
        if self.state.step(&self.cfg, &a).is_some() {
            self.apply(a)?;
        }
        Ok(())
    }

    /// Whether the model has freed the binding (every reference put).
    pub fn binding_freed(&self) -> bool {
        !self.state.alive(B)
    }

    /// net_iovs the model has out of the page pool.
    pub fn out_of_pool(&self) -> usize {
        self.state.pool.iter().filter(|&&p| p == 0).count()
    }
}

/// The invariants held after every step: all of the spec's but
/// OwnTokensOnly, which array mode breaks by design.
fn checked() -> Vec<&'static str> {
    ringlab_model::devmem::INVARIANTS.iter().map(|(n, _)| *n).filter(|&n| n != "OwnTokensOnly" && n != "TypeOK").collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xarray_tokens_start_at_one_and_dontneed_frees_each_once() {
        let mut o = Oracle::bound(Mode::Xarray, 2, 4, u32::MAX, false).unwrap();
        assert_eq!(o.received(0, 2).unwrap(), 1);
        assert_eq!(o.received(0, 3).unwrap(), 2);
        assert_eq!(o.received(1, 0).unwrap(), 1);
        assert_eq!(o.dontneed(0, 1, 2).unwrap(), Some(2));
        assert_eq!(o.dontneed(0, 1, 2).unwrap(), Some(0));
        assert_eq!(o.dontneed(0, 0, 1).unwrap(), Some(0), "id 0 is never given");
        assert_eq!(o.dontneed(0, 400, 3).unwrap(), Some(0));
        // socket 1's id 1 is its own
        assert_eq!(o.dontneed(1, 1, 1).unwrap(), Some(1));
        // a net_iov still held cannot be handed out again
        assert_eq!(o.received(0, 2).unwrap(), 1);
        assert!(o.received(1, 2).is_err());
    }

    #[test]
    fn array_tokens_are_net_iov_indexes_and_any_socket_may_return_them() {
        let mut o = Oracle::bound(Mode::Array, 2, 4, u32::MAX, false).unwrap();
        assert_eq!(o.received(0, 3).unwrap(), 3);
        assert_eq!(o.dontneed(1, 3, 1).unwrap(), None, "socket 1 never received");
        assert_eq!(o.dontneed(1, 40, 1).unwrap(), None, "refused whatever the token");
        assert_eq!(o.received(1, 1).unwrap(), 1);
        assert_eq!(o.dontneed(1, 3, 1).unwrap(), Some(1));
        assert_eq!(o.dontneed(1, 3, 1).unwrap(), Some(0));
    }

    #[test]
    fn the_binding_is_freed_only_after_its_last_user() {
        for mode in Mode::ALL {
            let mut o = Oracle::bound(mode, 1, 2, u32::MAX, true).unwrap();
            let t = o.received(0, 1).unwrap();
            o.unbind().unwrap();
            o.settle().unwrap();
            assert!(!o.binding_freed(), "{mode:?}: a token is still out");
            if mode == Mode::Array {
                assert_eq!(o.dontneed(0, t, 1).unwrap(), Some(1));
            } else {
                o.close(0).unwrap();
            }
            o.settle().unwrap();
            if mode == Mode::Array {
                assert!(!o.binding_freed(), "the socket is still a user");
                o.close(0).unwrap();
                o.settle().unwrap();
            }
            assert!(o.binding_freed(), "{mode:?}");
            assert_eq!(o.out_of_pool(), 0);
            let states = o.states.as_ref().unwrap();
            assert_eq!(states.len(), o.trace.len() + 1, "Init, then a state per step");
        }
    }
}
