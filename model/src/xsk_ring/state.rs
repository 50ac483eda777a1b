//! The spec's VARIABLES and Init.

use serde::{Deserialize, Serialize};

use super::config::{Config, Side};

/// An entry as stored in a slot: the position it was stored for, and
/// whether it is a valid descriptor (spec: Entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    pub idx: u64,
    pub ok: bool,
}

/// Whose a slot is (spec: own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Own {
    Free,
    Written,
    Published,
    Read,
    /// An unread entry was overwritten.
    Clobbered,
}

impl Own {
    pub const ALL: [Own; 5] = [
        Own::Free,
        Own::Written,
        Own::Published,
        Own::Read,
        Own::Clobbered,
    ];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Own::Free => "free",
            Own::Written => "written",
            Own::Published => "published",
            Own::Read => "read",
            Own::Clobbered => "clobbered",
        }
    }

    pub fn from_id(s: &str) -> Option<Own> {
        Own::ALL.into_iter().find(|o| o.id() == s)
    }
}

/// One load by the consumer (spec: Load).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Load {
    /// The position loaded.
    pub pos: u64,
    /// The position the loaded entry was stored for.
    pub val: u64,
    pub ok: bool,
    /// Spec field `pub`: the position was published when loaded.
    pub published: bool,
    /// The position FIFO order expected next.
    pub exp: u64,
    /// FALSE for NoLoad.
    pub some: bool,
}

impl Load {
    /// NoLoad
    pub const NONE: Load = Load {
        pos: 0,
        val: 0,
        ok: true,
        published: true,
        exp: 0,
        some: false,
    };
}

/// The spec's variables, names in snake_case.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct State {
    /// ring->producer
    pub prod: u64,
    /// ring->consumer
    pub cons: u64,
    /// slot[s]: the entry last stored in slot s.
    pub slot: Vec<Entry>,
    pub own: Vec<Own>,
    /// Producer's cached_prod: next position to reserve.
    pub p_prod: u64,
    /// Producer's cached_cons (user side: plus Size).
    pub p_cons: u64,
    /// Producer: next reserved position not yet stored.
    pub p_wr: u64,
    /// Without A: an entry stored before its reservation.
    pub p_ahead: bool,
    /// Consumer's cached_prod.
    pub c_prod: u64,
    /// Consumer's cached_cons (user side: end of its peeks).
    pub c_cons: u64,
    /// Consumer: next peeked position not yet loaded.
    pub c_rd: u64,
    /// Consumer: end of the peeked positions.
    pub c_end: u64,
    /// Consumer: valid entries loaded since the last release.
    pub c_valid: u64,
    /// Without C: an entry loaded before ->producer.
    pub c_spec: Load,
    /// Ghost: the position FIFO order expects loaded next.
    pub c_exp: u64,
    /// History: the consumer's last load.
    pub last: Load,
}

/// Init: one state per start value in 0..M-1.
pub fn init_states(cfg: &Config) -> Vec<State> {
    (0..cfg.m()).map(|start| State::init(cfg, start)).collect()
}

impl State {
    /// The initial state with both counters at `start`.
    pub fn init(cfg: &Config, start: u64) -> State {
        let size = cfg.size as usize;
        State {
            prod: start,
            cons: start,
            slot: vec![
                Entry {
                    idx: cfg.never(),
                    ok: true
                };
                size
            ],
            own: vec![Own::Free; size],
            p_prod: start,
            p_cons: match cfg.prod_side {
                Side::User => (start + cfg.size) % cfg.m(),
                Side::Kernel => start,
            },
            p_wr: start,
            p_ahead: false,
            c_prod: start,
            c_cons: start,
            c_rd: start,
            c_end: start,
            c_valid: 0,
            c_spec: Load::NONE,
            c_exp: start,
            last: Load::NONE,
        }
    }

    /// Published(i): position i lies in [ring->consumer, ring->producer).
    pub fn published(&self, cfg: &Config, i: u64) -> bool {
        cfg.sub(i, self.cons) < cfg.sub(self.prod, self.cons)
    }

    /// PConsReal: the producer's view of the real consumer.
    pub fn p_cons_real(&self, cfg: &Config) -> u64 {
        match cfg.prod_side {
            Side::User => cfg.sub(self.p_cons, cfg.size),
            Side::Kernel => self.p_cons,
        }
    }

    /// The ten counters, named as in the spec (IndicesAreU32).
    pub fn counters(&self) -> [(&'static str, u64); 10] {
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
            ("cExp", self.c_exp),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_initial_state_per_start() {
        let cfg = Config::fill();
        let init = init_states(&cfg);
        assert_eq!(init.len(), 8);
        assert_eq!(init[6].p_cons, 0, "user pCons = (start + Size) % M");
        assert!(init.iter().all(|s| s.slot.iter().all(|e| e.idx == 8)));
    }

    #[test]
    fn published_is_the_window_cons_to_prod() {
        let cfg = Config::fill();
        let s = State {
            prod: 1,
            cons: 7,
            ..State::init(&cfg, 7)
        };
        assert!(s.published(&cfg, 7) && s.published(&cfg, 0));
        assert!(!s.published(&cfg, 1) && !s.published(&cfg, 6));
    }
}
