//! The spec's safety properties.

use super::config::Config;
use super::state::{Frame, State};

/// An invariant: its spec name and its predicate.
pub type Invariant = (&'static str, fn(&State, &Config) -> bool);

/// The invariants in the order the MCXskCopyTx_*.cfg files list them.
pub const INVARIANTS: [Invariant; 8] = [
    ("NoImmatureCompletion", State::no_immature_completion),
    ("CqNoOverflow", State::cq_no_overflow),
    ("ReservationsAccounted", State::reservations_accounted),
    ("BudgetPerCall", State::budget_per_call),
    ("NoDoubleCompletion", State::no_double_completion),
    ("FrameConservation", State::frame_conservation),
    ("MultiBufAtomic", State::multi_buf_atomic),
    ("TxConsumerMonotone", State::tx_consumer_monotone),
];

/// The invariant with this spec name.
pub fn invariant(name: &str) -> Option<Invariant> {
    INVARIANTS.into_iter().find(|(n, _)| *n == name)
}

impl State {
    /// Held(f): how many places hold frame f: the application, a tx ring,
    /// an skb (in flight, in a batch being sent, or being built), the published
    /// completions. Indices stop at Max2 = TxSize + CqSize, as in the spec.
    pub fn held(&self, cfg: &Config, f: Frame) -> usize {
        let max2 = cfg.tx_size + cfg.cq_size;
        let in_seqs = |qs: &mut dyn Iterator<Item = &[super::state::Desc]>| -> usize {
            qs.map(|q| q.iter().take(max2).filter(|d| d.addr == f).count())
                .sum()
        };
        usize::from(self.free.contains(&f))
            + in_seqs(&mut self.tx.iter().map(Vec::as_slice))
            + self.flight.iter().filter(|k| k.addrs.contains(&f)).count()
            + in_seqs(&mut self.call.iter().map(|c| c.batch.as_slice()))
            + self.part.iter().filter(|p| p.contains(&f)).count()
            + self.cq.iter().filter(|&&x| x == f).count()
    }

    /// InKernel(f): f is in an skb, in a batch being sent, or in a packet
    /// being built.
    pub fn in_kernel(&self, f: Frame) -> bool {
        self.flight.iter().any(|k| k.addrs.contains(&f))
            || self.part.iter().any(|p| p.contains(&f))
            || self
                .call
                .iter()
                .any(|c| c.batch.iter().any(|d| d.addr == f))
    }

    /// NoImmatureCompletion: an address is visible in the completion queue
    /// only after its skb is gone.
    pub fn no_immature_completion(&self, _cfg: &Config) -> bool {
        self.cq.iter().all(|&f| !self.in_kernel(f))
    }

    /// CqNoOverflow: published plus reserved completions never exceed the
    /// ring.
    pub fn cq_no_overflow(&self, cfg: &Config) -> bool {
        self.cq.len() + self.resv.len() <= cfg.cq_size
    }

    /// ReservationsAccounted: every reserved slot belongs to a descriptor
    /// of an skb in flight, of a batch skb not yet sent, of a packet being
    /// built, or whose skb is being built.
    pub fn reservations_accounted(&self, _cfg: &Config) -> bool {
        let in_flight: usize = self.flight.iter().map(|k| k.addrs.len()).sum();
        let pending: i64 = self
            .call
            .iter()
            .zip(&self.part)
            .map(|(c, p)| c.pend + c.batch.len() as i64 + p.len() as i64)
            .sum();
        self.resv.len() as i64 == in_flight as i64 + pending
    }

    /// MultiBufAtomic: all fragments or none: an skb reaches the driver
    /// only with its packet's last descriptor.
    pub fn multi_buf_atomic(&self, _cfg: &Config) -> bool {
        self.flight.iter().all(|k| !k.contd)
    }

    /// TxConsumerMonotone: the tx consumer advances only over descriptors
    /// the kernel is done with; it never goes back over published slots.
    pub fn tx_consumer_monotone(&self, _cfg: &Config) -> bool {
        self.rewound.iter().all(|r| !r)
    }

    /// BudgetPerCall: one sendto processes at most Budget descriptors.
    pub fn budget_per_call(&self, cfg: &Config) -> bool {
        self.call.iter().all(|c| c.done <= cfg.budget)
    }

    /// NoDoubleCompletion: a completed address is completed once and held
    /// nowhere else.
    pub fn no_double_completion(&self, cfg: &Config) -> bool {
        self.cq.iter().all(|&f| self.held(cfg, f) == 1)
    }

    /// FrameConservation: each frame is somewhere, and (completions aside)
    /// in one place.
    pub fn frame_conservation(&self, cfg: &Config) -> bool {
        (0..cfg.frames.len() as Frame).all(|f| {
            let h = self.held(cfg, f);
            h >= 1 && (self.cq.contains(&f) || h <= 1)
        })
    }

    /// The first invariant violated, in the cfg files' order.
    pub fn violated(&self, cfg: &Config) -> Option<&'static str> {
        INVARIANTS
            .iter()
            .find(|(_, holds)| !holds(self, cfg))
            .map(|(n, _)| *n)
    }
}
