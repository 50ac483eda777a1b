//! The projection of the model's state onto specs/XskCopyTx.tla's
//! variables (`copy_tx::State`), and the spec constants of a scenario.
//! Each submission identity is a frame of the spec; a completion whose
//! address is not the one the profile defines for its identity is the
//! stray frame, which the application never submits, so no spec step
//! reaches a state holding it in the completion queue.

use std::collections::BTreeSet;

use crate::copy_tx::{Call, Config, Design, Desc, DropFrags, Frame, Mutant, PublishFrags, Skb, Slot, Sock, Stage, State, TxResult};

use super::chain::Recorder;
use super::trace::ProjectionError;
use super::ghost::{Compl, TxSlot, Via};
use super::profile::{self, Profile};
use super::state::{Model, Ring};
use super::tx::contd;
use super::validate::aligned_valid;

/// The frame every wrong completion projects to.
pub const STRAY: Frame = 0;

/// The spec's call[s] of the socket whose sendto is running: its stage,
/// reserved-but-unbuilt slots, and the batch skbs not yet sent.
pub(super) struct CallView<'a> {
    pub stage: Stage,
    pub pend: i64,
    pub batch: &'a [TxSlot],
}

/// The address `p` completes a submission of `addr` with, given how the
/// completion came to be. 6.18 clears bit 0 of a packet's first address
/// (and of every address where it writes at reserve time); lone
/// completions write the descriptor's address as it is.
pub fn expected_completion(p: &Profile, addr: u64, via: Via) -> u64 {
    match via {
        Via::Packet { first } if p.completion_clears_bit0 && (first || !p.cq_addr_on_submit) => addr & !1,
        _ => addr,
    }
}

impl Recorder {
    /// The frame of a live submission.
    pub(super) fn frame(&self, id: u32) -> Result<Frame, ProjectionError> {
        self.frame_of
            .get(&id)
            .copied()
            .ok_or_else(|| self.err(format!("submission {id} is in a ring but has no frame")))
    }

    /// The frame a completion slot projects to: its identity's if the
    /// address is the one the profile defines for it, else the stray.
    pub(super) fn compl_frame(&self, p: &Profile, c: &Compl) -> Frame {
        match (self.frame_of.get(&c.id), self.submitted.get(&c.id)) {
            (Some(&f), Some(&addr)) if c.addr == expected_completion(p, addr, c.via) => f,
            _ => STRAY,
        }
    }

    fn desc(&self, m: &Model, d: &TxSlot) -> Result<Desc, ProjectionError> {
        let ok = aligned_valid(d.addr, d.len, d.options, m.setup.frame_size, m.setup.umem_len());
        Ok(Desc { addr: self.frame(d.id)?, ok, contd: contd(d.options) })
    }

    fn descs(&self, m: &Model, ds: &[TxSlot]) -> Result<Vec<Desc>, ProjectionError> {
        ds.iter().map(|d| self.desc(m, d)).collect()
    }

    /// `m` as a state of the spec; `active` is the socket whose sendto is
    /// running and where it is (every other call is idle). `free` holds
    /// the frames assigned so far that the application owns: the chain
    /// adds the unassigned ones when it knows how many there are.
    pub(super) fn project(&self, m: &Model, active: Option<(usize, CallView)>) -> Result<State, ProjectionError> {
        let ns = m.socks.len();
        let mut call = vec![Call::IDLE; ns];
        if let Some((s, v)) = active.filter(|(_, v)| v.stage != Stage::Idle) {
            call[s] = Call {
                stage: v.stage,
                done: m.socks[s].done,
                pend: v.pend,
                batch: self.descs(m, v.batch)?,
                snap: 0,
            };
        }
        let mut tx = Vec::with_capacity(ns);
        let mut part = Vec::with_capacity(ns);
        for k in &m.socks {
            tx.push(self.descs(m, &window(&k.tx, k.tx.cached_cons, k.tx.prod))?);
            let built = k.skb.as_deref().unwrap_or(&[]);
            part.push(built.iter().map(|d| self.frame(d.id)).collect::<Result<Vec<_>, _>>()?);
        }
        let cq = window(&m.cq, m.cq.cons, m.cq.prod).iter().map(|c| self.compl_frame(&m.profile, c)).collect();
        let resv = match design(&m.profile) {
            Design::A => window(&m.cq, m.cq.prod, m.cq.cached_prod)
                .iter()
                .map(|c| Slot::Addr(self.compl_frame(&m.profile, c)))
                .collect(),
            // Reserved slots are counts: nothing is written in them yet.
            Design::B => vec![Slot::Placeholder; m.cq.cached_prod.wrapping_sub(m.cq.prod) as usize],
        };
        let flight = match &self.flight {
            Some((s, pkt)) => {
                let addrs = pkt.iter().map(|d| self.frame(d.id)).collect::<Result<Vec<_>, _>>()?;
                BTreeSet::from([Skb { sock: *s as Sock, addrs, contd: false }])
            }
            None => BTreeSet::new(),
        };
        Ok(State {
            free: self.owned.clone(),
            tx,
            cq,
            resv,
            flight,
            call,
            part,
            drain: m.socks.iter().map(|k| k.drain_cont).collect(),
            pubd: self.pubd.clone(),
            rewound: vec![false; ns],
        })
    }
}

/// The entries of `r` from index `from` up to `to`.
fn window<T: Clone>(r: &Ring<T>, from: u32, to: u32) -> Vec<T> {
    (0..to.wrapping_sub(from)).map(|i| r.slots[&(from.wrapping_add(i) & (r.size - 1))].clone()).collect()
}

/// Design b where the profile writes addresses when the skb is freed.
pub fn design(p: &Profile) -> Design {
    if p.cq_addr_on_submit {
        Design::B
    } else {
        Design::A
    }
}

/// The spec's constants for a scenario on `sockets` sockets under `p`:
/// `frames` model values (the stray first), TLC's outcomes veth has
/// (it never answers NETDEV_TX_BUSY), failing allocations (XDP_TX_METADATA
/// without tx_metadata_len is one), and the profile's rules.
pub fn config(m: &Model, frames: usize, multi_buf: bool) -> Config {
    let p = &m.profile;
    Config {
        sockets: (1..=m.socks.len()).map(|s| format!("s{s}")).collect(),
        frames: (0..frames).map(|f| if f == STRAY as usize { "stray".into() } else { format!("f{f}") }).collect(),
        placeholder: "Placeholder".into(),
        tx_size: m.setup.tx_size as usize,
        cq_size: m.setup.comp_size as usize,
        budget: p.tx_budget as i64,
        design: design(p),
        batch_size: p.tx_batch as i64,
        outcomes: vec![TxResult::Drop, TxResult::Sent],
        alloc_fails: true,
        multi_buf,
        max_frags: p.max_skb_frags as i64 + 1,
        drop_frags: match p.drop_frags {
            profile::DropFrags::Cancel => DropFrags::Cancel,
            profile::DropFrags::Complete => DropFrags::Complete,
        },
        publish_frags: PublishFrags::All,
        mutant: Mutant::None,
    }
}
