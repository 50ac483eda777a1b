//! The application: libxdp's producer side of each tx ring and consumer
//! side of the completion ring, and the frames it owns.

use std::collections::BTreeSet;

use super::umem::Umem;
use super::{Disabled, Step};
use crate::ring::{Ring, UserCons, UserProd, XdpDesc};
use crate::sync::Arc;

pub type TxProd = UserProd<Arc<Ring<XdpDesc>>>;
pub type CqCons = UserCons<Arc<Ring<u64>>>;

#[derive(Debug)]
pub struct App {
    pub umem: Umem,
    pub tx: Vec<TxProd>,
    pub cq: CqCons,
    /// The frames the application owns.
    pub free: BTreeSet<u32>,
    /// Completions taken.
    pub reaped: u64,
    /// How the next invalid descriptor is broken (see [`Umem::desc`]).
    bad: u32,
}

impl App {
    pub fn new(umem: Umem, tx: Vec<TxProd>, cq: CqCons) -> App {
        App {
            umem,
            tx,
            cq,
            free: (0..umem.frames).collect(),
            reaped: 0,
            bad: 0,
        }
    }

    /// UserSubmit(s, f, ok): fill a tx descriptor for frame f, which the
    /// application owns, and submit it (xsk_ring_prod__reserve(),
    /// xsk_ring_prod__tx_desc(), xsk_ring_prod__submit()). A descriptor
    /// that is not ok is one the kernel's validation rejects.
    pub fn user_submit(&mut self, s: usize, f: u32, ok: bool) -> Step {
        let fail = |why: String| Err(Disabled::new("UserSubmit", why));
        if s >= self.tx.len() {
            return fail(format!("no socket {s}"));
        }
        if !self.free.contains(&f) {
            return fail(format!("frame {f} is not the application's"));
        }
        let Some(idx) = self.tx[s].reserve(1) else {
            return fail(format!("the tx ring of socket {s} is full"));
        };
        let d = self.umem.desc(f, ok, self.bad);
        if !ok {
            self.bad = self.bad.wrapping_add(1);
        }
        self.tx[s].write(idx, d);
        self.tx[s].submit(1);
        self.free.remove(&f);
        Ok(())
    }

    /// UserReap: take one completion (xsk_ring_cons__peek(),
    /// xsk_ring_cons__comp_addr(), xsk_ring_cons__release()) and own its
    /// frame again; returns the frame.
    pub fn user_reap(&mut self) -> Result<u32, Disabled> {
        let (n, idx) = self.cq.peek(1);
        if n == 0 {
            return Err(Disabled::new("UserReap", "the completion ring is empty"));
        }
        let addr = self.cq.read(idx);
        self.cq.release(1);
        let f = self.umem.frame(addr).unwrap_or_else(|| {
            panic!("completion {addr:#x} at position {idx} is no frame of the umem")
        });
        self.free.insert(f);
        self.reaped += 1;
        Ok(f)
    }

    /// Completions published and not yet taken.
    pub fn cq_avail(&mut self) -> u32 {
        self.cq.nb_avail(u32::MAX)
    }

    /// Free room in socket s's tx ring as the application sees it.
    pub fn tx_room(&mut self, s: usize) -> u32 {
        self.tx[s].nb_free(1)
    }
}
