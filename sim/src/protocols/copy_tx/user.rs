//! The application: libxdp's producer side of each tx ring and consumer
//! side of the completion ring, and the frames it owns.

use std::collections::BTreeSet;

use super::umem::Umem;
use super::{Disabled, Step};
use ringlab_ring::{Ring, RingMem, UserCons, UserProd, XdpDesc};
use ringlab_ring::sync::Arc;

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
    /// The application may set XDP_PKT_CONTD.
    pub multi_buf: bool,
    /// open[s]: the frames of the packet submitted on socket s that still
    /// needs its last descriptor (each had XDP_PKT_CONTD).
    pub open: Vec<Vec<u32>>,
    /// The frames not yet back of multi-descriptor packets submitted whole.
    unfinished: Vec<BTreeSet<u32>>,
    /// How the next invalid descriptor is broken (see [`Umem::desc`]).
    bad: u32,
}

impl App {
    pub fn new(umem: Umem, tx: Vec<TxProd>, cq: CqCons, multi_buf: bool) -> App {
        App {
            umem,
            open: vec![Vec::new(); tx.len()],
            unfinished: Vec::new(),
            tx,
            cq,
            free: (0..umem.frames).collect(),
            reaped: 0,
            multi_buf,
            bad: 0,
        }
    }

    /// UserSubmit(s, f, ok, contd): fill a tx descriptor for frame f,
    /// which the application owns, and submit it (xsk_ring_prod__reserve(),
    /// xsk_ring_prod__tx_desc(), xsk_ring_prod__submit()). A descriptor
    /// that is not ok is one the kernel's validation rejects; `contd` sets
    /// XDP_PKT_CONTD (multi-buffer runs only).
    pub fn user_submit(&mut self, s: usize, f: u32, ok: bool, contd: bool) -> Step {
        let fail = |why: String| Err(Disabled::new("UserSubmit", why));
        if s >= self.tx.len() {
            return fail(format!("no socket {s}"));
        }
        if contd && !self.multi_buf {
            return fail("XDP_PKT_CONTD in a run without multi-buffer packets".into());
        }
        if !self.free.contains(&f) {
            return fail(format!("frame {f} is not the application's"));
        }
        let Some(idx) = self.tx[s].reserve(1) else {
            return fail(format!("the tx ring of socket {s} is full"));
        };
        let d = self.umem.desc(f, ok, contd, self.bad);
        if !ok {
            self.bad = self.bad.wrapping_add(1);
        }
        self.tx[s].write(idx, d);
        self.tx[s].submit(1);
        self.free.remove(&f);
        self.open[s].push(f);
        if !contd {
            // Emptied in place: its allocation serves the next packet.
            if self.open[s].len() > 1 {
                let pkt = self.open[s].drain(..).collect();
                self.unfinished.push(pkt);
            } else {
                self.open[s].clear();
            }
        }
        Ok(())
    }

    /// Whether submitting a descriptor on socket s (with XDP_PKT_CONTD if
    /// `contd`) still lets every packet be ended: a frame left for the last
    /// descriptor of each open packet; for one more XDP_PKT_CONTD, a tx
    /// slot left for its packet's last descriptor, and room in the shared
    /// completion ring for every descriptor of the multi-descriptor packets
    /// not yet completed at once (the fragments of a packet being built
    /// keep their completion slots reserved until it is sent or dropped,
    /// so packets that need more deadlock).
    pub fn may_submit(&mut self, s: usize, contd: bool) -> bool {
        if contd && !self.multi_buf {
            return false;
        }
        // Each socket's open packet as it would be after the submit.
        let after = |(i, o): (usize, &Vec<u32>)| match (i == s, contd) {
            (false, _) => o.len(),
            (true, true) => o.len() + 1,
            (true, false) => 0,
        };
        let open = || self.open.iter().enumerate().map(after).filter(|&n| n > 0);
        let packets = open().count();
        if self.free.len() <= packets {
            return false;
        }
        if !contd {
            return true;
        }
        let slots = open().map(|n| n + 1).sum::<usize>()
            + self.unfinished.iter().map(BTreeSet::len).sum::<usize>();
        slots <= self.cq.ring().size() as usize && self.tx[s].nb_free(2) >= 2
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
        self.unfinished
            .retain_mut(|p| !(p.remove(&f) && p.is_empty()));
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
