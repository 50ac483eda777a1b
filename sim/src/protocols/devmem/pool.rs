//! The binding's page pool, as far as the tokens see it: the free list of
//! net_iovs (the gen_pool net_devmem_alloc_dmabuf() takes from and
//! net_devmem_free_dmabuf() returns to, with the page pool's caches in
//! front). A net_iov pushed while it is in the list, or while its
//! pp_ref_count is not zero, is a broken invariant of the simulator's own
//! code and stops it on the spot.

use super::niov::NetIov;
use ringlab_ring::sync::Mutex;
use ringlab_ring::sync::Ordering::Acquire;

#[derive(Debug)]
struct Free {
    /// Free net_iovs, most recently returned last (taken first).
    list: Vec<usize>,
    /// Times each net_iov sits in `list` (0 or 1).
    pooled: Vec<u32>,
    /// Times each net_iov was returned.
    returned: Vec<u64>,
    /// False once the rx queues are restarted without the binding
    /// (unbind): nothing is handed out any more.
    open: bool,
}

#[derive(Debug)]
pub struct PagePool {
    free: Mutex<Free>,
}

impl PagePool {
    /// An empty pool of `niovs` net_iovs, not yet open.
    pub fn new(niovs: usize) -> PagePool {
        PagePool {
            free: Mutex::new(Free {
                list: Vec::new(),
                pooled: vec![0; niovs],
                returned: vec![0; niovs],
                open: false,
            }),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Free) -> R) -> R {
        f(&mut self.free.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The binding is bound to its queue: every net_iov is free.
    pub fn fill(&self) {
        self.with(|p| {
            assert!(p.list.is_empty(), "page pool: filled twice");
            p.list = (0..p.pooled.len()).rev().collect();
            p.pooled.iter_mut().for_each(|c| *c = 1);
            p.open = true;
        })
    }

    /// page_pool_alloc_netmems(): `want` (or any) free net_iov, if the
    /// pool is open and has it.
    pub fn alloc(&self, want: Option<usize>) -> Option<usize> {
        self.with(|p| {
            if !p.open {
                return None;
            }
            let at = match want {
                Some(n) => p.list.iter().position(|&m| m == n)?,
                None => p.list.len().checked_sub(1)?,
            };
            let n = p.list.remove(at);
            p.pooled[n] -= 1;
            Some(n)
        })
    }

    /// net_devmem_free_dmabuf(): `n`, whose last reference was just
    /// dropped, is free again.
    pub fn push(&self, n: usize, niov: &NetIov) {
        self.with(|p| {
            assert_eq!(
                p.pooled[n], 0,
                "page pool: net_iov {n} pushed while it is in the free list"
            );
            let refs = niov.pp_ref_count.load(Acquire);
            assert_eq!(
                refs, 0,
                "page pool: net_iov {n} pushed with pp_ref_count {refs}"
            );
            p.pooled[n] += 1;
            p.returned[n] += 1;
            p.list.push(n);
        })
    }

    /// Unbind: the queues no longer take from this pool. Net_iovs still
    /// come back to it.
    pub fn close(&self) {
        self.with(|p| p.open = false)
    }

    /// Times each net_iov sits in the free list.
    pub fn pooled(&self) -> Vec<u32> {
        self.with(|p| p.pooled.clone())
    }

    /// Times each net_iov was returned to the free list.
    pub fn returned(&self) -> Vec<u64> {
        self.with(|p| p.returned.clone())
    }

    pub fn is_open(&self) -> bool {
        self.with(|p| p.open)
    }

    /// The free list, in order (for checks).
    pub fn list(&self) -> Vec<usize> {
        self.with(|p| p.list.clone())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn alloc_takes_what_push_returned() {
        let p = PagePool::new(2);
        let n = NetIov::default();
        assert_eq!(p.alloc(None), None, "not open yet");
        p.fill();
        assert_eq!(p.alloc(Some(1)), Some(1));
        assert_eq!(p.alloc(Some(1)), None);
        p.push(1, &n);
        assert_eq!(p.pooled(), [1, 1]);
        assert_eq!(p.returned(), [0, 1]);
        p.close();
        assert_eq!(p.alloc(None), None);
    }

    #[test]
    #[should_panic(expected = "pushed while it is in the free list")]
    fn a_double_push_stops_the_run() {
        let p = PagePool::new(1);
        p.fill();
        p.push(0, &NetIov::default());
    }

    #[test]
    #[should_panic(expected = "pushed with pp_ref_count 1")]
    fn a_push_while_referenced_stops_the_run() {
        let p = PagePool::new(1);
        p.fill();
        let n = NetIov::default();
        n.set_first_ref();
        let k = p.alloc(None).unwrap();
        p.push(k, &n);
    }
}
