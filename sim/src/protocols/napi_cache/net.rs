//! The kernel's side, callable from any thread: the slab, the skbs, the
//! CPUs (caches, defer lists, tun's batches) and the frames' counters,
//! with the functions of net/core/skbuff.c, net/core/dev.c and
//! drivers/net/tun.c that move heads between them. Each function does
//! what its kernel namesake does to these objects; the guards of the
//! spec's actions are [`super::system`]'s.

use ringlab_ring::sync::Ordering::{AcqRel, Acquire, Relaxed};
use ringlab_ring::sync::{AtomicU32, Mutex};

use super::cache::Access;
use super::cpu::{Cpu, IDLE, NAPI, TUN};
use super::skb::Skbs;
use super::slab::Slab;

/// tun's allocation (the spec's Path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TunPath {
    /// 6.12: build_skb() from the slab, one head a frame.
    Slab,
    /// napi_skb_cache_get_bulk() for the batch.
    Bulk,
    /// The defer list flushed into the cache, then the bulk get.
    Flush,
}

/// The constants the objects need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub n_cpu: u8,
    pub n_skb: u8,
    pub cache_size: usize,
    pub bulk: usize,
    pub defer_max: u32,
    pub batch: u32,
    pub n_frames: u32,
    pub path: TunPath,
}

/// Frames still to arrive, delivered as skbs, dropped.
#[derive(Debug, Default)]
pub struct Frames {
    left: AtomicU32,
    rcvd: AtomicU32,
    dropped: AtomicU32,
}

impl Frames {
    pub fn left(&self) -> u32 {
        self.left.load(Acquire)
    }
    pub fn rcvd(&self) -> u32 {
        self.rcvd.load(Acquire)
    }
    pub fn dropped(&self) -> u32 {
        self.dropped.load(Acquire)
    }
    /// Up to k frames arrive; how many did.
    pub fn take(&self, k: u32) -> u32 {
        let mut n = self.left.load(Acquire);
        loop {
            let got = n.min(k);
            match self.left.compare_exchange(n, n - got, AcqRel, Acquire) {
                Ok(_) => return got,
                Err(m) => n = m,
            }
        }
    }
    pub fn delivered(&self) {
        self.rcvd.fetch_add(1, AcqRel);
    }
    pub fn drop_n(&self, n: u32) {
        self.dropped.fetch_add(n, AcqRel);
    }
}

/// What the kernel did, for the report (not part of the spec's state).
#[derive(Debug, Default)]
pub struct Counters {
    /// skb_defer_free_flush() calls that found skbs.
    pub flushes: AtomicU32,
    /// IPIs sent (kick_defer_list_purge).
    pub kicks: AtomicU32,
    /// Heads a cache handed out (napi_skb_cache_get, _get_bulk).
    pub cache_hits: AtomicU32,
}

#[derive(Debug)]
pub struct Net {
    pub shape: Shape,
    pub slab: Slab,
    pub skbs: Skbs,
    pub cpus: Vec<Cpu>,
    pub frames: Frames,
    pub counters: Counters,
    /// The first skb a flush found on a list not its allocator's.
    misdeferred: Mutex<Option<String>>,
}

impl Net {
    pub fn new(shape: Shape) -> Net {
        let frames = Frames::default();
        frames.left.store(shape.n_frames, Relaxed);
        Net {
            slab: Slab::new(shape.n_skb),
            skbs: Skbs::new(shape.n_skb),
            cpus: (1..=shape.n_cpu).map(|c| Cpu::new(c, shape.cache_size, shape.bulk)).collect(),
            frames,
            counters: Counters::default(),
            misdeferred: Mutex::new(None),
            shape,
        }
    }

    pub fn cpu(&self, c: u8) -> &Cpu {
        &self.cpus[usize::from(c) - 1]
    }

    /// kfree_skb_list_reason(): a reference of every skb on the list from
    /// x dropped (its next read first); one that reaches zero is unlinked
    /// (skb_poison_list) and its head freed, all in one bulk call.
    pub fn kfree_skb_list_reason(&self, mut x: u8) {
        let mut freed = Vec::new();
        while x != 0 {
            let skb = self.skbs.get(x);
            let nx = skb.next();
            let last = skb.unref();
            if last || ringlab_mutant::on("mutant-napi-kfree-list") {
                skb.set_next(0);
            }
            if last {
                skb.set_owner(0);
                freed.push(x);
            }
            x = nx;
        }
        self.slab.free_bulk(&freed);
    }

    /// skb_release_all(): what the skb holds dropped, its frag list
    /// first.
    pub fn skb_release_all(&self, s: u8) {
        let skb = self.skbs.get(s);
        self.kfree_skb_list_reason(skb.frag());
        skb.set_frag(0);
        skb.set_owner(0);
    }

