//! The heap operators the free paths fold over (the spec's H(c) is the
//! state itself, with cache[c] as its stack): FreeList, ReleaseAll,
//! CachePut, NapiKfree, NapiConsume, SlabFree, Refill, CacheGet,
//! CacheGetBulk, and the defer list's flush.

use super::config::{Config, Mutant};
use super::cost::count;
use super::state::{ci, si, Cpu, Skb, State};

/// Lowest(S, k): the k lowest ids of S, ascending.
fn lowest(slab: &std::collections::BTreeSet<Skb>, k: usize) -> Vec<Skb> {
    slab.iter().copied().take(k).collect()
}

impl State {
    /// FreeList(h, x): kfree_skb_list_reason(): one reference dropped from
    /// every skb on the list from x (each next read first); one reaching
    /// zero is unlinked (skb_poison_list) and goes back to the slab.
    pub(super) fn free_list(&mut self, cfg: &Config, mut x: Skb) {
        let mut freed = false;
        while x != 0 {
            let k = si(x);
            let nx = self.next[k];
            let last = self.users[k] == 1;
            let unlink = last || cfg.bug(Mutant::KfreeList);
            self.users[k] -= 1;
            if unlink {
                self.next[k] = 0;
            }
            if last {
                self.owner[k] = 0;
                self.slab.insert(x);
                freed = true;
            }
            x = nx;
        }
        if freed {
            count(|c| c.slab_free_bulk += 1);
        }
    }

    /// ReleaseAll(h, s): skb_release_all(): the frag list is dropped.
    pub(super) fn release_all(&mut self, cfg: &Config, s: Skb) {
        self.free_list(cfg, self.frag[si(s)]);
        self.frag[si(s)] = 0;
        self.owner[si(s)] = 0;
    }

    /// CachePut(h, s): napi_skb_cache_put(): push a head; a full stack
    /// gives its newer half back (kmem_cache_free_bulk).
    pub(super) fn cache_put(&mut self, cfg: &Config, c: Cpu, s: Skb) {
        let q = &mut self.cache[ci(c)];
        q.push(s);
        if q.len() == cfg.cache_size as usize {
            let newer = q.split_off(cfg.half() as usize);
            self.slab.extend(newer);
            count(|c| c.slab_free_bulk += 1);
        }
    }

    /// NapiKfree(h, s): __napi_kfree_skb(): release, then keep the head.
    pub(super) fn napi_kfree(&mut self, cfg: &Config, c: Cpu, s: Skb) {
        if cfg.bug(Mutant::PutUnreleased) {
            self.owner[si(s)] = 0;
        } else {
            self.release_all(cfg, s);
        }
        self.cache_put(cfg, c, s);
    }

    /// NapiConsume(h, s): napi_consume_skb() with a budget: the last
    /// reference frees into the cache.
    pub(super) fn napi_consume(&mut self, cfg: &Config, c: Cpu, s: Skb) {
        let last = self.users[si(s)] == 1;
        self.users[si(s)] -= 1;
        if last || cfg.bug(Mutant::ConsumeNoUnref) {
            self.napi_kfree(cfg, c, s);
        }
    }

    /// SlabFree(h, s): __kfree_skb(): release, then kmem_cache_free().
    pub(super) fn slab_free(&mut self, cfg: &Config, s: Skb) {
        self.release_all(cfg, s);
        self.slab.insert(s);
        count(|c| c.slab_free += 1);
    }

    /// A frame built on head `s` by CPU c and handed to the stack: one
    /// user, held once, allocated on c (the spec's Fresh and Built).
    pub(super) fn deliver(&mut self, s: Skb, c: Cpu) {
        self.users[si(s)] = 1;
        self.owner[si(s)] = c;
        self.held[si(s)] = 1;
        self.rcvd += 1;
    }

    /// Refill(h, k, fail): kmem_cache_alloc_bulk() of k heads into the
    /// cache, all or nothing.
    pub(super) fn refill(&mut self, c: Cpu, k: i64, fail: bool) {
        if k > 0 {
            count(|n| n.slab_alloc_bulk += 1);
        }
        if !fail && k > 0 && self.slab.len() as i64 >= k {
            let got = lowest(&self.slab, k as usize);
            for s in &got {
                self.slab.remove(s);
            }
            self.cache[ci(c)].extend(got);
        }
    }

    /// CacheGet(h, fail): napi_skb_cache_get(): the top head, refilled
    /// with Bulk heads when empty; 0 when the slab call failed.
    pub(super) fn cache_get(&mut self, cfg: &Config, c: Cpu, fail: bool) -> Skb {
        if self.cache[ci(c)].is_empty() {
            self.refill(c, i64::from(cfg.bulk), fail);
        } else {
            count(|n| n.cache_hits += 1);
        }
        self.cache[ci(c)].pop().unwrap_or(0)
    }

    /// CacheGetBulk(h, n, fail): napi_skb_cache_get_bulk() (series 1/5):
    /// until n heads are taken, a cache holding fewer than still wanted
    /// is topped up with what is missing rounded up to Bulk (never past
    /// CacheSize), then its top heads are taken in array order; an empty
    /// cache ends the loop (GetBulkLoop).
    pub(super) fn cache_get_bulk(&mut self, cfg: &Config, c: Cpu, n: u32, fail: bool) -> Vec<Skb> {
        let n = n as usize;
        let bulk = cfg.bulk as usize;
        let mut got: Vec<Skb> = Vec::new();
        while got.len() < n {
            let need = n - got.len();
            let len = self.cache[ci(c)].len();
            count(|k| k.cache_hits += need.min(len) as u64);
            if len < need {
                let up = (need - len).div_ceil(bulk) * bulk;
                let want = up.min((cfg.cache_size as usize).saturating_sub(len));
                self.refill(c, want as i64, fail);
            }
            let q = &mut self.cache[ci(c)];
            if q.is_empty() {
                break;
            }
            let take = need.min(q.len());
            got.extend(q.split_off(q.len() - take));
        }
        got
    }

    /// FlushHeap(c): skb_defer_free_flush(): every skb on c's defer list
    /// consumed into c's cache, newest first (the lists are left to
    /// flush_lists).
    pub(super) fn flush_heap(&mut self, cfg: &Config, c: Cpu) {
        let list = self.defer[ci(c)].clone();
        if !list.is_empty() {
            count(|n| n.defer_flushes += 1);
        }
        for s in list {
            self.napi_consume(cfg, c, s);
        }
    }

    /// FlushLists(c): the list taken, defer_count reset.
    pub(super) fn flush_lists(&mut self, cfg: &Config, c: Cpu) {
        self.defer[ci(c)].clear();
        if !cfg.bug(Mutant::FlushCountKept) {
            self.dcount[ci(c)] = 0;
        }
    }
}
