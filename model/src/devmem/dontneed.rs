//! Returning tokens: Dontneed (Examined, DontneedXarray, DontneedArray,
//! ReleaseUser), and the two halves of zcrx-uref-race's release,
//! DontneedRead and DontneedPut.

use std::collections::BTreeSet;

use super::config::{Config, Mode, Mutant};
use super::state::{Sock, State, Stolen, Tok};

impl State {
    /// Examined(t, c): the tokens one SO_DEVMEM_DONTNEED examines, t ..
    /// t + k - 1 where k = min(c, DontneedLimit) (dm-dontneed-loop: c).
    pub fn examined(cfg: &Config, t: Tok, c: u32) -> std::ops::Range<u64> {
        let k = if cfg.mutant == Mutant::DontneedLoop {
            c
        } else {
            c.min(cfg.dontneed_limit)
        };
        u64::from(t)..u64::from(t) + u64::from(k)
    }

    /// Dontneed(s, t, c): setsockopt(SO_DEVMEM_DONTNEED),
    /// sock_devmem_dontneed(), with one dmabuf_token {token_start = t,
    /// token_count = c}. Disabled in array mode under zcrx-uref-race, whose
    /// release is DontneedRead then DontneedPut.
    pub fn dontneed(&self, cfg: &Config, s: Sock, t: Tok, c: u32) -> Option<State> {
        if !cfg.has_sock(s) || t >= cfg.toks() || c == 0 || c > cfg.max_count {
            return None;
        }
        let mode = self.mode_of(s.b);
        if !self.open[cfg.sock_index(s)] || (cfg.mutant == Mutant::UrefRace && mode == Mode::Array)
        {
            return None;
        }
        // Lifetime, array mode: the tokens index the binding s received
        // from; none yet: -EINVAL.
        if cfg.lifetime && mode == Mode::Array && !self.life.sref[cfg.sock_index(s)] {
            return None;
        }
        let r = State::examined(cfg, t, c);
        let mut next = self.clone();
        if cfg.lifetime {
            next.no_touch();
            next.life.tbind[usize::from(s.b)] = mode == Mode::Array;
        }
        next.work = (r.end - r.start) as u32;
        match mode {
            Mode::Xarray => next.dontneed_xarray(self, cfg, s, r),
            Mode::Array => next.dontneed_array(self, cfg, s, r),
        }
        Some(next)
    }

    /// DontneedXarray(s, R): each id of R found in s's own xarray is
    /// erased (xa_erase) and its reference dropped. `self` is the new
    /// state, `old` the state the action starts from.
    fn dontneed_xarray(&mut self, old: &State, cfg: &Config, s: Sock, r: std::ops::Range<u64>) {
        let si = cfg.sock_index(s);
        let mut dec = vec![0; old.ppref.len()];
        for id in r.filter(|&id| id < u64::from(cfg.toks())) {
            let id = id as usize;
            if let Some(n) = old.xa[si][id] {
                dec[cfg.niov_index(n)] += 1;
                self.xa[si][id] = None;
                self.user[si][id] = 0;
            }
        }
        self.put(&dec);
    }

    /// DontneedArray(s, R): each index of R whose uref is positive is
    /// decremented in one step (atomic_dec_if_positive) and its reference
    /// dropped. The token may have been handed to another socket.
    fn dontneed_array(&mut self, old: &State, cfg: &Config, s: Sock, r: std::ops::Range<u64>) {
        let mut dec = vec![0; old.ppref.len()];
        let mut hit = BTreeSet::new();
        for n in cfg.niovs_of(s.b) {
            let k = cfg.niov_index(n);
            if r.contains(&u64::from(n.i)) && old.uref[k] > 0 {
                dec[k] = 1;
                self.uref[k] -= 1;
                hit.insert(Tok::from(n.i));
            }
        }
        self.release_user(old, cfg, s, &hit);
        self.put(&dec);
    }

    /// ReleaseUser(s, hit): the application gives back, for each index of
    /// hit, one token of Holder(s, i); one received through another socket
    /// is recorded in `stolen`.
    fn release_user(&mut self, old: &State, cfg: &Config, s: Sock, hit: &BTreeSet<Tok>) {
        for &i in hit {
            let o = old.holder(cfg, s, i);
            let oi = cfg.sock_index(o);
            if old.user[oi][i as usize] > 0 {
                self.user[oi][i as usize] = old.user[oi][i as usize] - 1;
            }
            if o != s {
                self.stolen.insert(Stolen {
                    tok: i,
                    by: s,
                    from: o,
                });
            }
        }
    }

    /// DontneedRead(s, t): zcrx-uref-race (the pattern of io_uring/zcrx's
    /// scrub/refill race): the release through s reads uref > 0 for index
    /// t and has not decremented it yet.
    pub fn dontneed_read(&self, cfg: &Config, s: Sock, t: Tok) -> Option<State> {
        if cfg.mutant != Mutant::UrefRace || cfg.lifetime || !cfg.has_sock(s) || t >= cfg.toks() {
            return None;
        }
        let si = cfg.sock_index(s);
        if self.mode_of(s.b) != Mode::Array || !self.open[si] || self.pend[si].is_some() {
            return None;
        }
        if t >= Tok::from(cfg.niovs_per) {
            return None;
        }
        let n = super::state::Niov { b: s.b, i: t as u8 };
        if self.uref[cfg.niov_index(n)] <= 0 {
            return None;
        }
        let mut next = self.clone();
        next.pend[si] = Some(t);
        next.work = 1;
        Some(next)
    }

    /// DontneedPut(s): zcrx-uref-race: the release DontneedRead began
    /// decrements uref, gives the token back and drops its reference,
    /// whatever happened in between (unbind's exchange to zero).
    pub fn dontneed_put(&self, cfg: &Config, s: Sock) -> Option<State> {
        if !cfg.has_sock(s) {
            return None;
        }
        let si = cfg.sock_index(s);
        let t = self.pend[si]?;
        let n = super::state::Niov { b: s.b, i: t as u8 };
        let k = cfg.niov_index(n);
        let mut next = self.clone();
        next.uref[k] -= 1;
        next.release_user(self, cfg, s, &BTreeSet::from([t]));
        let mut dec = vec![0; self.ppref.len()];
        dec[k] = 1;
        next.put(&dec);
        next.pend[si] = None;
        Some(next)
    }
}