    /// __napi_kfree_skb(): the skb released, its head kept in CPU t's
    /// cache.
    pub fn napi_kfree_skb(&self, a: Access, t: u8, s: u8) {
        if ringlab_mutant::on("mutant-napi-put-unreleased") {
            self.skbs.get(s).set_owner(0);
        } else {
            self.skb_release_all(s);
        }
        self.cpu(t).cache.put(a, &self.slab, s);
    }

    /// napi_consume_skb() past its context check: a reference dropped,
    /// the last freeing the skb into CPU c's cache.
    pub fn napi_consume(&self, a: Access, c: u8, s: u8) {
        let last = self.skbs.get(s).unref();
        if last || ringlab_mutant::on("mutant-napi-consume-no-unref") {
            self.napi_kfree_skb(a, c, s);
        }
    }

    /// napi_consume_skb(s, budget != 0) on CPU c by `a`: the cache's
    /// lock asserted, then a reference dropped.
    pub fn napi_consume_skb(&self, a: Access, c: u8, s: u8) {
        self.cpu(c).cache.assert_local(a);
        self.skbs.get(s).unhold();
        self.napi_consume(a, c, s);
    }

    /// __kfree_skb(): the skb released, its head back to the slab.
    pub fn kfree_skb_head(&self, s: u8) {
        self.skb_release_all(s);
        self.slab.free(s);
    }

    /// kfree_skb(): a holder's reference dropped, the last freeing the
    /// skb to the slab.
    pub fn kfree_skb(&self, s: u8) {
        let skb = self.skbs.get(s);
        skb.unhold();
        if skb.unref() {
            self.kfree_skb_head(s);
        }
    }

    /// skb_defer_free_flush(): CPU c takes its defer list (the count
    /// reset) and consumes each skb into its cache.
    pub fn skb_defer_free_flush(&self, a: Access, c: u8) {
        let cpu = self.cpu(c);
        let skbs = cpu.defer.take(ringlab_mutant::on("mutant-napi-flush-count-kept"));
        if !skbs.is_empty() {
            self.counters.flushes.fetch_add(1, Relaxed);
        }
        if let Some(&s) = skbs.iter().find(|&&s| self.skbs.get(s).owner() != c) {
            let mut m = self.misdeferred.lock().unwrap_or_else(|e| e.into_inner());
            if m.is_none() {
                *m = Some(format!("CPU {c} flushed skb {s} that CPU {} allocated", self.skbs.get(s).owner()));
            }
        }
        for s in skbs {
            self.napi_consume(a, c, s);
        }
    }

