//! poll(2) on a copy-mode socket (xsk_poll, net/xdp/xsk.c 6.12.117
//! l.1218-1249), and XDP_STATISTICS read with a given optlen
//! (xsk_getsockopt l.1713-1748).

use super::scenario::Stats;
use super::state::Model;

/// EPOLLIN | EPOLLRDNORM: the RX ring holds descriptors.
pub const POLLIN_MASK: u32 = 0x001 | 0x040;
/// EPOLLOUT | EPOLLWRNORM: the TX ring is at most half full.
pub const POLLOUT_MASK: u32 = 0x004 | 0x100;

const EINVAL: i32 = 22;
/// sizeof(struct xdp_statistics_v1): rx_dropped, rx_invalid_descs,
/// tx_invalid_descs.
const STATS_V1_LEN: u32 = 24;
/// sizeof(struct xdp_statistics): v1 and rx_ring_full,
/// rx_fill_ring_empty_descs, tx_ring_empty_descs.
const STATS_LEN: u32 = 48;

impl Model {
    /// poll on the TX socket. pool->cached_need_wakeup always holds
    /// XDP_WAKEUP_TX in copy mode (xp_assign_dev, xsk_buff_pool.c:207), so
    /// xsk_poll calls xsk_generic_xmit (l.1239, result ignored), then
    /// reports EPOLLOUT if xsk_tx_writeable: the published producer minus
    /// the published consumer (xskq_cons_present_entries) at most half the
    /// ring (l.338). This socket has no RX ring, so never EPOLLIN.
    pub(super) fn poll_tx(&mut self) -> u32 {
        self.sendto(0);
        let tx = &self.socks[0].tx;
        if tx.prod.wrapping_sub(tx.cons) > tx.size / 2 {
            0
        } else {
            POLLOUT_MASK
        }
    }

    /// poll on the RX socket: no TX ring, so no transmit; EPOLLIN unless
    /// the RX ring's published consumer equals its producer
    /// (xskq_prod_is_empty, l.1242).
    pub(super) fn poll_rx(&self) -> u32 {
        if !self.setup.rx_socket || self.rx[0].rx.prod == self.rx[0].rx.cons {
            0
        } else {
            POLLIN_MASK
        }
    }
}

/// What getsockopt(XDP_STATISTICS) writes for an optlen of `len`: less
/// than the v1 struct is -EINVAL; less than the full struct gives v1 with
/// rx_queue_full folded into rx_dropped (l.1736); anything longer the full
/// struct, its size put back in optlen.
pub fn stats_words(s: &Stats, len: u32) -> Result<Vec<u64>, i32> {
    if len < STATS_V1_LEN {
        return Err(EINVAL);
    }
    if len < STATS_LEN {
        return Ok(vec![s.rx_dropped + s.rx_ring_full, s.rx_invalid_descs, s.tx_invalid_descs]);
    }
    Ok(vec![
        s.rx_dropped,
        s.rx_invalid_descs,
        s.tx_invalid_descs,
        s.rx_ring_full,
        s.rx_fill_ring_empty_descs,
        s.tx_ring_empty_descs,
    ])
}
