//! The application and the socket's life: UserFill, UserRecv, XskBind,
//! XskMapUpdate, XskRelease, XskReleaseDone.

use super::config::{Config, Mutant, Redirect};
use super::state::{si, Buf, Sock, Sst, State};

impl State {
    /// UserFill with buffer b: xsk_ring_prod__reserve/submit on the fill
    /// ring; room is what the kernel has published as consumed
    /// (Len(fq) + fqHeld < FqSize; rx-fill-overrun: not checked).
    pub fn user_fill(&self, cfg: &Config, b: Buf) -> Option<State> {
        let room = self.fq.len() as u32 + self.fq_held < cfg.fq_size;
        if !(room || cfg.mutant == Mutant::RxFillOverrun) || !self.ufree.contains(&b) {
            return None;
        }
        let mut t = self.clone();
        t.fq.push(b);
        t.ufree.remove(&b);
        Some(t)
    }

    /// UserRecv(s): xsk_ring_cons__peek/release on s's rx ring, published
    /// descriptors only; the buffer is the application's again.
    pub fn user_recv(&self, cfg: &Config, s: Sock) -> Option<State> {
        if !(1..=cfg.n_sockets).contains(&s) || self.rx_pub[si(s)] == 0 {
            return None;
        }
        let mut t = self.clone();
        let d = t.rx[si(s)].remove(0);
        t.ufree.insert(d.buf);
        t.rx_pub[si(s)] -= 1;
        Some(t)
    }

    /// XskBind(s): xsk_bind() of a LateBind socket. With the fast path the
    /// queue keeps s in netdev_rx_queue if no other socket is bound and s
    /// has an Rx ring (RxqEligible), and none once a second one is
    /// (rxq-xsk-two-sockets: it keeps the first).
    pub fn xsk_bind(&self, cfg: &Config, s: Sock) -> Option<State> {
        if !(1..=cfg.n_sockets).contains(&s) || self.st_of(s) != Sst::Unbound {
            return None;
        }
        let mut t = self.clone();
        t.st[si(s)] = Sst::Bound;
        t.rxq_xsk = if cfg.redirect == Redirect::Map {
            self.rxq_xsk
        } else if cfg
            .sockets()
            .filter(|&o| o != s)
            .all(|o| self.st_of(o) != Sst::Bound)
        {
            if cfg.rxq_eligible(s) {
                s
            } else {
                0
            }
        } else if cfg.mutant == Mutant::RxqXskTwoSockets {
            self.rxq_xsk
        } else {
            0
        };
        Some(t)
    }

    /// XskMapUpdate(k, s): bpf_map_update_elem() of socket s, bound or
    /// not, into XSKMAP entry k, replacing the socket there (which stays
    /// bound); without Remap only a socket into its own empty entry.
    pub fn xsk_map_update(&self, cfg: &Config, k: Sock, s: Sock) -> Option<State> {
        if !(1..=cfg.n_sockets).contains(&s)
            || !(1..=cfg.n_sockets).contains(&k)
            || !matches!(self.st_of(s), Sst::Unbound | Sst::Bound)
            || self.map[si(k)] == s
            || !(cfg.remap || (k == s && self.map[si(k)] == 0))
        {
            return None;
        }
        let mut t = self.clone();
        t.map[si(k)] = s;
        Some(t)
    }

    /// XskRelease(s): close(), xsk_release(): s leaves every XSKMAP entry
    /// naming it (xskmap-release-own-entry: entry s only),
    /// xsk_unbind_dev() sets XSK_UNBOUND and takes s out of
    /// netdev_rx_queue (rxq-xsk-stale: it stays there).
    pub fn xsk_release(&self, cfg: &Config, s: Sock) -> Option<State> {
        if !cfg.closes || !(1..=cfg.n_sockets).contains(&s) || self.st_of(s) != Sst::Bound {
            return None;
        }
        let mut t = self.clone();
        t.st[si(s)] = Sst::Unbinding;
        for (k, e) in t.map.iter_mut().enumerate() {
            if *e == s && (cfg.mutant != Mutant::XskmapReleaseOwnEntry || k == si(s)) {
                *e = 0;
            }
        }
        if self.rxq_xsk == s && cfg.mutant != Mutant::RxqXskStale {
            t.rxq_xsk = 0;
        }
        Some(t)
    }

    /// XskReleaseDone(s): synchronize_net() returned, no receive, flush
    /// list, driver slot or batch holds s (rx-release-no-sync: without waiting);
    /// s and its rings are freed and the buffers on its rx ring are the
    /// application's again.
    pub fn xsk_release_done(&self, cfg: &Config, s: Sock) -> Option<State> {
        if !(1..=cfg.n_sockets).contains(&s) || self.st_of(s) != Sst::Unbinding {
            return None;
        }
        let unheld = (0..self.cpu.len()).all(|c| {
            self.cpu[c].sock != s
                && !self.flush[c].contains(&s)
                && self.fast_xs[c] != s
                && self.pend[c].iter().all(|e| e.sock != s)
        });
        if cfg.mutant != Mutant::RxReleaseNoSync && !unheld {
            return None;
        }
        let mut t = self.clone();
        t.st[si(s)] = Sst::Freed;
        let ring = std::mem::take(&mut t.rx[si(s)]);
        t.ufree.extend(ring.iter().map(|d| d.buf));
        t.rx_pub[si(s)] = 0;
        Some(t)
    }
}
