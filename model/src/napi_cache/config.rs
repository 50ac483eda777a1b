//! The CONSTANTS of specs/NapiSkbCache.tla and the ASSUMEs on them.

use serde::{Deserialize, Serialize};

use super::state::{Cpu, Skb};

/// Path: how tun_sendmsg() finds heads for a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Path {
    /// "slab" (linux 6.12): build_skb() takes each frame's head from the slab.
    Slab,
    /// "bulk": the batch's heads from napi_skb_cache_get_bulk().
    Bulk,
    /// "flush": the defer list flushed into the cache, then the bulk get.
    Flush,
}

impl Path {
    pub const ALL: [Path; 3] = [Path::Slab, Path::Bulk, Path::Flush];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Path::Slab => "slab",
            Path::Bulk => "bulk",
            Path::Flush => "flush",
        }
    }

    pub fn from_id(s: &str) -> Option<Path> {
        Path::ALL.into_iter().find(|p| p.id() == s)
    }
}

crate::mutant::spec_mutants! {
    spec "NapiSkbCache.tla", named "napi-cache";
    None => "none",
    /// kfree_skb_list_reason() unlinks an skb still referenced.
    KfreeList => "napi-kfree-list",
    /// napi_consume_skb() from task context (BH on).
    VirtioCache => "napi-virtio-cache",
    /// tun's bulk get with BH on.
    TunNoBh => "napi-tun-no-bh",
    /// The full-list fallback frees into the allocator's cache.
    RemotePut => "napi-remote-put",
    /// Unused batch heads copied back past the cache's size.
    ReturnOverflow => "napi-return-overflow",
    /// __napi_kfree_skb() without skb_release_all().
    PutUnreleased => "napi-put-unreleased",
    /// napi_consume_skb() recycles at a reference not its last.
    ConsumeNoUnref => "napi-consume-no-unref",
    /// Unused batch heads forgotten.
    BulkLostHead => "napi-bulk-lost-head",
    /// skb_attempt_defer_free() queues on the freeing CPU.
    DeferWrongCpu => "napi-defer-wrong-cpu",
    /// The flush leaves defer_count.
    FlushCountKept => "napi-flush-count-kept",
    /// XDP_DROP not counted.
    XdpDropUncounted => "napi-xdp-drop-uncounted",
    /// No IPI at half of DeferMax.
    DeferNoKick => "napi-defer-no-kick",
    /// GRO appends an skb to its own frag list.
    GroSelf => "napi-gro-self",
}

impl Mutant {
    /// ringlab-mutant's switch for this mutant (`mutant-<id>`).
    pub fn feature(self) -> Option<&'static str> {
        Some(match self {
            Mutant::None => return None,
            Mutant::KfreeList => "mutant-napi-kfree-list",
            Mutant::VirtioCache => "mutant-napi-virtio-cache",
            Mutant::TunNoBh => "mutant-napi-tun-no-bh",
            Mutant::RemotePut => "mutant-napi-remote-put",
            Mutant::ReturnOverflow => "mutant-napi-return-overflow",
            Mutant::PutUnreleased => "mutant-napi-put-unreleased",
            Mutant::ConsumeNoUnref => "mutant-napi-consume-no-unref",
            Mutant::BulkLostHead => "mutant-napi-bulk-lost-head",
            Mutant::DeferWrongCpu => "mutant-napi-defer-wrong-cpu",
            Mutant::FlushCountKept => "mutant-napi-flush-count-kept",
            Mutant::XdpDropUncounted => "mutant-napi-xdp-drop-uncounted",
            Mutant::DeferNoKick => "mutant-napi-defer-no-kick",
            Mutant::GroSelf => "mutant-napi-gro-self",
        })
    }
}

