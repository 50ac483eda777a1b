//! Copy-mode receive of one frame redirected to the RX socket:
//! xsk_generic_rcv -> xsk_rcv_check, __xsk_rcv, xsk_flush (net/xdp/xsk.c,
//! 6.12.117), single buffer.

use super::scenario::XDP_PACKET_HEADROOM;
use super::state::Model;

/// The tag read from a frame shorter than header + tag: none.
pub const NO_TAG: u32 = u32::MAX;

impl Model {
    /// libxdp fill: n addresses, all or nothing.
    pub(super) fn user_fill(&mut self, n: u32) -> bool {
        let addrs: Vec<u64> = (0..n as u64).map(|k| self.setup.fill_addr(self.fill_seq + k)).collect();
        let ok = self.fill.user_reserve(&addrs);
        if ok {
            self.fill_seq += n as u64;
        }
        ok
    }

    /// xp_alloc: the free list first, else the fill ring (__xp_alloc,
    /// which counts an empty ring in fq->queue_empty_descs).
    fn alloc(&mut self) -> Option<u64> {
        if let Some(a) = self.free_list.pop() {
            return Some(a);
        }
        match self.fill.kernel_peek() {
            None => {
                self.rx_stats.rx_fill_ring_empty_descs += 1;
                None
            }
            Some(addr) => {
                self.fill.cached_cons = self.fill.cached_cons.wrapping_add(1);
                // xp_check_aligned: the chunk start (fills are always in the umem).
                Some(addr & !(self.setup.frame_size as u64 - 1))
            }
        }
    }

    /// One frame of `len` bytes carrying `tag` arrives at the RX socket.
    pub(super) fn deliver(&mut self, len: u32, tag: u32) {
        // xsk_rcv_check: too long for a frame and no multi-buffer.
        if len > self.setup.rx_frame_len() {
            self.rx_stats.rx_dropped += 1;
            return;
        }
        match self.alloc() {
            // xsk_buff_alloc failed: rx_dropped++.
            None => self.rx_stats.rx_dropped += 1,
            Some(chunk) => {
                if self.rx.kernel_has_room() {
                    // xp_get_handle: the data's offset in the umem.
                    let addr = chunk + (XDP_PACKET_HEADROOM + self.setup.headroom) as u64;
                    self.rx.kernel_push((addr, len, 0));
                    self.rx_tags.insert(chunk, if len >= 18 { tag } else { NO_TAG });
                } else {
                    // __xsk_rcv_zc: rx_queue_full++, xsk_buff_free.
                    self.rx_stats.rx_ring_full += 1;
                    self.free_list.push(chunk);
                }
            }
        }
        // xsk_flush: publishes the RX producer (done by kernel_push) and
        // the fill ring's consumer.
        self.fill.cons = self.fill.cached_cons;
    }

    pub(super) fn consume_rx(&mut self, n: u32) -> Vec<(u64, u32, u32, u32)> {
        let fs = self.setup.frame_size as u64;
        self.rx
            .user_take(n)
            .into_iter()
            .map(|(addr, len, opt)| {
                let tag = if len >= 18 { self.rx_tags.get(&(addr & !(fs - 1))).copied().unwrap_or(NO_TAG) } else { NO_TAG };
                (addr, len, opt, tag)
            })
            .collect()
    }
}
