//! Seed 000's batch (BatchSize > 0): read up to BatchSize descriptors,
//! reserve their completion slots at once, allocate skbs in bulk (some may
//! fail), cancel the unused slots, transmit with xmit_more on all but the
//! last.

use super::config::{Config, TxResult};
use super::state::{sub_seq, Desc, Frame, Skb, Sock, Stage, State};

impl State {
    /// ValidPrefix(s, n): the valid descriptors at the head of s's tx
    /// ring, at most n.
    pub fn valid_prefix(&self, s: Sock, n: i64) -> Vec<Desc> {
        let q = &self.tx[s as usize];
        let most = n.clamp(0, q.len() as i64) as usize;
        q[..most].iter().take_while(|d| d.ok).copied().collect()
    }

    /// XmitBatchReserve(s): xskq_cons_peek_desc() in bulk, then
    /// xsk_cq_reserve_locked() for n slots at once.
    pub fn xmit_batch_reserve(&self, cfg: &Config, s: Sock) -> Option<State> {
        let si = s as usize;
        if self.call[si].stage != Stage::Loop || cfg.batch_size <= 0 {
            return None;
        }
        let left = cfg.budget - self.call[si].done;
        let want = self.valid_prefix(s, cfg.batch_size.min(left));
        let k = (want.len() as i64).min(self.cq_free(cfg));
        let mut t = self.clone();
        match self.tx[si].first() {
            None => t.end_call(s),
            Some(_) if left == 0 => t.end_call(s),
            Some(&d) if !d.ok => {
                t.invalid_desc(cfg, s, d);
                t.end_call(s);
            }
            Some(_) if k == 0 => t.end_call(s),
            Some(_) => {
                let addrs: Vec<Frame> = sub_seq(&want, 1, k).iter().map(|d| d.addr).collect();
                t.cq_reserve(cfg, &addrs);
                t.call[si].stage = Stage::BReserved;
                t.call[si].pend = k;
            }
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
