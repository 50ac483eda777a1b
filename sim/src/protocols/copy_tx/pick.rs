//! The choice policy: the actor (the application, the driver, a socket's
//! kernel side) drawn with even odds, then its action with weights. The
//! deterministic scheduler draws through it; the real-thread runner's
//! socket threads draw their sendto steps with [`socket_choices_into`].

use ringlab_model::copy_tx::{Action, Frame, Sock, Stage, TxResult};
use ringlab_model::rng::Rng;

use super::config::CopyTxConfig;
use super::sock::XskSock;
use super::system::CopyTx;
use super::umem::is_contd;

/// What socket k's kernel side may do now, with weights: the stage of its
/// call decides; failures and the driver's other outcomes are rare.
pub fn socket_choices(k: &XskSock, cfg: &CopyTxConfig) -> Vec<(Action, u32)> {
    let mut a = Vec::new();
    socket_choices_into(k, cfg, &mut a);
    a
}

/// [`socket_choices`] into `a` (emptied first), whose allocation a
/// thread making step after step keeps.
pub fn socket_choices_into(k: &XskSock, cfg: &CopyTxConfig, a: &mut Vec<(Action, u32)>) {
    let s = k.id as u8;
    let fails = cfg.spec.alloc_fails;
    let outcomes = &cfg.spec.outcomes;
    let weight = |o: TxResult| if o == TxResult::Sent { 8 } else { 1 };
    a.clear();
    match k.call.stage {
        Stage::Idle => a.push((Action::Sendto { s }, 1)),
        Stage::Loop if cfg.spec.batch_size > 0 => a.push((Action::XmitBatchReserve { s }, 1)),
        Stage::Loop => a.push((Action::XmitReserve { s }, 1)),
        Stage::Reserving => a.push((Action::XmitReserveStore { s }, 1)),
        Stage::Reserved if is_contd(&k.peeked()) => {
            // A fragment: built into xs->skb, not transmitted.
            if fails {
                a.push((Action::XmitAllocFail { s }, 1));
            }
            a.push((
                Action::XmitSend {
                    s,
                    o: TxResult::Sent,
                },
                8,
            ));
        }
        Stage::Reserved => {
            if fails {
                a.push((Action::XmitAllocFail { s }, 1));
            }
            a.extend(
                outcomes
                    .iter()
                    .map(|&o| (Action::XmitSend { s, o }, weight(o))),
            );
        }
        Stage::BReserved => {
            let pend = k.call.pend as i64;
            if fails {
                a.push((Action::XmitBatchAllocFail { s }, 1));
                a.extend((1..pend).map(|j| (Action::XmitBatchAlloc { s, j }, 1)));
            }
            a.push((Action::XmitBatchAlloc { s, j: pend }, 8));
        }
        Stage::BSend => {
            a.extend(
                outcomes
                    .iter()
                    .map(|&o| (Action::XmitBatchSend { s, o }, weight(o))),
            );
        }
    }
}

impl CopyTx {
    /// An actor with even odds, then one of its actions by weight; None
    /// if nothing is enabled (never: an idle socket may always sendto).
    pub(crate) fn pick(&mut self, rng: &mut Rng) -> Option<Action> {
        let actors = self.choices(rng);
        if actors.is_empty() {
            return None;
        }
        let actor = &actors[rng.below(actors.len() as u32) as usize];
        let weights: Vec<u32> = actor.iter().map(|(_, w)| *w).collect();
        Some(actor[rng.weighted(&weights)].0)
    }

    /// The actions the application, the driver and each socket may take
    /// now, each actor's with weights.
    fn choices(&mut self, rng: &mut Rng) -> Vec<Vec<(Action, u32)>> {
        let mut actors = Vec::new();
        let mut user = Vec::new();
        if self.app.cq_avail() > 0 {
            user.push((Action::UserReap, 4));
        }
        let free: Vec<u32> = self.app.free.iter().copied().collect();
        for s in 0..self.socks.len() {
            if free.is_empty() || self.app.tx_room(s) == 0 {
                continue;
            }
            let f = free[rng.below(free.len() as u32) as usize];
            let (one, more) = (self.app.may_submit(s, false), self.app.may_submit(s, true));
            let (s, f) = (s as Sock, f as Frame);
            let submit = |ok, contd| Action::UserSubmit { s, f, ok, contd };
            if one {
                user.push((submit(true, false), 6));
                user.push((submit(false, false), 1));
            }
            if more {
                // XDP_PKT_CONTD: a fragment of a packet, rarely an invalid one.
                user.push((submit(true, true), 6));
                user.push((submit(false, true), 1));
            }
        }
        actors.push(user);
        actors.push(
            self.skbs()
                .into_iter()
                .map(|(f, sock)| (Action::DriverFree { f, sock }, 1))
                .collect(),
        );
        for k in &self.socks {
            actors.push(socket_choices(k, &self.cfg));
        }
        actors.retain(|a| !a.is_empty());
        actors
    }

    /// The skbs in flight, as the driver names them: their first frame
    /// and their socket.
    pub(crate) fn skbs(&self) -> Vec<(Frame, Sock)> {
        self.pool.in_flight(|q| {
            q.iter()
                .map(|k| {
                    (
                        self.pool.umem.frame(k.addrs[0]).unwrap_or(0) as Frame,
                        k.sock as Sock,
                    )
                })
                .collect()
        })
    }
}
