//! Copy-mode receive of one frame redirected to an RX socket:
//! xsk_generic_rcv -> xsk_rcv_check, __xsk_rcv, xsk_flush (net/xdp/xsk.c,
//! 6.12.117), single buffer. With a shared umem both RX sockets take
//! buffers from the one pool (its free list, then its fill ring) under
//! pool->rx_lock.

use super::rx_chain::{Alloc, Rcv};
use super::scenario::{Stats, XdpAct, XDP_PACKET_HEADROOM};
use super::state::Model;
use crate::xsk_rx::Verdict;

/// The tag read from a frame shorter than header + tag: none.
pub const NO_TAG: u32 = u32::MAX;

impl Model {
    /// libxdp fill: n addresses, all or nothing.
    pub(super) fn user_fill(&mut self, n: u32) -> bool {
        let addrs: Vec<u64> = (0..n as u64).map(|k| self.setup.fill_addr(self.fill_seq + k)).collect();
        let ok = self.fill.user_reserve(&addrs);
        if ok {
            self.fill_seq += n as u64;
            self.note_fill(&addrs);
        }
        ok
    }

    /// xp_alloc: the free list first, else the fill ring (__xp_alloc,
    /// which counts an empty ring in fq->queue_empty_descs).
    fn alloc(&mut self) -> Option<u64> {
        if let Some(a) = self.free_list.pop() {
            self.note_alloc(Alloc::Free(a));
            return Some(a);
        }
        match self.fill.kernel_peek() {
            None => {
                self.fq_empty += 1;
                None
            }
            Some(addr) => {
                // xp_check_aligned: the chunk start (fills are always in the umem).
                let chunk = addr & !(self.setup.frame_size as u64 - 1);
                self.note_alloc(Alloc::Peek(chunk));
                self.fill.cached_cons = self.fill.cached_cons.wrapping_add(1);
                if ringlab_mutant::on("mutant-chain-rx-fq-released-early") {
                    // The fill ring's consumer published before the frame
                    // is on the RX ring, which only xsk_flush does.
                    self.fill.cons = self.fill.cached_cons;
                }
                self.note_alloc(Alloc::Take);
                Some(chunk)
            }
        }
    }

    /// XDP_STATISTICS of RX socket `s`.
    pub(super) fn rx_stats(&self, s: usize) -> Stats {
        let k = &self.rx[s];
        // xsk_getsockopt: xskq_nb_queue_empty_descs(xs->pool->fq).
        let empty = if ringlab_mutant::on("mutant-diff-rx-fq-per-socket") { k.fq_empty_own } else { self.fq_empty };
        Stats { rx_dropped: k.rx_dropped, rx_ring_full: k.rx_ring_full, rx_fill_ring_empty_descs: empty, ..Stats::default() }
    }

    /// A frame of `len` bytes from the peer, which the XDP program gives
    /// `act`; it carries the next injected tag whatever becomes of it.
    pub(super) fn inject(&mut self, len: u32, act: XdpAct) {
        let tag = self.inject_seq;
        self.inject_seq += 1;
        match act {
            XdpAct::Redirect if self.setup.rx_socket => self.deliver(0, len, tag),
            XdpAct::Redirect2 if self.rx.len() > 1 => self.deliver(1, len, tag),
            XdpAct::Drop => self.note_verdict(Verdict::Drop),
            // An empty XSKMAP entry: the program's fallback, XDP_PASS.
            XdpAct::Redirect | XdpAct::Redirect2 | XdpAct::Pass => self.note_verdict(Verdict::Pass),
        }
    }

    /// One frame of `len` bytes carrying `tag` arrives at RX socket `s`.
    pub(super) fn deliver(&mut self, s: usize, len: u32, tag: u32) {
        // xsk_rcv_check: too long for a frame and no multi-buffer.
        if len > self.setup.rx_frame_len() {
            self.rx[s].rx_dropped += 1;
            self.note_rcv(s, Rcv::TooLong);
            return;
        }
        self.note_rcv(s, Rcv::Locked);
        match self.alloc() {
            // xsk_buff_alloc failed: rx_dropped++.
            None => {
                self.rx[s].rx_dropped += 1;
                self.rx[s].fq_empty_own += 1;
                self.note_rcv(s, Rcv::AllocFail);
            }
            Some(chunk) => {
                // __xsk_rcv copies the frame in before __xsk_rcv_zc looks
                // for room: a buffer the application handed in twice can
                // be overwritten by a frame that is then dropped.
                self.rx_tags.insert(chunk, if len >= 18 { tag } else { NO_TAG });
                if self.rx[s].rx.kernel_has_room() {
                    // xp_get_handle: the data's offset in the umem.
                    let addr = chunk + (XDP_PACKET_HEADROOM + self.setup.headroom) as u64;
                    self.rx[s].rx.kernel_push((addr, len, 0));
                    self.note_rcv(s, Rcv::Reserved(chunk));
                } else {
                    // __xsk_rcv_zc: rx_queue_full++, xsk_buff_free.
                    self.rx[s].rx_ring_full += 1;
                    self.free_list.push(chunk);
                    self.note_rcv(s, Rcv::Full);
                }
            }
        }
        // xsk_flush: publishes the RX producer (done by kernel_push) and
        // the fill ring's consumer.
        self.fill.cons = self.fill.cached_cons;
        self.note_rcv(s, Rcv::Flushed);
    }

    /// Up to `n` descriptors of RX socket `s` (none if it has none).
    pub(super) fn consume_rx(&mut self, s: usize, n: u32) -> Vec<(u64, u32, u32, u32)> {
        let fs = self.setup.frame_size as u64;
        let Some(k) = self.rx.get_mut(s) else { return Vec::new() };
        let taken = k.rx.user_take(n);
        self.note_recv(s, taken.len());
        taken
            .into_iter()
            .map(|(addr, len, opt)| {
                let tag = if len >= 18 { self.rx_tags.get(&(addr & !(fs - 1))).copied().unwrap_or(NO_TAG) } else { NO_TAG };
                (addr, len, opt, tag)
            })
            .collect()
    }
}
