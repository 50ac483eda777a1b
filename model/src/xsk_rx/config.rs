//! The CONSTANTS of specs/XskRx.tla and the ASSUMEs on them.

use serde::{Deserialize, Serialize};

use super::state::{Cpu, Sock};

/// Path: how packets reach __xsk_rcv().
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RxPath {
    /// "driver": native XDP in the queue's NAPI poll, xdp_do_flush() at
    /// the poll's end.
    Driver,
    /// "generic": xsk_generic_rcv() on any CPU, under pool->rx_lock.
    Generic,
}

impl RxPath {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            RxPath::Driver => "driver",
            RxPath::Generic => "generic",
        }
    }

    pub fn from_id(s: &str) -> Option<RxPath> {
        [RxPath::Driver, RxPath::Generic]
            .into_iter()
            .find(|p| p.id() == s)
    }
}

/// What the XDP program returns (an element of Verdicts). The order is
/// the order XdpRun's `\E v \in Verdicts` tries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Verdict {
    /// "redirect": XDP_REDIRECT to an XSKMAP index (or XDP_REDIRECT_XSK).
    Redirect,
    /// "drop": XDP_DROP.
    Drop,
    /// "pass": XDP_PASS.
    Pass,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Redirect, Verdict::Drop, Verdict::Pass];

    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Verdict::Redirect => "redirect",
            Verdict::Drop => "drop",
            Verdict::Pass => "pass",
        }
    }

    pub fn from_id(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.id() == s)
    }
}

/// Redirect: "map" (6.12.117, the XSKMAP only) or "xsk" (seed 002's
/// XDP_REDIRECT_XSK fast path beside it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Redirect {
    Map,
    Xsk,
}

impl Redirect {
    /// The spec's string.
    pub fn id(self) -> &'static str {
        match self {
            Redirect::Map => "map",
            Redirect::Xsk => "xsk",
        }
    }

    pub fn from_id(s: &str) -> Option<Redirect> {
        [Redirect::Map, Redirect::Xsk]
            .into_iter()
            .find(|r| r.id() == s)
    }
}

crate::mutant::spec_mutants! {
    spec "XskRx.tla", named "xsk-rx";
    None => "none",
    /// The poll ends without xdp_do_flush().
    XdpMissingFlush => "xdp-missing-flush",
    /// Rx_lock per socket, not per pool
    /// (CVE-2025-37920).
    XskGenRxRace => "xsk-gen-rx-race",
    /// The socket is freed without
    /// synchronize_net().
    RxReleaseNoSync => "rx-release-no-sync",
    /// No whole-packet xskq_prod_nb_free() check.
    RxMbNoSpaceCheck => "rx-mb-no-space-check",
    /// A full rx ring keeps the packet's buffer.
    RxFullLeak => "rx-full-leak",
    /// An empty fill ring drops uncounted.
    RxAllocFailUncounted => "rx-alloc-fail-uncounted",
    /// A redirect error gives the packet no fate.
    RxRedirectErrLost => "rx-redirect-err-lost",
    /// The poll does not stop at its budget.
    NapiBudgetOverrun => "napi-budget-overrun",
    /// Bpf_redirect_xsk() ignores the index.
    RedirectXskIgnoreKey => "redirect-xsk-ignore-key",
    /// A second bind keeps the queue's socket.
    RxqXskTwoSockets => "rxq-xsk-two-sockets",
    /// Release keeps the queue's socket.
    RxqXskStale => "rxq-xsk-stale",
    /// The driver does not flush its own
    /// socket.
    RedirectXskMissingFlush => "redirect-xsk-missing-flush",
    /// The driver flushes the socket
    /// netdev_rx_queue names at the poll's end.
    RedirectXskFlushRereads => "redirect-xsk-flush-rereads",
    /// The application fills the fill ring without
    /// counting the entries consumed and not released.
    RxFillOverrun => "rx-fill-overrun",
    /// A flush publishes the rx producer but not
    /// the fill ring's consumer.
    RxFlushNoFqRelease => "rx-flush-no-fq-release",
    /// The rx ring's free entries counted from
    /// the published producer instead of cached_prod.
    RxRoomFromPublished => "rx-room-from-published",
    /// Release clears the socket's own XSKMAP
    /// entry only, not the others naming it.
    XskmapReleaseOwnEntry => "xskmap-release-own-entry",
    /// Xsk_rcv_check() does not look at the Rx
    /// ring (6.12.117): a socket bound with a Tx ring only is received into.
    RxRingMissingUnchecked => "rx-ring-missing-unchecked",
    /// Xsk_bind() keeps a socket without an Rx
    /// ring in netdev_rx_queue.
    RxqXskTxOnly => "rxq-xsk-tx-only",
    /// The generic receive looks its XSKMAP
    /// entry up again once it holds pool->rx_lock.
    RedirectRereadsEntry => "redirect-rereads-entry",
    /// The poll ends with a partial
    /// XDP_REDIRECT_XSK batch not received.
    RedirectXskBatchTailLost => "redirect-xsk-batch-tail-lost",
    /// A packet of another action is handled
    /// before the XDP_REDIRECT_XSK batch it interrupts.
    RedirectXskBatchReorder => "redirect-xsk-batch-reorder",
    /// Xsk_rcv_batch() receives into the
    /// socket netdev_rx_queue names then, not the one kept for the packet.
    RedirectXskBatchStaleSock => "redirect-xsk-batch-stale-sock",
    /// The driver tests its batch for full
    /// after adding a packet: one packet more than the array holds.
    RedirectXskBatchOverflow => "redirect-xsk-batch-overflow",
    /// A packet for another socket joins
    /// the batch, which is kept with one socket.
    RedirectXskBatchMixedSock => "redirect-xsk-batch-mixed-sock",
    /// Xsk_rcv_batch() leaves out
    /// xsk_rcv_check()'s frame-size test for sockets without XDP_USE_SG.
    RedirectXskBatchSgUnchecked => "redirect-xsk-batch-sg-unchecked",
}

