//! The application: the buffers it holds, its producer of the shared
//! fill ring (libxdp's xsk_ring_prod) and its consumer of each socket's
//! rx ring (xsk_ring_cons). One thread at a time per handle.

use std::collections::BTreeSet;

use ringlab_model::xsk_rx::{Buf, Sock};
use ringlab_ring::sync::{Arc, Mutex};
use ringlab_ring::{Ring, UserCons, UserProd, XdpDesc};

use super::pool::{addr_of, buf_of};

pub type FqProd = UserProd<Arc<Ring<u64>>>;
pub type RxCons = UserCons<Arc<Ring<XdpDesc>>>;

#[derive(Debug)]
pub struct App {
    pub ufree: Mutex<BTreeSet<Buf>>,
    fq: Mutex<FqProd>,
    /// Each socket's rx consumer; None once the socket is freed.
    pub rx: Vec<Mutex<Option<RxCons>>>,
}

impl App {
    pub fn new(
        bufs: impl Iterator<Item = Buf>,
        fq: &Arc<Ring<u64>>,
        rx: &[Arc<Ring<XdpDesc>>],
    ) -> App {
        // Safety: the application is the only user producer of the fill
        // ring and the only user consumer of each rx ring.
        let (fq, rx) = unsafe {
            (
                UserProd::new(fq.clone()),
                rx.iter()
                    .map(|r| Mutex::new(Some(UserCons::new(r.clone()))))
                    .collect(),
            )
        };
        App {
            ufree: Mutex::new(bufs.collect()),
            fq: Mutex::new(fq),
            rx,
        }
    }

    pub fn holds(&self, b: Buf) -> bool {
        self.ufree
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&b)
    }

    pub fn held(&self) -> BTreeSet<Buf> {
        self.ufree.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// xsk_ring_prod__reserve(1), the address, xsk_ring_prod__submit(1):
    /// buffer b (which the application holds) onto the fill ring. False:
    /// the ring is full as far as the kernel has published its consumer.
    pub fn fill(&self, b: Buf) -> bool {
        let mut ufree = self.ufree.lock().unwrap_or_else(|e| e.into_inner());
        if !ufree.contains(&b) {
            return false;
        }
        let mut p = self.fq.lock().unwrap_or_else(|e| e.into_inner());
        let Some(idx) = p.reserve(1) else {
            return false;
        };
        p.write(idx, addr_of(b));
        p.submit(1);
        ufree.remove(&b);
        true
    }

    /// xsk_ring_cons__peek(1), the descriptor, xsk_ring_cons__release(1)
    /// on s's rx ring: the buffer is the application's again.
    pub fn recv(&self, s: Sock) -> Option<Buf> {
        let mut g = self.rx[usize::from(s) - 1]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let c = g.as_mut()?;
        let (n, idx) = c.peek(1);
        if n == 0 {
            return None;
        }
        let b = buf_of(c.read(idx).addr);
        c.release(1);
        self.ufree
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(b);
        Some(b)
    }

    /// The socket is freed with its rings: its rx consumer goes, and the
    /// buffers `left()` reads on the ring are the application's again
    /// (read with the consumer held, so no receive races it).
    pub fn freed(&self, s: Sock, left: impl FnOnce() -> Vec<Buf>) {
        let mut g = self.rx[usize::from(s) - 1]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let bufs = left();
        *g = None;
        self.ufree
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(bufs);
    }
}
