//! The kernel's per-descriptor loop, __xsk_generic_xmit() (BatchSize = 0),
//! and the completion queue operations every side uses.

use super::config::{Config, Design, DropFrags, Mutant, PublishFrags, TxResult};
use super::state::{drop_last, sub_seq, Call, Desc, Frame, Skb, Slot, Sock, Stage, State};

impl State {
    /// CqReserve(addrs): xsk_cq_reserve_addr_locked() (design a) or
    /// xsk_cq_reserve_locked() (design b), under pool->cq_lock.
    pub(super) fn cq_reserve(&mut self, cfg: &Config, addrs: &[Frame]) {
        self.resv
            .extend(addrs.iter().map(|&f| State::slot_for(cfg, f)));
    }

    /// CqCancel(n): xsk_cq_cancel_locked(), whose xskq_prod_cancel_n()
    /// gives back the LAST n reserved slots, whoever reserved them.
    pub(super) fn cq_cancel(&mut self, n: i64) {
        self.resv = drop_last(&self.resv, n);
    }

    /// CqSubmit(addrs): the skb destructor xsk_destruct_skb() publishes
    /// Len(addrs) completions: design a the first reserved slots
    /// (xskq_prod_submit_n), design b the skb's own addresses.
    pub(super) fn cq_submit(&mut self, cfg: &Config, addrs: &[Frame]) {
        let n = addrs.len() as i64;
        match cfg.design {
            Design::A => {
                let published = sub_seq(&self.resv, 1, n)
                    .into_iter()
                    .map(|slot| match slot {
                        Slot::Addr(f) => f,
                        Slot::Placeholder => unreachable!("design a reserves addresses"),
                    });
                self.cq.extend(published);
            }
            Design::B => self.cq.extend_from_slice(addrs),
        }
        self.resv = sub_seq(&self.resv, n + 1, self.resv.len() as i64);
    }

    /// EndCall(s): the sendto returns.
    pub(super) fn end_call(&mut self, s: Sock) {
        self.call[s as usize] = Call::IDLE;
    }

    /// Continue(s): the loop goes on to the next descriptor.
    pub(super) fn continue_call(&mut self, s: Sock) {
        let c = &mut self.call[s as usize];
        c.stage = Stage::Loop;
        c.pend = 0;
        c.done += 1;
    }

    /// The completions that leave with a dropped packet's `n` built
    /// fragments, and the reserved slots that remain: DropFrags "cancel"
    /// (xsk_drop_skb() cancels the last n reserved slots) or "complete".
    fn dropped(&self, cfg: &Config, addrs: &[Frame]) -> (Vec<Frame>, Vec<Slot>) {
        let n = addrs.len() as i64;
        if cfg.drop_frags == DropFrags::Cancel {
            return (Vec::new(), drop_last(&self.resv, n));
        }
        let mut t = self.clone();
        t.cq.clear();
        t.cq_submit(cfg, addrs);
        (t.cq, t.resv)
    }

    /// DropPacket(s, extra): xsk_drop_skb(xs->skb) with `extra`, the
    /// descriptor consumed in the same step.
    fn drop_packet(&mut self, cfg: &Config, s: Sock, extra: &[Frame]) {
        let si = s as usize;
        let addrs: Vec<Frame> = self.part[si].iter().chain(extra).copied().collect();
        let (done, resv) = self.dropped(cfg, &addrs);
        self.cq.extend(done);
        self.resv = resv;
        self.part[si].clear();
        self.pubd[si] = false;
    }

    /// SingleOk(r, c): xsk_cq_submit_addr_single_locked() may publish one
    /// address alone. Design a (6.12.117 xsk.c l.763): no reserved
    /// completion is in front of it. Design b (the series' patch 0002):
    /// a free slot, reserved slots being counts.
    fn single_ok(cfg: &Config, resv: &[Slot], cq: &[Frame]) -> bool {
        let free = cfg.cq_size as i64 - cq.len() as i64;
        match cfg.design {
            Design::A => resv.is_empty() && free > 0,
            Design::B => free - resv.len() as i64 > 0,
        }
    }

