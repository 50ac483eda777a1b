//! Next: every action with every choice its \E allows, in the spec's order.

use super::action::Action;
use super::config::{Config, Side};
use super::state::State;

impl State {
    /// Apply one action with its choice; None if it is not enabled.
    pub fn step(&self, cfg: &Config, action: &Action) -> Option<State> {
        match *action {
            Action::ProdReserve { n } => self.prod_reserve(cfg, n),
            Action::ProdWrite { ok } => self.prod_write(cfg, ok),
            Action::ProdWriteAhead { ok } => self.prod_write_ahead(cfg, ok),
            Action::ProdSubmit { n } => self.prod_submit(cfg, n),
            Action::ProdCancel { n } => self.prod_cancel(cfg, n),
            Action::ConsPeek { nb } => self.cons_peek(cfg, nb),
            Action::ConsPeekBatch { max } => self.cons_peek_batch(cfg, max),
            Action::ConsRead => self.cons_read(cfg),
            Action::ConsReadAhead => self.cons_read_ahead(cfg),
            Action::ConsRelease { nb } => self.cons_release(cfg, nb),
            Action::ConsPublish => self.cons_publish(cfg),
            Action::Stutter => Some(self.clone()),
        }
    }

    /// Every action and choice that may be enabled here, in the order of
    /// Next and of each \E's set (BOOLEAN is {FALSE, TRUE}).
    pub fn candidate_actions(&self, cfg: &Config) -> Vec<Action> {
        let batch = 1..=cfg.max_batch;
        let mut out = Vec::new();
        out.extend(batch.clone().map(|n| Action::ProdReserve { n }));
        out.extend([false, true].map(|ok| Action::ProdWrite { ok }));
        out.extend([false, true].map(|ok| Action::ProdWriteAhead { ok }));
        out.extend(batch.clone().map(|n| Action::ProdSubmit { n }));
        out.extend(batch.clone().map(|n| Action::ProdCancel { n }));
        match cfg.cons_side {
            Side::Kernel => out.push(Action::ConsPeek { nb: None }),
            Side::User => out.extend(batch.clone().map(|nb| Action::ConsPeek { nb: Some(nb) })),
        }
        out.extend(batch.map(|max| Action::ConsPeekBatch { max }));
        out.extend([Action::ConsRead, Action::ConsReadAhead]);
        match cfg.cons_side {
            Side::Kernel => out.push(Action::ConsRelease { nb: None }),
            Side::User => {
                let most = cfg.sub(self.releasable(cfg), self.cons);
                out.extend((1..=most).map(|nb| Action::ConsRelease { nb: Some(nb) }));
            }
        }
        out.push(Action::ConsPublish);
        out
    }

    /// Every step of Next from this state (self-loops included).
    pub fn successors(&self, cfg: &Config) -> Vec<(Action, State)> {
        crate::explore::enabled_steps(self.candidate_actions(cfg), |a| self.step(cfg, a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comp() -> Config {
        Config {
            prod_side: Side::Kernel,
            cons_side: Side::User,
            ..Config::fill()
        }
    }

    #[test]
    fn step_agrees_with_successors() {
        let c = comp();
        let s = State::init(&c, 3);
        for (a, t) in s.successors(&c) {
            assert_eq!(s.step(&c, &a), Some(t));
        }
        assert_eq!(s.step(&c, &Action::Stutter), Some(s.clone()));
    }

    /// Random walks with real u32 counters across the wrap keep every
    /// invariant on each correct ring.
    #[test]
    fn u32_walks_keep_the_invariants() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for (prod_side, cons_side, invalid_descs) in [
            (Side::User, Side::Kernel, false),
            (Side::User, Side::Kernel, true),
            (Side::Kernel, Side::User, false),
        ] {
            let c = Config {
                size: 4,
                idx_bits: 32,
                max_batch: 3,
                prod_side,
                cons_side,
                invalid_descs,
                ..comp()
            };
            let mut s = State::init(&c, u32::MAX as u64 - 5);
            let mut wrapped = false;
            for _ in 0..20_000 {
                let succ = s.successors(&c);
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s = succ[(seed % succ.len() as u64) as usize].1.clone();
                assert_eq!(s.violated(&c), None, "{s:?}");
                wrapped |= s.cons < 1000;
            }
            assert!(wrapped, "->consumer never passed 2^32");
        }
    }

    #[test]
    fn initial_choices() {
        let c = comp();
        let names: Vec<String> = State::init(&c, 0)
            .successors(&c)
            .iter()
            .map(|(a, _)| a.to_string())
            .collect();
        assert_eq!(
            names,
            [
                "ProdReserve(n=1)",
                "ProdReserve(n=2)",
                "ConsPeek(nb=1)",
                "ConsPeek(nb=2)"
            ]
        );
    }
}
