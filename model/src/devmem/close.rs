//! The end of a socket and of the run: Close and Done.

use super::config::{Config, Mode, Mutant};
use super::state::{Bst, Sock, State};

impl State {
    /// Close(s): close(), tcp_v4_destroy_sock(). Queued skbs are purged.
    /// Xarray mode: tcp_release_user_frags() drops every token's reference
    /// and empties the xarray (mutant dm-close-no-release: it does not);
    /// the application's tokens of s are void. Array mode: the tokens stay
    /// with the application, which may return them through another socket.
    pub fn close(&self, cfg: &Config, s: Sock) -> Option<State> {
        if !cfg.has_sock(s) {
            return None;
        }
        let si = cfg.sock_index(s);
        if !self.open[si] || self.pend[si].is_some() {
            return None;
        }
        let xarray = self.mode_of(s.b) == Mode::Xarray;
        let release = xarray && cfg.mutant != Mutant::CloseNoRelease;
        let mut dec = vec![0; self.ppref.len()];
        for k in &self.rxq[si] {
            dec[cfg.niov_index(k.niov)] += 1;
        }
        let mut t = self.clone();
        if release {
            for n in self.xa[si].iter().flatten() {
                dec[cfg.niov_index(*n)] += 1;
            }
            t.xa[si].fill(None);
        }
        // Lifetime: s puts its binding reference; the last user cleans.
        let had = cfg.lifetime && self.life.sref[si];
        t.clean(cfg, s.b, had && self.users(cfg, s.b) == 1, &mut dec);
        t.put(&dec);
        if xarray {
            t.user[si].fill(0);
        }
        t.open[si] = false;
        t.rxq[si].clear();
        if cfg.lifetime {
            t.life.sref[si] = false;
            t.release(self, cfg, s.b, i64::from(had));
            t.no_touch();
        }
        Some(t)
    }

    /// Done: every socket closed and no binding bound: nothing is left to
    /// do (a stutter step, which keeps TLC from reporting a deadlock).
    pub fn done(&self, _cfg: &Config) -> Option<State> {
        let over = self.open.iter().all(|o| !o) && self.bst.iter().all(|b| *b != Bst::Bound);
        over.then(|| self.clone())
    }
}
