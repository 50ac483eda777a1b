//! tun's batch in progress on a CPU (tun_sendmsg(TUN_MSG_PTR) from
//! vhost-net): the heads napi_skb_cache_get_bulk() gave it that no frame
//! has been built on yet, the next first, and the frames not yet handled
//! by tun_xdp_one().

use ringlab_ring::sync::Ordering::{Acquire, Release};
use ringlab_ring::sync::{AtomicU32, Mutex};

#[derive(Debug, Default)]
pub struct TunBatch {
    heads: Mutex<Vec<u8>>,
    pending: AtomicU32,
}

impl TunBatch {
    pub fn heads(&self) -> Vec<u8> {
        self.heads.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn pending(&self) -> u32 {
        self.pending.load(Acquire)
    }

    /// A batch of `frames` frames on `heads`.
    pub fn start(&self, heads: Vec<u8>, frames: u32) {
        *self.heads.lock().unwrap_or_else(|e| e.into_inner()) = heads;
        self.pending.store(frames, Release);
    }

    /// One frame handled.
    pub fn handled(&self) {
        self.pending.fetch_sub(1, ringlab_ring::sync::Ordering::AcqRel);
    }

    /// The next head; None if none is left.
    pub fn next_head(&self) -> Option<u8> {
        let mut h = self.heads.lock().unwrap_or_else(|e| e.into_inner());
        (!h.is_empty()).then(|| h.remove(0))
    }

    /// The heads no frame used, the batch ended.
    pub fn finish(&self) -> Vec<u8> {
        std::mem::take(&mut *self.heads.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