    /// InvalidDesc(s, d): the packet being built, if any, is dropped; then
    /// the invalid head descriptor is completed alone
    /// (xsk_cq_submit_addr_single_locked) if SingleOk allows, and counted
    /// in tx_invalid_descs; else the next sendto retries and drain
    /// remembers the rest of the packet must go too.
    /// invalid-no-completion consumes it without a completion.
    pub(super) fn invalid_desc(&mut self, cfg: &Config, s: Sock, d: Desc) {
        let si = s as usize;
        let more = !self.part[si].is_empty() || self.drain[si] || d.contd;
        let part = std::mem::take(&mut self.part[si]);
        let (done, resv) = self.dropped(cfg, &part);
        let mut cq = self.cq.clone();
        cq.extend(done);
        self.pubd[si] = false;
        if cfg.mutant == Mutant::InvalidNoCompletion {
            self.tx[si].remove(0);
            self.drain[si] = d.contd;
        } else if State::single_ok(cfg, &resv, &cq) {
            cq.push(d.addr);
            self.tx[si].remove(0);
            self.drain[si] = d.contd;
        } else {
            self.drain[si] = more;
        }
        self.cq = cq;
        self.resv = resv;
    }

    /// XmitReserve(s): the per-descriptor loop's head (BatchSize = 0).
    pub fn xmit_reserve(&self, cfg: &Config, s: Sock) -> Option<State> {
        if self.call[s as usize].stage != Stage::Loop || cfg.batch_size != 0 {
            return None;
        }
        Some(self.loop_head(cfg, s))
    }

    /// LoopHead(s): the head of __xsk_generic_xmit()'s loop in 6.12.117's
    /// order (xsk.c l.1012-1035): xskq_cons_peek_desc() validates the head
    /// descriptor and an invalid one ends the loop whatever the budget
    /// (l.1075); then the budget (max_batch-- == 0: EAGAIN), the rest of a
    /// dropped packet (xs->drain_cont), and the completion slot the
    /// descriptor needs before xsk_build_skb() (xsk_cq_reserve_addr_locked()).
    pub(super) fn loop_head(&self, cfg: &Config, s: Sock) -> State {
        let si = s as usize;
        let c = &self.call[si];
        let mut t = self.clone();
        let Some(&d) = self.tx[si].first() else {
            // The peek found the ring empty: xskq_cons_get_entries() has
            // published the consumer past part[s]'s fragments too.
            t.end_call(s);
            t.pubd[si] = cfg.publish_frags == PublishFrags::All && !self.part[si].is_empty();
            if cfg.mutant == Mutant::MbSendPartial && !self.part[si].is_empty() {
                t.flight.insert(Skb {
                    sock: s,
                    addrs: std::mem::take(&mut t.part[si]),
                    contd: true,
                });
            }
            return t;
        };
        if !d.ok {
            t.invalid_desc(cfg, s, d);
            t.end_call(s);
        } else if (c.done >= cfg.budget && cfg.mutant != Mutant::BudgetOverrun) || c.done > cfg.budget {
            t.end_call(s);
        } else if self.drain[si] {
            // xs->drain_cont: d belongs to a dropped packet and is
            // completed alone, if SingleOk allows.
            if State::single_ok(cfg, &self.resv, &self.cq) {
                t.cq.push(d.addr);
                t.tx[si].remove(0);
                t.drain[si] = d.contd;
                t.continue_call(s);
            } else {
                t.end_call(s);
            }
        } else if self.cq_free(cfg) == 0 {
            if cfg.mutant == Mutant::CqResvFail {
                // The skb was built first; its destructor submits a slot
                // that was never reserved.
                t.cq.push(d.addr);
                t.tx[si].remove(0);
            }
            t.end_call(s);
        } else if cfg.mutant == Mutant::SharedCqRace {
            t.call[si].stage = Stage::Reserving;
            t.call[si].snap = self.resv.len();
        } else {
            t.cq_reserve(cfg, &[d.addr]);
            t.call[si].stage = Stage::Reserved;
            t.call[si].pend = 1;
        }
        t
    }

    /// XmitReserveStore(s), xsk-shared-cq-race only: the store of the
    /// cached_prod read earlier, under a per-socket lock.
    pub fn xmit_reserve_store(&self, cfg: &Config, s: Sock) -> Option<State> {
        let si = s as usize;
        if self.call[si].stage != Stage::Reserving {
            return None;
        }
        let d = *self.tx[si].first().expect("Head(tx[s]) of an empty ring");
        let mut t = self.clone();
        t.resv = sub_seq(&self.resv, 1, self.call[si].snap as i64);
        t.resv.push(State::slot_for(cfg, d.addr));
        t.call[si].stage = Stage::Reserved;
        t.call[si].pend = 1;
        Some(t)
    }

