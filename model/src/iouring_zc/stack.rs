//! The network stack and the end of the run: SkbFree and Done.

use super::config::Config;
use super::notif::put;
use super::state::{Skb, SkbId, St, State};

impl State {
    /// SkbFree(k): the stack frees skb k, in any order
    /// (skb_zcopy_clear): the reference it holds is put.
    pub fn skb_free(&self, cfg: &Config, k: SkbId) -> Option<State> {
        if !cfg.skb_ids().contains(&k) {
            return None;
        }
        let uarg = self.skb_of(k).uarg;
        if uarg == 0 {
            return None;
        }
        let mut t = self.clone();
        t.skb[usize::from(k) - 1] = Skb::none();
        let (mut d, mut tw) = (self.nd.clone(), self.tw.clone());
        put(&mut d, &mut tw, uarg);
        t.release(cfg, d, tw);
        Some(t)
    }

    /// Done: Quiescent and every request done: a finished run stutters
    /// (which keeps TLC from reporting a deadlock).
    pub fn done(&self, _cfg: &Config) -> Option<State> {
        (self.quiescent() && self.st.iter().all(|s| *s == St::Done)).then(|| self.clone())
    }
}
