//! The drain policy: to a quiescent point in rounds. A round finishes
//! every call, lets the driver free every skb (in an order drawn from the
//! seed), takes every completion and ends every open packet; if a tx ring
//! still holds descriptors, each such socket makes a sendto and another
//! round begins. Every step is a spec step, checked as any other.

use std::collections::VecDeque;

use ringlab_model::copy_tx::{Action, Frame, Stage, TxResult};
use ringlab_model::rng::Rng;
use ringlab_ring::sync::Ordering::Relaxed;
use ringlab_ring::RingMem;

use super::system::CopyTx;

/// Where the drain is: the sockets still to sendto this round, and the
/// rounds begun.
#[derive(Debug, Default)]
pub struct Drain {
    sendto: VecDeque<usize>,
    rounds: usize,
}

impl CopyTx {
    /// The next step of the drain; None once nothing is left to send.
    pub(crate) fn drain_next(&mut self, rng: &mut Rng) -> Result<Option<Action>, String> {
        if let Some(k) = self.drain.sendto.pop_front() {
            return Ok(Some(Action::Sendto { s: k as u8 }));
        }
        let n = self.socks.len();
        let most = 8 * (self.cfg.frames() + n) + 16;
        if self.drain.rounds == most {
            return Err(format!("not drained after {most} rounds"));
        }
        if let Some(a) = (0..n).find_map(|k| self.finishing(k)) {
            return Ok(Some(a));
        }
        let skbs = self.skbs();
        if !skbs.is_empty() {
            let (f, sock) = skbs[rng.below(skbs.len() as u32) as usize];
            return Ok(Some(Action::DriverFree { f, sock }));
        }
        if self.app.cq_avail() > 0 {
            return Ok(Some(Action::UserReap));
        }
        if let Some(a) = (0..n).find_map(|k| self.ending(k)) {
            return Ok(Some(a));
        }
        let pending: VecDeque<usize> = (0..n)
            .filter(|&k| {
                let t = &self.socks[k].tx;
                t.ring().producer().load(Relaxed) != t.cached_cons()
            })
            .collect();
        if pending.is_empty() {
            return Ok(None);
        }
        self.drain.rounds += 1;
        self.drain.sendto = pending;
        Ok(self.drain.sendto.pop_front().map(|k| Action::Sendto { s: k as u8 }))
    }

    /// The step that takes socket k's call forward without failing.
    fn finishing(&self, k: usize) -> Option<Action> {
        let c = &self.socks[k].call;
        let s = k as u8;
        let o = TxResult::Sent;
        Some(match c.stage {
            Stage::Idle => return None,
            Stage::Loop if self.cfg.spec.batch_size > 0 => Action::XmitBatchReserve { s },
            Stage::Loop => Action::XmitReserve { s },
            Stage::Reserving => Action::XmitReserveStore { s },
            Stage::Reserved => Action::XmitSend { s, o },
            Stage::BReserved => Action::XmitBatchAlloc {
                s,
                j: c.pend as i64,
            },
            Stage::BSend => Action::XmitBatchSend { s, o },
        })
    }

    /// The last descriptor of socket k's open packet, if the application
    /// has a frame and the ring a slot for it.
    fn ending(&mut self, k: usize) -> Option<Action> {
        let app = &mut self.app;
        let f = *app.free.iter().next()?;
        (!app.open[k].is_empty() && app.tx_room(k) > 0).then_some(Action::UserSubmit {
            s: k as u8,
            f: f as Frame,
            ok: true,
            contd: false,
        })
    }
}