/// The spec's CONSTANTS.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Config {
    /// NCpu: CPUs 1..NCpu.
    pub ncpu: Cpu,
    /// NSkb: heads in the slab, ids 1..NSkb.
    pub nskb: Skb,
    /// CacheSize: NAPI_SKB_CACHE_SIZE.
    pub cache_size: u32,
    /// Bulk: NAPI_SKB_CACHE_BULK.
    pub bulk: u32,
    /// DeferMax: sysctl_skb_defer_max.
    pub defer_max: u32,
    /// Batch: frames of one tun_sendmsg(TUN_MSG_PTR).
    pub batch: u32,
    /// NFrames: frames that arrive.
    pub nframes: u32,
    pub path: Path,
    /// Clone: skb_get, frag lists and pskb_copy.
    pub clone: bool,
    /// SlabFail: any slab call may fail.
    pub slab_fail: bool,
    pub mutant: Mutant,
}

impl Config {
    /// MCNapiSkbCache.cfg: two CPUs, four heads, a cache of four refilled
    /// two at a time, defer lists of two, batches of two, three frames,
    /// Path "flush", the slab failing at will.
    pub fn small() -> Config {
        Config {
            ncpu: 2,
            nskb: 4,
            cache_size: 4,
            bulk: 2,
            defer_max: 2,
            batch: 2,
            nframes: 3,
            path: Path::Flush,
            clone: false,
            slab_fail: true,
            mutant: Mutant::None,
        }
    }

    /// The kernel's sizes (NAPI_SKB_CACHE_SIZE 64, NAPI_SKB_CACHE_BULK 16,
    /// skb_defer_max 64, VHOST_NET_BATCH 64) for seeded walks.
    pub fn kernel(ncpu: Cpu, nskb: Skb, nframes: u32, path: Path) -> Config {
        Config {
            ncpu,
            nskb,
            cache_size: 64,
            bulk: 16,
            defer_max: 64,
            batch: 64,
            nframes,
            path,
            clone: false,
            slab_fail: false,
            mutant: Mutant::None,
        }
    }

    /// The same constants with another mutant.
    pub fn with_mutant(self, mutant: Mutant) -> Config {
        Config { mutant, ..self }
    }

    /// The same constants with another Path.
    pub fn with_path(self, path: Path) -> Config {
        Config { path, ..self }
    }

    /// Whether the step puts mutant `m` back: the .cfg's Mutant says so,
    /// or a mutants build was told to by ringlab-mutant (then the model
    /// itself is wrong, whatever the config says, and the checks built on
    /// it must fail).
    pub fn bug(&self, m: Mutant) -> bool {
        self.mutant == m || m.feature().is_some_and(ringlab_mutant::on)
    }

    /// The spec's ASSUMEs.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("NCpu", u32::from(self.ncpu)),
            ("NSkb", u32::from(self.nskb)),
            ("CacheSize", self.cache_size),
            ("Bulk", self.bulk),
            ("DeferMax", self.defer_max),
            ("Batch", self.batch),
        ] {
            if v == 0 {
                return Err(format!("{name} = 0 is not in Nat \\ {{0}}"));
            }
        }
        if self.cache_size < 2 {
            return Err(format!("CacheSize = {} is below 2", self.cache_size));
        }
        if self.bulk > self.cache_size {
            return Err(format!(
                "Bulk = {} is above CacheSize = {}",
                self.bulk, self.cache_size
            ));
        }
        Ok(())
    }

    /// Half: what a full cache keeps.
    pub fn half(&self) -> u32 {
        self.cache_size / 2
    }

    /// CPUs, 1..NCpu.
    pub fn cpus(&self) -> impl Iterator<Item = Cpu> {
        1..=self.ncpu
    }

    /// Skbs, 1..NSkb.
    pub fn skbs(&self) -> impl Iterator<Item = Skb> {
        1..=self.nskb
    }

    /// Fails: the choices of a slab call, FALSE first (TLC's order).
    pub fn fails(&self) -> &'static [bool] {
        if self.slab_fail {
            &[false, true]
        } else {
            &[false]
        }
    }

    pub fn has_cpu(&self, c: Cpu) -> bool {
        (1..=self.ncpu).contains(&c)
    }

    pub fn has_skb(&self, s: Skb) -> bool {
        (1..=self.nskb).contains(&s)
    }
}
