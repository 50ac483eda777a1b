//! The spec's CONSTANTS and the index arithmetic built on them (M, Mask,
//! Add, Sub, Min).

use serde::{Deserialize, Serialize};

/// Which side of the ring a party runs on (ProdSide, ConsSide).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// net/xdp/xsk_queue.h
    Kernel,
    /// libxdp headers/xdp/xsk.h
    User,
}

impl Side {
    /// The spec's string for this side.
    pub fn id(self) -> &'static str {
        match self {
            Side::Kernel => "kernel",
            Side::User => "user",
        }
    }

    pub fn from_id(s: &str) -> Option<Side> {
        match s {
            "kernel" => Some(Side::Kernel),
            "user" => Some(Side::User),
            _ => None,
        }
    }
}

/// One of the four barriers of xsk_queue.h.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Barrier {
    /// Producer: load of ->consumer before the entry store.
    A,
    /// Producer: release store of ->producer.
    B,
    /// Consumer: acquire load of ->producer.
    C,
    /// Consumer: release store of ->consumer.
    D,
}

impl Barrier {
    pub const ALL: [Barrier; 4] = [Barrier::A, Barrier::B, Barrier::C, Barrier::D];

    pub fn id(self) -> &'static str {
        match self {
            Barrier::A => "A",
            Barrier::B => "B",
            Barrier::C => "C",
            Barrier::D => "D",
        }
    }

    pub fn from_id(s: &str) -> Option<Barrier> {
        Barrier::ALL.into_iter().find(|b| b.id() == s)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The set Barriers, a subset of {"A", "B", "C", "D"} (JSON: a list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(into = "Vec<Barrier>", from = "Vec<Barrier>")]
pub struct Barriers(u8);

impl Barriers {
    pub const NONE: Barriers = Barriers(0);
    pub const ALL: Barriers = Barriers(0b1111);

    pub fn contains(self, b: Barrier) -> bool {
        self.0 & b.bit() != 0
    }

    pub fn with(self, b: Barrier) -> Barriers {
        Barriers(self.0 | b.bit())
    }

    pub fn without(self, b: Barrier) -> Barriers {
        Barriers(self.0 & !b.bit())
    }

    pub fn iter(self) -> impl Iterator<Item = Barrier> {
        Barrier::ALL.into_iter().filter(move |b| self.contains(*b))
    }
}

impl From<Barriers> for Vec<Barrier> {
    fn from(b: Barriers) -> Self {
        b.iter().collect()
    }
}

impl From<Vec<Barrier>> for Barriers {
    fn from(v: Vec<Barrier>) -> Self {
        v.into_iter().collect()
    }
}

impl FromIterator<Barrier> for Barriers {
    fn from_iter<I: IntoIterator<Item = Barrier>>(iter: I) -> Self {
        iter.into_iter().fold(Barriers::NONE, Barriers::with)
    }
}

/// Mutant: "none" or the id of a real or synthetic bug (specs/manifest.json).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mutant {
    None,
    /// Index sums are not reduced modulo 2^IdxBits (spec: Add).
    WrappingAdd,
    /// The kernel producer refreshes cached_cons as ->consumer + Size.
    CachedConsOffset,
    /// xsk_ring_prod__reserve grants n entries when any is free.
    ReservePartial,
    /// The kernel batch consumer releases only the valid entries.
    BatchReleaseCount,
    /// The kernel consumer never stores ->consumer.
    ConsNoPublish,
    /// The missing barrier C; the spec models it by Barriers alone.
    XskRmb,
}

impl Mutant {
    pub const ALL: [Mutant; 7] = [
        Mutant::None,
        Mutant::WrappingAdd,
        Mutant::CachedConsOffset,
        Mutant::ReservePartial,
        Mutant::BatchReleaseCount,
        Mutant::ConsNoPublish,
        Mutant::XskRmb,
    ];

    /// The spec's string for this mutant.
    pub fn id(self) -> &'static str {
        match self {
            Mutant::None => "none",
            Mutant::WrappingAdd => "wrapping-add",
            Mutant::CachedConsOffset => "cached-cons-offset",
            Mutant::ReservePartial => "reserve-partial",
            Mutant::BatchReleaseCount => "batch-release-count",
            Mutant::ConsNoPublish => "cons-no-publish",
            Mutant::XskRmb => "xsk-rmb",
        }
    }

    pub fn from_id(s: &str) -> Option<Mutant> {
        Mutant::ALL.into_iter().find(|m| m.id() == s)
    }
}

/// The spec's CONSTANTS.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Config {
    /// q->nentries, a power of two below 2^idx_bits.
    pub size: u64,
    /// Counters run modulo 2^idx_bits (1..=32; 32 is a real u32).
    pub idx_bits: u32,
    pub prod_side: Side,
    pub cons_side: Side,
    /// The largest n one reserve, submit or peek asks for (1..=size).
    pub max_batch: u64,
    pub barriers: Barriers,
    /// The producer may store invalid descriptors (tx).
    pub invalid_descs: bool,
    /// CopyTx: the kernel consumer is copy mode's transmit loop, which
    /// only peeks one descriptor at a time and stores ->consumer only in
    /// that peek (no ConsPeekBatch, no ConsPublish).
    #[serde(default)]
    pub copy_tx: bool,
    pub mutant: Mutant,
}

