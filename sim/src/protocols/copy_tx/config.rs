//! What a copy-mode transmit simulation runs: the spec's constants (the
//! model's [`Config`]) and what only real rings have: where their counters
//! start, the umem's frame size, and when the kernel publishes its tx
//! consumer. Multi-buffer runs also take the spec's DropFrags and
//! PublishFrags (see [`super::packet`]).

use serde::{Deserialize, Serialize};

use ringlab_model::copy_tx::{Config, Design, DropFrags, Mutant, PublishFrags, TxResult};

/// When the kernel stores `->consumer` of a tx ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Publish {
    /// As __xsk_generic_xmit(): only when a peek finds its cache empty
    /// (xskq_cons_get_entries()); a batch publishes once it is sent. The
    /// application may then see a ring full of descriptors the kernel has
    /// already taken.
    Kernel,
    /// The spec's view of a tx ring, in which a taken descriptor leaves at
    /// once: the kernel also publishes at the end of each step, except
    /// while a batch it may still cancel back (xskq_cons_cancel_n) is out
    /// and (multi-buffer) the fragments of the packet being built, until a
    /// refresh has published past them. The kernel also sees every
    /// submitted descriptor at once: the loop's peek loads `->producer`
    /// first (as xskq_cons_nb_entries() does), so it finds its cache empty
    /// only when the ring is.
    EachStep,
}

/// A copy-mode transmit simulation's configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyTxConfig {
    /// The spec's constants; `spec.mutant` is read, never acted on: a
    /// mutant is put back by ringlab-mutant's switch.
    pub spec: Config,
    /// Where both counters of every tx ring start.
    pub tx_start: u32,
    /// Where both counters of the completion ring start.
    pub cq_start: u32,
    /// The umem's chunk size: frame i is at address i * frame_size.
    pub frame_size: u64,
    pub publish: Publish,
    pub seed: u64,
}

impl CopyTxConfig {
    /// `sockets` sockets, `frames` frames, every outcome, failing
    /// allocations; counters start just below u32::MAX.
    pub fn new(design: Design, batch: i64, sockets: usize, frames: usize) -> CopyTxConfig {
        CopyTxConfig {
            spec: Config {
                sockets: (1..=sockets).map(|i| format!("s{i}")).collect(),
                frames: (1..=frames).map(|i| format!("f{i}")).collect(),
                placeholder: "Placeholder".into(),
                tx_size: 2,
                cq_size: 2,
                budget: 2,
                design,
                batch_size: batch,
                outcomes: TxResult::ALL.to_vec(),
                alloc_fails: true,
                mutant: Mutant::None,
                // Single-buffer packets: the rest as the spec's model B.
                ..Config::design_b()
            },
            tx_start: u32::MAX - 2,
            cq_start: u32::MAX - 1,
            frame_size: 2048,
            publish: Publish::Kernel,
            seed: 0,
        }
    }

    /// Multi-buffer packets of at most `max_frags` descriptors, with the
    /// two choices the spec leaves open.
    pub fn multi_buf(mut self, max_frags: i64, drop: DropFrags, publish: PublishFrags) -> Self {
        self.spec.multi_buf = true;
        self.spec.max_frags = max_frags;
        self.spec.drop_frags = drop;
        self.spec.publish_frags = publish;
        self
    }

    /// The spec's constants with real-ring defaults.
    pub fn from_spec(spec: Config) -> CopyTxConfig {
        CopyTxConfig {
            spec,
            ..CopyTxConfig::new(Design::B, 0, 1, 1)
        }
    }

    pub fn sockets(&self) -> usize {
        self.spec.sockets.len()
    }
    pub fn frames(&self) -> usize {
        self.spec.frames.len()
    }

    /// What the simulator needs beyond the spec's ASSUMEs: rings whose
    /// sizes are powers of two, and frames a chunk apart.
    pub fn validate(&self) -> Result<(), String> {
        let s = &self.spec;
        if s.budget < 1 {
            return Err(format!("budget {} must be at least 1", s.budget));
        }
        if s.batch_size < 0 || (s.batch_size > 0 && s.design != Design::B) {
            return Err("a batch needs design b".into());
        }
        if s.multi_buf && s.batch_size != 0 {
            return Err("multi-buffer packets need the per-descriptor loop (batch 0)".into());
        }
        if s.multi_buf && !(2..=64).contains(&s.max_frags) {
            return Err(format!(
                "max frags {}: a multi-buffer packet has 2 to 64 descriptors at most",
                s.max_frags
            ));
        }
        if !s.outcomes.contains(&TxResult::Sent) {
            return Err("the outcomes must include sent".into());
        }
        for (what, n) in [("tx", s.tx_size), ("completion", s.cq_size)] {
            if n == 0 || !n.is_power_of_two() || n > 1 << 20 {
                return Err(format!("{what} ring size {n} is not a power of two"));
            }
        }
        if !(1..=1 << 16).contains(&self.frames()) {
            return Err(format!(
                "{} frames: 1 to 65536 are supported",
                self.frames()
            ));
        }
        if !(1..=64).contains(&self.sockets()) {
            return Err(format!("{} sockets: 1 to 64 are supported", self.sockets()));
        }
        if !self.frame_size.is_power_of_two() || self.frame_size < 128 {
            return Err(format!(
                "frame size {} is not a power of two >= 128",
                self.frame_size
            ));
        }
        Ok(())
    }
}