/// The spec's CONSTANTS. CPUs are model values, named here and numbered
/// by their position in `cpus` (the order the .cfg lists them); sockets,
/// buffers and packets are the spec's numbers 1..N.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Cpus.
    pub cpus: Vec<String>,
    /// NSockets: sockets on the queue's pool, 1..NSockets.
    pub n_sockets: u8,
    /// NBufs: umem chunks.
    pub n_bufs: u8,
    /// MaxPkts: packets that arrive.
    pub max_pkts: u8,
    /// MaxLen: chunks a packet may need.
    pub max_len: u8,
    /// SG: the sockets were bound with XDP_USE_SG.
    pub sg: bool,
    /// FqSize: entries of the shared fill ring.
    pub fq_size: u32,
    /// RxSize: entries of each rx ring.
    pub rx_size: u32,
    /// PollBudget: packets one NAPI poll handles.
    pub poll_budget: u32,
    /// Path.
    pub path: RxPath,
    /// Verdicts, in Verdict's order, without repeats.
    pub verdicts: Vec<Verdict>,
    /// Closes: an application may close its socket.
    pub closes: bool,
    /// LateBind: sockets that start unbound and out of the XSKMAP,
    /// ascending.
    pub late_bind: Vec<Sock>,
    /// Remap: the application may put any socket in any XSKMAP entry at
    /// any time (false: each LateBind socket in its own entry, once).
    #[serde(default)]
    pub remap: bool,
    /// TxOnly: sockets bound with a Tx ring only (no Rx ring), ascending.
    #[serde(default)]
    pub tx_only: Vec<Sock>,
    /// Redirect.
    pub redirect: Redirect,
    /// Batch: XDP_REDIRECT_XSK packets the driver receives together
    /// (xsk_rcv_batch()); 1: each as its program returns.
    #[serde(default = "one")]
    pub batch: u8,
    pub mutant: Mutant,
}

fn one() -> u8 {
    1
}

impl Config {
    /// MCXskRx_Driver.cfg: native XDP on two CPUs, two sockets, packets of
    /// one or two chunks, every verdict, sockets closing.
    pub fn driver() -> Config {
        Config {
            cpus: vec!["c1".into(), "c2".into()],
            n_sockets: 2,
            n_bufs: 2,
            max_pkts: 3,
            max_len: 2,
            sg: true,
            fq_size: 2,
            rx_size: 1,
            poll_budget: 2,
            path: RxPath::Driver,
            verdicts: Verdict::ALL.to_vec(),
            closes: true,
            late_bind: vec![],
            remap: false,
            tx_only: vec![],
            redirect: Redirect::Map,
            batch: 1,
            mutant: Mutant::None,
        }
    }

    /// MCXskRx_Generic.cfg: generic XDP, single chunks, XDP_REDIRECT only.
    pub fn generic() -> Config {
        Config {
            max_len: 1,
            sg: false,
            path: RxPath::Generic,
            verdicts: vec![Verdict::Redirect],
            ..Config::driver()
        }
    }

    /// MCXskRedirectXsk_Fast.cfg: the fast path, socket 2 bound late.
    pub fn fast() -> Config {
        Config {
            verdicts: vec![Verdict::Redirect, Verdict::Drop],
            late_bind: vec![2],
            redirect: Redirect::Xsk,
            ..Config::driver()
        }
    }

    /// MCXskRedirectXsk_Batch.cfg: the fast path receiving batches of two
    /// packets in polls of three, socket 2 bound late.
    pub fn batch() -> Config {
        Config {
            batch: 2,
            poll_budget: 3,
            ..Config::fast()
        }
    }

    /// The generic path with two sockets on one umem of three buffers,
    /// never closed: the shared `pool->rx_lock`'s case.
    pub fn shared_umem() -> Config {
        Config {
            n_bufs: 3,
            closes: false,
            ..Config::generic()
        }
    }

