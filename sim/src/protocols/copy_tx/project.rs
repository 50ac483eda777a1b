//! The projection of the real rings onto the spec's variables (free, tx,
//! cq, resv, flight, call, part, drain, pubd, rewound). Every model value
//! is built here, so a change of the model's types changes this file
//! alone.

use ringlab_model::copy_tx::{self as model, Design, Frame, Sock};

use super::sock::Call;
use super::system::CopyTx;
use super::umem::{is_contd, Umem};
use ringlab_ring::idx::{add, sub};
use ringlab_ring::{RingMem, XdpDesc};
use ringlab_ring::sync::Ordering::Relaxed;

/// The model's number of the frame `addr` lies in.
fn frame(umem: &Umem, addr: u64, what: &str) -> Frame {
    let f = umem
        .frame(addr)
        .unwrap_or_else(|| panic!("{what} holds {addr:#x}, no frame of the umem"));
    Frame::try_from(f).expect("the model numbers at most 256 frames")
}

/// A descriptor as the spec's Desc: its frame, whether the kernel's
/// validation accepts it, and its XDP_PKT_CONTD.
fn desc(umem: &Umem, d: &XdpDesc) -> model::Desc {
    model::Desc {
        addr: frame(umem, d.addr, "a tx descriptor"),
        ok: umem.validate(d),
        contd: is_contd(d),
    }
}

fn call(umem: &Umem, c: &Call, cq_prod: u32) -> model::Call {
    model::Call {
        stage: c.stage,
        done: c.done as i64,
        pend: c.pend as i64,
        batch: c.batch.iter().map(|d| desc(umem, d)).collect(),
        snap: if c.stage == model::Stage::Reserving {
            sub(c.snap, cq_prod) as usize
        } else {
            0
        },
    }
}

/// Entries `[from, to)` of a ring.
fn entries<R: RingMem>(ring: &R, from: u32, to: u32) -> Vec<R::Entry> {
    // Safety: the caller is the only thread touching the rings.
    (0..sub(to, from))
        .map(|i| unsafe { ring.read(add(from, i)) })
        .collect()
}

impl CopyTx {
    /// The spec's state this system is in: the application's frames;
    /// each tx ring's descriptors from the kernel's consumer position to
    /// `->producer`; the completion ring's published entries
    /// (`->consumer` to `->producer`) and reserved ones (to the kernel's
    /// `cached_prod`: design a shows what they hold, design b a
    /// Placeholder); the driver's skbs; each socket's call; each socket's
    /// packet being built (xs->skb), xs->drain_cont, whether `->consumer`
    /// stands past that packet's first fragment (pubd), and whether a
    /// rollback took `cached_cons` behind `->consumer` (rewound).
    ///
    /// Call it from the one thread that runs the system.
    pub fn model_state(&self) -> model::State {
        let umem = &self.pool.umem;
        let (cq_cons, cq_prod, resv_to, cq_ring) = self.pool.cq.peek(|p| {
            let r = p.ring();
            (
                r.consumer().load(Relaxed),
                r.producer().load(Relaxed),
                p.cached_prod(),
                r.clone(),
            )
        });
        let slot = |addr: u64| match self.cfg.spec.design {
            Design::A => model::Slot::Addr(frame(umem, addr, "a reserved completion")),
            Design::B => model::Slot::Placeholder,
        };
        model::State {
            free: self
                .app
                .free
                .iter()
                .map(|&f| Frame::try_from(f).expect("at most 256 frames"))
                .collect(),
            tx: self
                .socks
                .iter()
                .map(|k| {
                    let prod = k.tx.ring().producer().load(Relaxed);
                    entries(k.tx.ring(), k.tx.cached_cons(), prod)
                        .iter()
                        .map(|d| desc(umem, d))
                        .collect()
                })
                .collect(),
            cq: entries(&cq_ring, cq_cons, cq_prod)
                .into_iter()
                .map(|a| frame(umem, a, "a published completion"))
                .collect(),
            resv: entries(&cq_ring, cq_prod, resv_to)
                .into_iter()
                .map(slot)
                .collect(),
            flight: self.pool.in_flight(|q| {
                q.iter()
                    .map(|k| model::Skb {
                        sock: k.sock as Sock,
                        addrs: k.addrs.iter().map(|&a| frame(umem, a, "an skb")).collect(),
                        contd: k.contd,
                    })
                    .collect()
            }),
            call: self
                .socks
                .iter()
                .map(|k| call(umem, &k.call, cq_prod))
                .collect(),
            part: self
                .socks
                .iter()
                .map(|k| {
                    k.skb.as_ref().map_or(Vec::new(), |p| {
                        p.addrs.iter().map(|&a| frame(umem, a, "xs->skb")).collect()
                    })
                })
                .collect(),
            drain: self.socks.iter().map(|k| k.drain_cont).collect(),
            pubd: self
                .socks
                .iter()
                .map(|k| k.published_past_frags())
                .collect(),
            rewound: self.socks.iter().map(|k| k.rewound).collect(),
        }
    }
}