    /// What a flush found on a list not its allocator's, if anything.
    pub fn misdeferred(&self) -> Option<String> {
        self.misdeferred.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// net_rx_action() entered on CPU c: BH off, the IPI answered, the
    /// defer list flushed.
    pub fn net_rx_action(&self, c: u8) {
        let cpu = self.cpu(c);
        cpu.local_bh_disable();
        cpu.set_ctx(NAPI);
        cpu.unkick();
        let a = cpu.here();
        cpu.cache.assert_local(a);
        self.skb_defer_free_flush(a, c);
    }

    /// napi_complete_done() and the end of net_rx_action(): the defer
    /// list flushed again, BH on.
    pub fn napi_complete(&self, c: u8) {
        let cpu = self.cpu(c);
        let a = cpu.here();
        cpu.cache.assert_local(a);
        self.skb_defer_free_flush(a, c);
        cpu.set_ctx(IDLE);
        cpu.local_bh_enable();
    }

    /// napi_build_skb() in CPU c's poll, for a frame that arrived: an skb
    /// on a head of the cache, or the frame dropped.
    pub fn napi_build_skb(&self, c: u8, fail: bool) -> Option<u8> {
        let cpu = self.cpu(c);
        match cpu.cache.get(cpu.here(), &self.slab, fail) {
            Some(s) => {
                self.counters.cache_hits.fetch_add(1, Relaxed);
                self.skbs.get(s).build(c);
                self.frames.delivered();
                Some(s)
            }
            None => {
                self.frames.drop_n(1);
                None
            }
        }
    }

    /// skb_attempt_defer_free() by the holder of s's last reference, a
    /// task on CPU c: queued on the allocating CPU's list, or, on that
    /// CPU or when that list is full, freed into this CPU's cache with
    /// BH off (kfree_skb_napi_cache). True if it was queued.
    pub fn skb_attempt_defer_free(&self, c: u8, s: u8) -> bool {
        let skb = self.skbs.get(s);
        skb.set_held(0);
        let o = skb.owner();
        if o == c || self.cpu(o).defer.count() >= self.shape.defer_max {
            let t = if ringlab_mutant::on("mutant-napi-remote-put") { o } else { c };
            let here = self.cpu(c);
            here.local_bh_disable();
            skb.set_users(0);
            self.napi_kfree_skb(here.here(), t, s);
            here.local_bh_enable();
            return false;
        }
        let d = if ringlab_mutant::on("mutant-napi-defer-wrong-cpu") { c } else { o };
        let kick = self.cpu(d).defer.push(s, self.shape.defer_max / 2);
        if kick && !ringlab_mutant::on("mutant-napi-defer-no-kick") {
            self.counters.kicks.fetch_add(1, Relaxed);
            self.cpu(d).kick();
        }
        true
    }

    /// tun_sendmsg(TUN_MSG_PTR) on CPU c for up to Batch frames: BH off,
    /// the defer list flushed (Path flush) and the batch's heads taken
    /// at once (Path bulk, flush). Frames without a head are dropped.
    pub fn tun_sendmsg(&self, c: u8, fail: bool) {
        let cpu = self.cpu(c);
        let k = self.frames.take(self.shape.batch);
        let path = self.shape.path;
        let no_bh = ringlab_mutant::on("mutant-napi-tun-no-bh") && path != TunPath::Slab;
        if !no_bh {
            cpu.local_bh_disable();
        }
        if path == TunPath::Flush {
            self.skb_defer_free_flush(cpu.here(), c);
        }
        if path == TunPath::Slab {
            cpu.tun.start(Vec::new(), k);
        } else {
            let got = cpu.cache.get_bulk(cpu.here(), &self.slab, k as usize, fail);
            self.counters.cache_hits.fetch_add(got.len() as u32, Relaxed);
            cpu.tun.start(got, k);
        }
        if no_bh {
            cpu.local_bh_disable();
        }
        cpu.set_ctx(TUN);
    }

    /// tun_xdp_one() for the next frame of CPU c's batch: XDP_DROP
    /// (`pass` false) takes no head; XDP_PASS builds the skb around the
    /// batch's next head, or with none left on one from this CPU's cache
    /// (napi_build_skb), or with Path slab on one from the slab
    /// (build_skb); a failed allocation drops the frame.
    pub fn tun_xdp_one(&self, c: u8, pass: bool, fail: bool) -> Option<u8> {
        let cpu = self.cpu(c);
        cpu.tun.handled();
        if !pass {
            if !ringlab_mutant::on("mutant-napi-xdp-drop-uncounted") {
                self.frames.drop_n(1);
            }
            return None;
        }
        let s = match cpu.tun.next_head() {
            Some(s) => Some(s),
            None if self.shape.path == TunPath::Slab => self.slab.alloc(fail),
            None => {
                let s = cpu.cache.get(cpu.here(), &self.slab, fail);
                if s.is_some() {
                    self.counters.cache_hits.fetch_add(1, Relaxed);
                }
                s
            }
        };
        match s {
            Some(s) => {
                self.skbs.get(s).build(c);
                self.frames.delivered();
            }
            None => self.frames.drop_n(1),
        }
        s
    }

    /// The end of tun_sendmsg(): the heads no frame used back to the
    /// slab in one kmem_cache_free_bulk() (tun_put_heads), then BH on.
    pub fn tun_sendmsg_end(&self, c: u8) {
        let cpu = self.cpu(c);
        let heads = cpu.tun.finish();
        let a = cpu.here();
        if !heads.is_empty() {
            if ringlab_mutant::on("mutant-napi-bulk-lost-head") {
                // forgotten
            } else if ringlab_mutant::on("mutant-napi-return-overflow") {
                cpu.cache.append_unbounded(a, &heads);
            } else {
                self.slab.free_bulk(&heads);
            }
        }
        cpu.set_ctx(IDLE);
        cpu.local_bh_enable();
    }

    /// skb_get(): a second holder.
    pub fn skb_get(&self, s: u8) {
        let skb = self.skbs.get(s);
        skb.get();
        skb.hold();
    }

    /// skb_gro_receive_list(): t, held once, joins the end of p's frag
    /// list, its reference moving there.
    pub fn skb_gro_receive_list(&self, p: u8, t: u8) {
        self.skbs.get(t).unhold();
        match self.skbs.chain(p).last() {
            None => self.skbs.get(p).set_frag(t),
            Some(&tail) => self.skbs.get(tail).set_next(t),
        }
    }

    /// pskb_copy() on CPU c: a new skb from the slab sharing p's frag
    /// list, whose members each gain a reference (skb_clone_fraglist).
    /// None if the slab has no head.
    pub fn pskb_copy(&self, c: u8, p: u8) -> Option<u8> {
        let n = self.slab.alloc(false)?;
        for x in self.skbs.chain(p) {
            self.skbs.get(x).get();
        }
        let skb = self.skbs.get(n);
        skb.build(c);
        skb.set_frag(self.skbs.get(p).frag());
        Some(n)
    }
}