    /// XmitAllocFail(s): sock_alloc_send_skb() in xsk_build_skb() failed;
    /// xsk_cq_cancel_locked() gives the slot back, EAGAIN
    /// (xsk-cq-leak-2019 keeps it).
    pub fn xmit_alloc_fail(&self, cfg: &Config, s: Sock) -> Option<State> {
        if self.call[s as usize].stage != Stage::Reserved || !cfg.alloc_fails {
            return None;
        }
        let mut t = self.clone();
        if cfg.mutant != Mutant::CqLeak2019 {
            t.cq_cancel(1);
        }
        t.end_call(s);
        Some(t)
    }

    /// XmitSend(s, o): xsk_build_skb(), then for a packet's last
    /// descriptor __dev_direct_xmit() with driver result o. A fragment,
    /// or one fragment too many (-EOVERFLOW), takes only o = "sent" (the
    /// spec's step has no choice there).
    pub fn xmit_send(&self, cfg: &Config, s: Sock, o: TxResult) -> Option<State> {
        let si = s as usize;
        if self.call[si].stage != Stage::Reserved || !cfg.outcomes.contains(&o) {
            return None;
        }
        let d = *self.tx[si].first().expect("Head(tx[s]) of an empty ring");
        let mut t = self.clone();
        let pkt: Vec<Frame> = self.part[si].iter().copied().chain([d.addr]).collect();
        if d.contd {
            if o != TxResult::Sent {
                return None;
            }
            if self.part[si].len() as i64 == cfg.max_frags - 1 {
                // -EOVERFLOW: the packet and d are dropped, d consumed,
                // and drain completes the rest.
                t.drop_packet(cfg, s, &[d.addr]);
                t.drain[si] = true;
            } else {
                // A fragment: xskq_cons_release(), xs->skb keeps it.
                t.part[si].push(d.addr);
            }
            t.tx[si].remove(0);
            t.continue_call(s);
            return Some(t);
        }
        t.part[si].clear();
        t.pubd[si] = false;
        match o {
            TxResult::Sent => {
                // xskq_cons_release(); the driver owns the skb.
                t.tx[si].remove(0);
                t.flight.insert(Skb {
                    sock: s,
                    addrs: pkt,
                    contd: false,
                });
                t.continue_call(s);
            }
            TxResult::Busy => {
                // NETDEV_TX_BUSY: xskq_cons_cancel_n() puts the packet's
                // descriptors back, xsk_consume_skb() cancels their slots;
                // EAGAIN. A consumer published past the fragments goes back.
                // txbusy-skb-kept: a driver that returns NETDEV_TX_BUSY
                // after queuing the skb keeps it and its slots.
                match cfg.mutant {
                    Mutant::TxBusyRollback => t.cq_submit(cfg, &pkt),
                    Mutant::TxBusySkbKept => {
                        t.flight.insert(Skb {
                            sock: s,
                            addrs: pkt.clone(),
                            contd: false,
                        });
                    }
                    _ => t.cq_cancel(pkt.len() as i64),
                }
                let frags = self.part[si].iter().map(|&addr| Desc {
                    addr,
                    ok: true,
                    contd: true,
                });
                t.tx[si] = frags.chain(self.tx[si].iter().copied()).collect();
                t.rewound[si] |= self.pubd[si];
                t.end_call(s);
            }
            TxResult::Drop => {
                // NET_XMIT_DROP: the destructor completes it; EBUSY.
                t.tx[si].remove(0);
                t.cq_submit(cfg, &pkt);
                t.end_call(s);
            }
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_tx::config::Design;

    fn single(design: Design) -> Config {
        Config {
            sockets: vec!["s1".into()],
            design,
            ..Config::design_b()
        }
    }

    /// Submit f0 and f1, send both (two skbs in flight).
    fn two_in_flight(cfg: &Config) -> State {
        let mut s = State::init(cfg);
        for f in [0, 1] {
            s = s.user_submit(cfg, 0, f, true, false).unwrap();
        }
        s = s.sendto(cfg, 0).unwrap();
        for _ in 0..2 {
            s = s.xmit_reserve(cfg, 0).unwrap();
            s = s.xmit_send(cfg, 0, TxResult::Sent).unwrap();
        }
        s
    }

    #[test]
    fn design_a_publishes_the_first_reserved_slot() {
        let cfg = single(Design::A);
        let s = two_in_flight(&cfg);
        assert_eq!(s.resv, [Slot::Addr(0), Slot::Addr(1)]);
        // The driver frees f1's skb first: the destructor publishes f0.
        let t = s.driver_free(&cfg, 1, 0).unwrap();
        assert_eq!(
            (t.cq.as_slice(), t.resv.as_slice()),
            (&[0][..], &[Slot::Addr(1)][..])
        );
        assert_eq!(t.violated(&cfg), Some("NoImmatureCompletion"));
    }

    #[test]
    fn design_b_publishes_the_skbs_own_address() {
        let cfg = single(Design::B);
        let s = two_in_flight(&cfg);
        assert_eq!(s.resv, [Slot::Placeholder; 2]);
        let t = s.driver_free(&cfg, 1, 0).unwrap();
        assert_eq!((t.cq.as_slice(), t.resv.len()), (&[1][..], 1));
        assert_eq!(t.violated(&cfg), None);
        assert_eq!(t.driver_free(&cfg, 1, 0), None);
    }

    #[test]
    fn an_invalid_head_is_handled_whatever_the_budget() {
        let cfg = Config {
            cq_size: 3,
            ..single(Design::B)
        };
        let s = two_in_flight(&cfg).user_submit(&cfg, 0, 2, false, false).unwrap();
        let t = s.xmit_reserve(&cfg, 0).unwrap();
        assert_eq!((t.call[0].stage, t.tx[0].len(), t.cq.as_slice()), (Stage::Idle, 0, &[2][..]));
    }

    #[test]
    fn design_b_completes_alone_past_reserved_slots() {
        for design in [Design::A, Design::B] {
            let cfg = Config {
                cq_size: 3,
                ..single(design)
            };
            // f0 sent (its slot still reserved), then an invalid f2.
            let mut s = State::init(&cfg).user_submit(&cfg, 0, 0, true, false).unwrap();
            s = s.sendto(&cfg, 0).unwrap().xmit_reserve(&cfg, 0).unwrap();
            s = s.xmit_send(&cfg, 0, TxResult::Sent).unwrap();
            s = s.user_submit(&cfg, 0, 2, false, false).unwrap();
            let t = s.xmit_reserve(&cfg, 0).unwrap();
            assert_eq!(t.cq.contains(&2), design == Design::B, "design {design:?}");
        }
    }

    #[test]
    fn budget_ends_the_call() {
        let cfg = Config {
            cq_size: 3,
            ..single(Design::B)
        };
        let s = two_in_flight(&cfg).user_submit(&cfg, 0, 2, true, false).unwrap();
        let t = s.xmit_reserve(&cfg, 0).unwrap();
        assert_eq!((t.call[0].stage, t.tx[0].len()), (Stage::Idle, 1));
        let over = Config {
            mutant: Mutant::BudgetOverrun,
            ..cfg.clone()
        };
        let t = s.xmit_reserve(&over, 0).unwrap();
        let t = t.xmit_send(&over, 0, TxResult::Sent).unwrap();
        assert_eq!(t.violated(&over), Some("BudgetPerCall"));
    }

    #[test]
    fn busy_cancels_the_slot_and_keeps_the_descriptor() {
        let cfg = single(Design::B);
        let mut s = State::init(&cfg).user_submit(&cfg, 0, 2, true, false).unwrap();
        s = s.sendto(&cfg, 0).unwrap().xmit_reserve(&cfg, 0).unwrap();
        let t = s.xmit_send(&cfg, 0, TxResult::Busy).unwrap();
        assert_eq!(
            (t.tx[0].len(), t.resv.len(), t.call[0].stage),
            (1, 0, Stage::Idle)
        );
        let rollback = Config {
            mutant: Mutant::TxBusyRollback,
            ..cfg
        };
        let t = s.xmit_send(&rollback, 0, TxResult::Busy).unwrap();
        assert_eq!(t.violated(&rollback), Some("NoDoubleCompletion"));
    }
}
