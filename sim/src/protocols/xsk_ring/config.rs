//! Which ring to simulate, and the checks on the parameters.

use std::fmt;
use std::str::FromStr;

use ringlab_ring::SizeError;

/// Who runs a side of the ring: `xsk_queue.h` or libxdp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Kernel,
    User,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Kernel => "kernel",
            Side::User => "user",
        }
    }
}

/// The four rings of an AF_XDP socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingKind {
    /// User space gives buffers to the kernel.
    Fill,
    /// The kernel gives transmitted buffers back.
    Comp,
    /// The kernel hands received packets to user space.
    Rx,
    /// User space hands packets to send to the kernel.
    Tx,
}

impl RingKind {
    pub const ALL: [RingKind; 4] = [RingKind::Fill, RingKind::Comp, RingKind::Rx, RingKind::Tx];

    pub fn name(self) -> &'static str {
        match self {
            RingKind::Fill => "fill",
            RingKind::Comp => "comp",
            RingKind::Rx => "rx",
            RingKind::Tx => "tx",
        }
    }

    pub fn prod_side(self) -> Side {
        match self {
            RingKind::Fill | RingKind::Tx => Side::User,
            RingKind::Comp | RingKind::Rx => Side::Kernel,
        }
    }

    pub fn cons_side(self) -> Side {
        match self.prod_side() {
            Side::User => Side::Kernel,
            Side::Kernel => Side::User,
        }
    }

    /// Only the tx ring carries descriptors the kernel may reject.
    pub fn invalid_descs(self) -> bool {
        self == RingKind::Tx
    }
}

impl fmt::Display for RingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RingKind {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        match s {
            "fill" => Ok(RingKind::Fill),
            "comp" | "completion" => Ok(RingKind::Comp),
            "rx" => Ok(RingKind::Rx),
            "tx" => Ok(RingKind::Tx),
            _ => Err(ConfigError::UnknownRing(s.to_string())),
        }
    }
}

/// A simulation: one ring, one producer, one consumer, one seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimConfig {
    pub kind: RingKind,
    /// q->nentries.
    pub size: u32,
    /// Where both counters start.
    pub start: u32,
    /// The largest n one reserve, submit or peek asks for (the spec's
    /// MaxBatch), in 1..=size.
    pub max_batch: u32,
    pub seed: u64,
}

/// The largest ring the simulator allocates.
pub const MAX_SIZE: u32 = 1 << 20;

impl SimConfig {
    /// A config with max_batch = min(size, 4).
    pub fn new(kind: RingKind, size: u32, start: u32, seed: u64) -> Self {
        SimConfig {
            kind,
            size,
            start,
            max_batch: size.clamp(1, 4),
            seed,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.size.is_power_of_two() {
            return Err(ConfigError::Size(SizeError { size: self.size }));
        }
        if self.size > MAX_SIZE {
            return Err(ConfigError::TooLarge(self.size));
        }
        if !(1..=self.size).contains(&self.max_batch) {
            return Err(ConfigError::MaxBatch {
                max_batch: self.max_batch,
                size: self.size,
            });
        }
        Ok(())
    }
}

/// A parameter the simulator cannot run with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    UnknownRing(String),
    Size(SizeError),
    TooLarge(u32),
    MaxBatch { max_batch: u32, size: u32 },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownRing(s) => {
                write!(f, "unknown ring kind {s:?} (expected fill, comp, rx or tx)")
            }
            ConfigError::Size(e) => e.fmt(f),
            ConfigError::TooLarge(n) => write!(
                f,
                "ring size {n} is larger than the simulator's limit {MAX_SIZE}"
            ),
            ConfigError::MaxBatch { max_batch, size } => {
                write!(
                    f,
                    "max batch {max_batch} is not in 1..={size} (the ring size)"
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<SizeError> for ConfigError {
    fn from(e: SizeError) -> Self {
        ConfigError::Size(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_and_know_their_sides() {
        for k in RingKind::ALL {
            assert_eq!(k.name().parse::<RingKind>(), Ok(k));
            assert_ne!(k.prod_side(), k.cons_side());
        }
        assert_eq!(RingKind::Fill.prod_side(), Side::User);
        assert_eq!(RingKind::Rx.cons_side(), Side::User);
        let err = "ftx".parse::<RingKind>().unwrap_err();
        assert!(err.to_string().contains("unknown ring kind \"ftx\""));
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut c = SimConfig::new(RingKind::Fill, 3, 0, 1);
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "ring size 3 is not a power of two"
        );
        c.size = 0;
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "ring size 0 is not a power of two"
        );
        c.size = 4;
        c.max_batch = 5;
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("max batch 5"));
        c.max_batch = 4;
        assert!(c.validate().is_ok());
    }
}
