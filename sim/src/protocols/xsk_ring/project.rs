//! The projection of the ring onto the spec's variables a step changes
//! and the simulator can observe (specs/XskRing.tla's counters and
//! slots; its ghosts are the spec's to compute): the state of a trace
//! line, what the invariants are checked on.

use serde::{Deserialize, Serialize};

use crate::xsk_ring::payload::Payload;
use crate::xsk_ring::system::XskRing;
use ringlab_ring::RingMem;

/// The spec variables a step changes that the simulator can observe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub prod: u32,
    pub cons: u32,
    pub p_prod: u32,
    pub p_cons: u32,
    pub p_wr: u32,
    pub c_prod: u32,
    pub c_cons: u32,
    pub c_rd: u32,
    pub c_end: u32,
    /// `slot[s].idx`: the position last stored in slot s (`None`: never).
    pub slot: Vec<Option<u32>>,
    /// `slot[s].ok`: whether that entry is valid (true if never stored).
    pub slot_ok: Vec<bool>,
}

impl State {
    /// The counters, under their spec names, in the spec's order.
    pub fn counters(&self) -> [(&'static str, u32); 9] {
        [
            ("prod", self.prod),
            ("cons", self.cons),
            ("pProd", self.p_prod),
            ("pCons", self.p_cons),
            ("pWr", self.p_wr),
            ("cProd", self.c_prod),
            ("cCons", self.c_cons),
            ("cRd", self.c_rd),
            ("cEnd", self.c_end),
        ]
    }
}

impl<E: Payload> XskRing<E> {
    /// The spec's observed variables now.
    pub fn state(&self) -> State {
        self.snapshot(true)
    }

    /// The counters, and the slots only if asked (a check needs none, and
    /// a large ring's slots cost a read each).
    pub(crate) fn snapshot(&self, slots: bool) -> State {
        let n = if slots { self.cfg.size } else { 0 };
        let entries: Vec<E> = (0..n)
            .map(|s| unsafe {
                // Safety: one thread runs both actors; no access is concurrent.
                self.ring.read(s)
            })
            .collect();
        let (prod, cons) = self.published();
        State {
            prod,
            cons,
            p_prod: self.prod.p_prod(),
            p_cons: self.prod.p_cons(),
            p_wr: self.prod.p_wr(),
            c_prod: self.cons.c_prod(),
            c_cons: self.cons.c_cons(),
            c_rd: self.cons.c_rd(),
            c_end: self.cons.c_end(),
            slot: entries.iter().map(|e| e.pos()).collect(),
            slot_ok: entries
                .iter()
                .map(|e| e.pos().is_none() || e.valid())
                .collect(),
        }
    }
}
