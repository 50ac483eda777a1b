//! Seed 000's batch (BatchSize > 0): read up to BatchSize descriptors,
//! reserve their completion slots at once, allocate skbs in bulk (some may
//! fail), cancel the unused slots, transmit with xmit_more on all but the
//! last. What a batch cannot take goes through the per-descriptor loop's
//! head (xmit.rs), one descriptor at a time.

use super::config::{Config, TxResult};
use super::state::{sub_seq, Desc, Frame, Skb, Sock, Stage, State};

impl State {
    /// ValidPrefix(s, n): the descriptors at the head of s's tx ring a
    /// batch takes, at most n: valid and without XDP_PKT_CONTD
    /// (xskq_cons_peek_desc_batch() stops at any option).
    pub fn valid_prefix(&self, s: Sock, n: i64) -> Vec<Desc> {
        let q = &self.tx[s as usize];
        let most = n.clamp(0, q.len() as i64) as usize;
        q[..most].iter().take_while(|d| d.ok && !d.contd).copied().collect()
    }

    /// BatchRun(s): what a batch takes now: nothing while a packet is
    /// being built or drained (xsk_xmit_batch_ready()), else the valid
    /// prefix within the batch size and the budget left.
    pub fn batch_run(&self, cfg: &Config, s: Sock) -> Vec<Desc> {
        let si = s as usize;
        if !self.part[si].is_empty() || self.drain[si] {
            return Vec::new();
        }
        self.valid_prefix(s, cfg.batch_size.min(cfg.budget - self.call[si].done))
    }

    /// XmitBatchReserve(s): the loop's head with batching: a batch when
    /// one is ready, its slots reserved with one xsk_cq_reserve_locked()
    /// (none free: the call ends); otherwise one iteration of the
    /// per-descriptor loop (LoopHead).
    pub fn xmit_batch_reserve(&self, cfg: &Config, s: Sock) -> Option<State> {
        let si = s as usize;
        if self.call[si].stage != Stage::Loop || cfg.batch_size <= 0 {
            return None;
        }
        let want = self.batch_run(cfg, s);
        if want.is_empty() {
            return Some(self.loop_head(cfg, s));
        }
        let k = (want.len() as i64).min(self.cq_free(cfg));
        let mut t = self.clone();
        if k <= 0 {
            t.end_call(s);
        } else {
            let addrs: Vec<Frame> = sub_seq(&want, 1, k).iter().map(|d| d.addr).collect();
            t.cq_reserve(cfg, &addrs);
            t.call[si].stage = Stage::BReserved;
            t.call[si].pend = k;
        }
        Some(t)
    }

    /// XmitBatchAlloc(s, j): the bulk skb allocation got j >= 1 of the pend
    /// skbs (all of them unless allocations can fail); xsk_cq_cancel_locked()
    /// gives back the other slots and xskq_cons_release_n() takes the j
    /// descriptors into the batch.
    pub fn xmit_batch_alloc(&self, cfg: &Config, s: Sock, j: i64) -> Option<State> {
        let si = s as usize;
        let pend = self.call[si].pend;
        let allowed = if cfg.alloc_fails {
            (1..=pend).contains(&j)
        } else {
            j == pend
        };
        if self.call[si].stage != Stage::BReserved || !allowed {
            return None;
        }
        let mut t = self.clone();
        t.cq_cancel(pend - j);
        let q = &self.tx[si];
        t.tx[si] = sub_seq(q, j + 1, q.len() as i64);
        let c = &mut t.call[si];
        c.stage = Stage::BSend;
        c.pend = 0;
        c.batch = sub_seq(q, 1, j);
        Some(t)
    }

    /// XmitBatchAllocFail(s): the bulk allocation got nothing;
    /// xsk_cq_cancel_locked() gives back every slot, EAGAIN.
    pub fn xmit_batch_alloc_fail(&self, cfg: &Config, s: Sock) -> Option<State> {
        let si = s as usize;
        if self.call[si].stage != Stage::BReserved || !cfg.alloc_fails {
            return None;
        }
        let mut t = self.clone();
        t.cq_cancel(self.call[si].pend);
        t.end_call(s);
        Some(t)
    }

