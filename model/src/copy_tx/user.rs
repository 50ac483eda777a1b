//! The application's actions.

use super::config::Config;
use super::state::{Call, Desc, Frame, Sock, Stage, State};

impl State {
    /// UserSubmit(s): fill a tx descriptor for a frame the application
    /// owns, with XDP_PKT_CONTD if `contd`, and submit it (libxdp's
    /// xsk_ring_prod__submit()).
    pub fn user_submit(
        &self,
        cfg: &Config,
        s: Sock,
        f: Frame,
        ok: bool,
        contd: bool,
    ) -> Option<State> {
        let si = s as usize;
        if self.tx_used(cfg, s) >= cfg.tx_size
            || !self.free.contains(&f)
            || (contd && !cfg.multi_buf)
        {
            return None;
        }
        let mut t = self.clone();
        t.tx[si].push(Desc { addr: f, ok, contd });
        t.free.remove(&f);
        Some(t)
    }

    /// Sendto(s): sendto(MSG_DONTWAIT); the kernel runs
    /// __xsk_generic_xmit() for s.
    pub fn sendto(&self, _cfg: &Config, s: Sock) -> Option<State> {
        let si = s as usize;
        if self.call[si].stage != Stage::Idle {
            return None;
        }
        let mut t = self.clone();
        t.call[si] = Call {
            stage: Stage::Loop,
            ..Call::IDLE
        };
        Some(t)
    }

    /// UserReap: take a completion and own the frame again (libxdp's
    /// xsk_ring_cons__peek() and xsk_ring_cons__release() on the
    /// completion ring).
    pub fn user_reap(&self, _cfg: &Config) -> Option<State> {
        let (&head, tail) = self.cq.split_first()?;
        let mut t = self.clone();
        t.free.insert(head);
        t.cq = tail.to_vec();
        Some(t)
    }
}
