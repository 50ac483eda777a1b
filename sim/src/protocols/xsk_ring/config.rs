//! Which ring to simulate, and the checks on the parameters.

use std::fmt;
use std::str::FromStr;

use ringlab_ring::SizeError;
use serde::{Deserialize, Serialize};

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

/// A simulation: one ring, one producer, one consumer, one seed. In a
/// trace header it also names the ring's sides (see [`Header`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Header", try_from = "Header")]
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

/// A config as a trace header writes it: the ring's sides and whether it
/// carries invalid descriptors spelled out, for readers that do not know
/// the ring kinds (the explorer, the TLA+ model). Read back, they must be
/// the kind's, and the config must be one the simulator runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub ring: String,
    pub size: u32,
    pub start: u32,
    pub max_batch: u32,
    pub seed: u64,
    pub prod_side: String,
    pub cons_side: String,
    pub invalid_descs: bool,
}

impl From<SimConfig> for Header {
    fn from(c: SimConfig) -> Header {
        Header {
            ring: c.kind.name().into(),
            size: c.size,
            start: c.start,
            max_batch: c.max_batch,
            seed: c.seed,
            prod_side: c.kind.prod_side().name().into(),
            cons_side: c.kind.cons_side().name().into(),
            invalid_descs: c.kind.invalid_descs(),
        }
    }
}

impl TryFrom<Header> for SimConfig {
    type Error = String;
    fn try_from(h: Header) -> Result<SimConfig, String> {
        let kind: RingKind = h.ring.parse().map_err(|e: ConfigError| e.to_string())?;
        let cfg = SimConfig {
            kind,
            size: h.size,
            start: h.start,
            max_batch: h.max_batch,
            seed: h.seed,
        };
        let want = Header::from(cfg);
        for (what, got, want) in [
            ("prod_side", &h.prod_side, &want.prod_side),
            ("cons_side", &h.cons_side, &want.cons_side),
        ] {
            if got != want {
                return Err(format!("{what} {got:?}: the {kind} ring's is {want:?}"));
            }
        }
        if h.invalid_descs != want.invalid_descs {
            return Err(format!("invalid_descs {}: the {kind} ring's is {}", h.invalid_descs, want.invalid_descs));
        }
        cfg.validate().map_err(|e| e.to_string())?;
        Ok(cfg)
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

    #[test]
    fn a_header_names_the_sides_and_reads_back_checked() {
        let c = SimConfig::new(RingKind::Tx, 4, 7, 9);
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(
            text,
            r#"{"ring":"tx","size":4,"start":7,"max_batch":4,"seed":9,"prod_side":"user","cons_side":"kernel","invalid_descs":true}"#
        );
        assert_eq!(serde_json::from_str::<SimConfig>(&text).unwrap(), c);
        let bad = |from: &str, to: &str| {
            serde_json::from_str::<SimConfig>(&text.replace(from, to))
                .unwrap_err()
                .to_string()
        };
        assert!(bad("\"size\":4", "\"size\":3").contains("ring size 3 is not a power of two"));
        assert!(bad("\"prod_side\":\"user\"", "\"prod_side\":\"kernel\"").contains("the tx ring's is \"user\""));
        assert!(bad("\"ring\":\"tx\"", "\"ring\":\"ftx\"").contains("unknown ring kind"));
    }
}
