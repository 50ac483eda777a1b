//! ShiftView (specs/XskRing.tla): the state seen from ring->consumer, the
//! key under which the search keeps one state of each shift class when a
//! model says `VIEW ShiftView`. The spec says why the shift is sound and
//! where it is not (wrapping-add, liveness).

use super::config::Config;
use super::state::{Entry, Load, State};

/// The views a model may name.
pub const VIEWS: [&str; 1] = ["ShiftView"];

impl State {
    /// ShiftView: every position less `cons`, the slots rotated to start
    /// at cons's; the value is a State (cons 0), so the search can key on
    /// it.
    pub fn shift_view(&self, cfg: &Config) -> State {
        let rel = |i: u64| cfg.sub(i, self.cons);
        let entry = |e: Entry| if e.idx == cfg.never() { e } else { Entry { idx: rel(e.idx), ..e } };
        let load = |l: Load| {
            if !l.some {
                return l;
            }
            Load {
                pos: rel(l.pos),
                exp: rel(l.exp),
                val: if l.val == cfg.never() { l.val } else { rel(l.val) },
                ..l
            }
        };
        let at = |j: usize| cfg.mask(self.cons + j as u64);
        let slots = 0..self.slot.len();
        State {
            prod: rel(self.prod),
            cons: 0,
            slot: slots.clone().map(|j| entry(self.slot[at(j)])).collect(),
            own: slots.map(|j| self.own[at(j)]).collect(),
            p_prod: rel(self.p_prod),
            p_cons: rel(self.p_cons),
            p_wr: rel(self.p_wr),
            p_ahead: self.p_ahead,
            c_prod: rel(self.c_prod),
            c_cons: rel(self.c_cons),
            c_rd: rel(self.c_rd),
            c_end: rel(self.c_end),
            c_valid: self.c_valid,
            c_spec: load(self.c_spec),
            c_exp: rel(self.c_exp),
            last: load(self.last),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_that_differ_by_a_shift_have_one_view() {
        let cfg = Config::fill();
        let a = State::init(&cfg, 0);
        let b = State::init(&cfg, cfg.m() - 1);
        assert_ne!(a, b);
        assert_eq!(a.shift_view(&cfg), b.shift_view(&cfg));
        // a step from each keeps them in one class
        let (sa, sb) = (&a.successors(&cfg)[0].1, &b.successors(&cfg)[0].1);
        assert_eq!(sa.shift_view(&cfg), sb.shift_view(&cfg));
        assert_eq!(a.shift_view(&cfg), a, "a state at 0 is its own view");
    }
}