    /// XmitBatchSend(s, o): __dev_direct_xmit() of the batch's next skb
    /// (xmit_more unless it is the last), with driver result o.
    pub fn xmit_batch_send(&self, cfg: &Config, s: Sock, o: TxResult) -> Option<State> {
        let si = s as usize;
        if self.call[si].stage != Stage::BSend || !cfg.outcomes.contains(&o) {
            return None;
        }
        let b = &self.call[si].batch;
        let d = *b.first().expect("Head(call[s].batch) of an empty batch");
        let rest = b[1..].to_vec();
        let back = |t: &mut State, descs: &[Desc]| {
            t.tx[si] = descs.iter().chain(&self.tx[si]).copied().collect();
        };
        let mut t = self.clone();
        match o {
            TxResult::Sent => {
                t.flight.insert(Skb {
                    sock: s,
                    addrs: vec![d.addr],
                    contd: false,
                });
                let c = &mut t.call[si];
                c.batch = rest;
                c.done += 1;
                c.stage = if b.len() == 1 {
                    Stage::Loop
                } else {
                    Stage::BSend
                };
            }
            TxResult::Busy => {
                // The unsent descriptors go back (xskq_cons_cancel_n) and
                // their slots are cancelled; EAGAIN.
                back(&mut t, b);
                t.cq_cancel(b.len() as i64);
                t.end_call(s);
            }
            TxResult::Drop => {
                // This skb completes; the rest go back as for busy.
                let unsent = b.len() as i64 - 1;
                t.cq.push(d.addr);
                t.resv = sub_seq(
                    &super::state::drop_last(&self.resv, unsent),
                    2,
                    self.resv.len() as i64 - unsent,
                );
                back(&mut t, &rest);
                t.end_call(s);
            }
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_tx::state::Slot;

    fn batch() -> Config {
        Config {
            sockets: vec!["s1".into()],
            batch_size: 2,
            ..Config::design_b()
        }
    }

    fn reserved_two(cfg: &Config) -> State {
        let mut s = State::init(cfg);
        s = s.user_submit(cfg, 0, 0, true, false).unwrap();
        s = s.user_submit(cfg, 0, 1, true, false).unwrap();
        s.sendto(cfg, 0)
            .unwrap()
            .xmit_batch_reserve(cfg, 0)
            .unwrap()
    }

    #[test]
    fn batch_reserves_the_valid_prefix() {
        let cfg = batch();
        let s = reserved_two(&cfg);
        assert_eq!((s.call[0].stage, s.call[0].pend), (Stage::BReserved, 2));
        assert_eq!(s.resv, [Slot::Placeholder; 2]);
        let mut u = State::init(&cfg);
        u = u.user_submit(&cfg, 0, 0, true, false).unwrap();
        u = u.user_submit(&cfg, 0, 1, false, false).unwrap();
        assert_eq!(u.valid_prefix(0, 2).len(), 1);
    }

    #[test]
    fn a_packet_being_built_goes_through_the_loop_head() {
        let cfg = Config {
            multi_buf: true,
            max_frags: 3,
            ..batch()
        };
        let mut s = State::init(&cfg);
        s = s.user_submit(&cfg, 0, 0, true, true).unwrap();
        s = s.user_submit(&cfg, 0, 1, true, false).unwrap();
        // A fragment first: no batch, one iteration of the loop.
        let t = s.sendto(&cfg, 0).unwrap().xmit_batch_reserve(&cfg, 0).unwrap();
        assert_eq!((t.call[0].stage, t.call[0].pend), (Stage::Reserved, 1));
        let t = t.xmit_send(&cfg, 0, TxResult::Sent).unwrap();
        assert_eq!(t.part[0], [0]);
        // The packet is open: its last descriptor is not batched either.
        assert!(t.batch_run(&cfg, 0).is_empty());
        let t = t.xmit_batch_reserve(&cfg, 0).unwrap();
        assert_eq!(t.call[0].stage, Stage::Reserved);
    }

    #[test]
    fn partial_alloc_cancels_the_rest() {
        let cfg = batch();
        let s = reserved_two(&cfg);
        let t = s.xmit_batch_alloc(&cfg, 0, 1).unwrap();
        assert_eq!(
            (t.resv.len(), t.tx[0].len(), t.call[0].batch.len()),
            (1, 1, 1)
        );
        assert_eq!(t.violated(&cfg), None);
        let no_fail = Config {
            alloc_fails: false,
            ..cfg
        };
        assert_eq!(s.xmit_batch_alloc(&no_fail, 0, 1), None);
    }

    #[test]
    fn drop_completes_one_and_returns_the_rest() {
        let cfg = batch();
        let s = reserved_two(&cfg).xmit_batch_alloc(&cfg, 0, 2).unwrap();
        let t = s.xmit_batch_send(&cfg, 0, TxResult::Drop).unwrap();
        assert_eq!((t.cq.as_slice(), t.resv.len()), (&[0][..], 0));
        assert_eq!(t.tx[0], [Desc { addr: 1, ok: true, contd: false }]);
        assert_eq!(t.violated(&cfg), None);
    }
}