impl Config {
    /// The spec's ASSUMEs, plus idx_bits within a u32.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=32).contains(&self.idx_bits) {
            return Err(format!("IdxBits = {} is not in 1..32", self.idx_bits));
        }
        if !self.size.is_power_of_two() || self.size >= self.m() {
            return Err(format!(
                "Size = {} is not a power of two below 2^IdxBits = {}",
                self.size,
                self.m()
            ));
        }
        if !(1..=self.size).contains(&self.max_batch) {
            return Err(format!("MaxBatch = {} is not in 1..Size", self.max_batch));
        }
        if self.copy_tx && self.cons_side != Side::Kernel {
            return Err("CopyTx = TRUE needs ConsSide = \"kernel\"".into());
        }
        Ok(())
    }

    /// M == 2^IdxBits
    pub fn m(&self) -> u64 {
        1u64 << self.idx_bits
    }

    /// Never == M: the entry of a slot never stored into.
    pub fn never(&self) -> u64 {
        self.m()
    }

    /// Mask(i) == i % Size, as a slot index.
    pub fn mask(&self, i: u64) -> usize {
        (i % self.size) as usize
    }

    /// Add(a, b): reduced modulo M except under the wrapping-add mutant.
    pub fn add(&self, a: u64, b: u64) -> u64 {
        if self.mutant == Mutant::WrappingAdd {
            a + b
        } else {
            (a + b) % self.m()
        }
    }

    /// Sub(a, b) == (a - b + M) % M: the wrapping distance a - b.
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        let m = self.m() as i128;
        (a as i128 - b as i128 + m).rem_euclid(m) as u64
    }

    pub fn has(&self, b: Barrier) -> bool {
        self.barriers.contains(b)
    }
}

#[cfg(test)]
impl Config {
    /// The tests' base: a fill ring (user producer, kernel consumer) of
    /// Size 2, IdxBits 3, MaxBatch 2, every barrier, no mutant.
    pub(crate) fn fill() -> Config {
        Config {
            size: 2,
            idx_bits: 3,
            prod_side: Side::User,
            cons_side: Side::Kernel,
            max_batch: 2,
            barriers: Barriers::ALL,
            invalid_descs: false,
            copy_tx: false,
            mutant: Mutant::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(mutant: Mutant) -> Config {
        Config {
            mutant,
            ..Config::fill()
        }
    }

    #[test]
    fn add_reduces_unless_wrapping_add() {
        assert_eq!(cfg(Mutant::None).add(7, 2), 1);
        assert_eq!(cfg(Mutant::WrappingAdd).add(7, 2), 9);
    }

    #[test]
    fn sub_is_the_wrapping_distance() {
        let c = cfg(Mutant::None);
        assert_eq!(c.sub(1, 7), 2);
        assert_eq!(c.sub(8, 0), 0, "Never - 0 wraps to 0");
        assert_eq!(c.sub(3, 3), 0);
    }

    #[test]
    fn u32_counters_fit() {
        let c = Config {
            idx_bits: 32,
            ..cfg(Mutant::None)
        };
        assert_eq!(c.add(u32::MAX as u64, 1), 0);
        assert_eq!(c.sub(0, u32::MAX as u64), 1);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn validate_rejects_the_assumes() {
        assert!(Config {
            size: 3,
            ..cfg(Mutant::None)
        }
        .validate()
        .is_err());
        assert!(Config {
            size: 8,
            ..cfg(Mutant::None)
        }
        .validate()
        .is_err());
        assert!(Config {
            max_batch: 3,
            ..cfg(Mutant::None)
        }
        .validate()
        .is_err());
        assert!(Config {
            idx_bits: 33,
            ..cfg(Mutant::None)
        }
        .validate()
        .is_err());
    }

    #[test]
    fn json_uses_the_spec_strings() {
        let c = Config {
            barriers: Barriers::ALL.without(Barrier::C),
            ..cfg(Mutant::XskRmb)
        };
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["barriers"], serde_json::json!(["A", "B", "D"]));
        assert_eq!(json["mutant"], "xsk-rmb");
        assert_eq!(json["prod_side"], "user");
        assert_eq!(serde_json::from_value::<Config>(json).unwrap(), c);
        for m in Mutant::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), m.id());
        }
    }

    #[test]
    fn ids_round_trip() {
        for m in Mutant::ALL {
            assert_eq!(Mutant::from_id(m.id()), Some(m));
        }
        let bs: Barriers = ["A", "C"]
            .iter()
            .filter_map(|s| Barrier::from_id(s))
            .collect();
        assert!(bs.contains(Barrier::A) && !bs.contains(Barrier::B));
        assert_eq!(bs.iter().map(Barrier::id).collect::<Vec<_>>(), ["A", "C"]);
    }
}