    /// Seed 002's common case: one socket on the queue, in the XSKMAP.
    pub fn fast_one() -> Config {
        Config {
            n_sockets: 1,
            late_bind: vec![],
            ..Config::fast()
        }
    }

    /// The same constants with another mutant.
    pub fn with_mutant(self, mutant: Mutant) -> Config {
        Config { mutant, ..self }
    }

    /// The constants of XskRedirectXsk.tla's `Map` instance: Redirect
    /// "map", Batch 1 and no mutant, the rest as here.
    pub fn refined(&self) -> Config {
        Config {
            redirect: Redirect::Map,
            batch: 1,
            mutant: Mutant::None,
            ..self.clone()
        }
    }

    /// The spec's ASSUMEs, and what the model's types need.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("NSockets", u32::from(self.n_sockets)),
            ("NBufs", u32::from(self.n_bufs)),
            ("MaxLen", u32::from(self.max_len)),
            ("FqSize", self.fq_size),
            ("RxSize", self.rx_size),
            ("PollBudget", self.poll_budget),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(format!("{name} = 0 is not in Nat \\ {{0}}"));
            }
        }
        if !self.verdicts.contains(&Verdict::Redirect) {
            return Err("\"redirect\" is not in Verdicts".into());
        }
        if self.verdicts.windows(2).any(|w| w[0] >= w[1]) {
            return Err("Verdicts must be listed in the model's order, once each".into());
        }
        if let Some(s) = self
            .late_bind
            .iter()
            .find(|&&s| s == 0 || s > self.n_sockets)
        {
            return Err(format!("LateBind holds {s}, not in 1..NSockets"));
        }
        if self.late_bind.windows(2).any(|w| w[0] >= w[1]) {
            return Err("LateBind must be ascending, once each".into());
        }
        if let Some(s) = self.tx_only.iter().find(|&&s| s == 0 || s > self.n_sockets) {
            return Err(format!("TxOnly holds {s}, not in 1..NSockets"));
        }
        if self.tx_only.windows(2).any(|w| w[0] >= w[1]) {
            return Err("TxOnly must be ascending, once each".into());
        }
        if self.redirect == Redirect::Xsk && self.path != RxPath::Driver {
            return Err("Redirect = \"xsk\" needs Path = \"driver\"".into());
        }
        if self.batch == 0 {
            return Err("Batch = 0 is not in Nat \\ {0}".into());
        }
        if self.batch > 1 && self.redirect != Redirect::Xsk {
            return Err(format!(
                "Batch = {} needs Redirect = \"xsk\" (Batch > 1 => Redirect = \"xsk\")",
                self.batch
            ));
        }
        if self.cpus.is_empty() || self.cpus.len() > 8 {
            return Err("the model needs 1 to 8 CPUs".into());
        }
        for (i, c) in self.cpus.iter().enumerate() {
            if self.cpus[..i].contains(c) {
                return Err(format!("CPU {c} is listed twice"));
            }
        }
        if self.n_bufs > 64 || self.n_sockets > 64 || self.max_pkts > 200 {
            return Err("the model takes at most 64 buffers and sockets, 200 packets".into());
        }
        Ok(())
    }

    /// Sockets, ascending.
    pub fn sockets(&self) -> impl Iterator<Item = Sock> + Clone {
        1..=self.n_sockets
    }

    /// Bufs, ascending.
    pub fn bufs(&self) -> impl Iterator<Item = u8> + Clone {
        1..=self.n_bufs
    }

    /// Cpus, in TLC's order (as the .cfg lists them).
    pub fn cpu_ids(&self) -> impl Iterator<Item = Cpu> + Clone {
        0..self.cpus.len() as Cpu
    }

    /// Keys: the XSKMAP's indexes (Keys == Sockets), ascending.
    pub fn keys(&self) -> impl Iterator<Item = Sock> + Clone {
        self.sockets()
    }

    /// s \in LateBind
    pub fn late(&self, s: Sock) -> bool {
        self.late_bind.contains(&s)
    }

    /// s \in TxOnly: s was bound without an Rx ring.
    pub fn tx_only(&self, s: Sock) -> bool {
        self.tx_only.contains(&s)
    }

    /// RxqEligible(s): the queue may keep s for the fast path: s has an
    /// Rx ring (rxq-xsk-tx-only: any socket).
    pub fn rxq_eligible(&self, s: Sock) -> bool {
        !self.tx_only(s) || self.mutant == Mutant::RxqXskTxOnly
    }

    /// LockOf(s): the lock a receive for s takes: pool->rx_lock (1), or
    /// the socket's own under xsk-gen-rx-race.
    pub fn lock_of(&self, s: Sock) -> Sock {
        if self.mutant == Mutant::XskGenRxRace {
            s
        } else {
            1
        }
    }
}
