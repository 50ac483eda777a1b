//! The spec's safety invariants, checked on the concrete state: the rings'
//! real indices and entries, the driver's skbs, the sockets' calls and
//! packets being built, the application's frames. Same names as
//! specs/XskCopyTx.tla.

use std::fmt;

use super::system::CopyTx;
pub use crate::harness::Violation;
use ringlab_ring::idx::{add, sub};
use ringlab_ring::RingMem;
use ringlab_ring::sync::Ordering::Relaxed;

fn broke(invariant: &'static str, detail: String) -> Result<(), Violation> {
    Err(Violation::of(invariant, detail))
}

/// A place a frame can be; named only when a check fails (the census
/// runs after every step, and most never fail).
#[derive(Clone, Copy, Debug)]
enum Place {
    App,
    /// A tx ring (socket) at a position.
    TxRing(usize, u32),
    /// The packet a socket is building.
    Packet(usize),
    Batch(usize),
    /// An skb of a socket, in the driver's queue.
    Skb(usize),
    Completion(u32),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Place::App => write!(f, "the application"),
            Place::TxRing(s, pos) => write!(f, "tx ring {s} at {pos:#x}"),
            Place::Packet(s) => write!(f, "socket {s}'s packet"),
            Place::Batch(s) => write!(f, "socket {s}'s batch"),
            Place::Skb(s) => write!(f, "an skb of socket {s}"),
            Place::Completion(pos) => write!(f, "completion at {pos:#x}"),
        }
    }
}

/// Where each frame is: every (frame, place) in the order seen, and how
/// many places hold each frame.
struct Census {
    seen: Vec<(u32, Place)>,
    held: Vec<usize>,
}

impl Census {
    fn new(frames: u32) -> Census {
        Census {
            seen: Vec::with_capacity(frames as usize),
            held: vec![0; frames as usize],
        }
    }
    fn put(&mut self, f: u32, place: Place) {
        let f = f as usize;
        if f >= self.held.len() {
            self.held.resize(f + 1, 0);
        }
        self.held[f] += 1;
        self.seen.push((f as u32, place));
    }
    fn held(&self, f: u32) -> usize {
        self.held.get(f as usize).copied().unwrap_or(0)
    }
    fn show(&self, f: u32) -> String {
        let places: Vec<String> = self
            .seen
            .iter()
            .filter(|&&(g, _)| g == f)
            .map(|(_, p)| p.to_string())
            .collect();
        if places.is_empty() {
            "nowhere".into()
        } else {
            places.join(", ")
        }
    }
}

/// Reads the state's entries; the caller is the one thread running it.
fn read<R: RingMem>(ring: &R, pos: u32) -> R::Entry {
    // Safety: no other thread touches the rings while the state is checked.
    unsafe { ring.read(pos) }
}

/// TxConsumerMonotone: no socket's `cached_cons` stands behind its
/// published `->consumer`, now or (rewound) ever since a rollback.
fn tx_consumer_monotone(sys: &CopyTx) -> Result<(), Violation> {
    for k in &sys.socks {
        let ring = k.tx.ring();
        let cons = ring.consumer().load(Relaxed);
        let back = sub(cons, k.tx.cached_cons());
        if (1..=ring.size()).contains(&back) || k.rewound {
            return broke(
                "TxConsumerMonotone",
                format!(
                    "socket {}'s tx consumer went back over published slots: cached_cons {:#x}, ->consumer {cons:#x}",
                    k.id,
                    k.tx.cached_cons()
                ),
            );
        }
    }
    Ok(())
}

/// Every invariant, in the order the spec's model configs list them, but
/// TxConsumerMonotone first: the census reads each tx ring from
/// `cached_cons`, which means nothing once that is behind `->consumer`.
pub fn check(sys: &CopyTx) -> Result<(), Violation> {
    tx_consumer_monotone(sys)?;
    let umem = &sys.pool.umem;
    let (cq_cons, cq_prod, cached_prod, size, cq) = sys.pool.cq.peek(|p| {
        let r = p.ring();
        (
            r.consumer().load(Relaxed),
            r.producer().load(Relaxed),
            p.cached_prod(),
            r.size(),
            r.clone(),
        )
    });
    let mut census = Census::new(umem.frames);
    for &f in &sys.app.free {
        census.put(f, Place::App);
    }
    for k in &sys.socks {
        let prod = k.tx.ring().producer().load(Relaxed);
        for i in 0..sub(prod, k.tx.cached_cons()) {
            let pos = add(k.tx.cached_cons(), i);
            let d = read(k.tx.ring(), pos);
            match umem.frame(d.addr) {
                Some(f) => census.put(f, Place::TxRing(k.id, pos)),
                None => {
                    return broke(
                        "FrameConservation",
                        format!("tx ring {} holds {:#x}", k.id, d.addr),
                    )
                }
            }
        }
    }
    // The kernel's last place for each frame it holds.
    let mut in_kernel: Vec<Option<Place>> = vec![None; umem.frames as usize];
    let mut kernel_has = |census: &mut Census, f: u32, place: Place| {
        census.put(f, place);
        in_kernel[f as usize] = Some(place);
    };
    for k in &sys.socks {
        for &a in k.skb.iter().flat_map(|p| &p.addrs) {
            let f = umem.frame(a).expect("a fragment was validated");
            kernel_has(&mut census, f, Place::Packet(k.id));
        }
        for d in &k.call.batch {
            let f = umem
                .frame(d.addr)
                .expect("a batch descriptor was validated");
            kernel_has(&mut census, f, Place::Batch(k.id));
        }
    }
    let skb_addrs = sys.pool.in_flight(|q| {
        q.iter()
            .flat_map(|k| k.addrs.iter().map(move |&a| (k.sock, a)))
            .collect::<Vec<_>>()
    });
    for &(s, a) in &skb_addrs {
        let f = umem.frame(a).expect("an skb's address was validated");
        kernel_has(&mut census, f, Place::Skb(s));
    }
    let mut published = Vec::new();
    let mut completed = vec![false; umem.frames as usize];
    for i in 0..sub(cq_prod, cq_cons) {
        let pos = add(cq_cons, i);
        let a = read(&cq, pos);
        match umem.frame(a) {
            Some(f) => {
                census.put(f, Place::Completion(pos));
                published.push((pos, f));
                completed[f as usize] = true;
            }
            None => {
                return broke(
                    "FrameConservation",
                    format!("the completion at {pos:#x} holds {a:#x}, no frame of the umem"),
                )
            }
        }
    }

    for &(pos, f) in &published {
        if let Some(place) = in_kernel[f as usize] {
            return broke(
                "NoImmatureCompletion",
                format!("frame {f} is completed at {pos:#x} while still in {place}"),
            );
        }
    }
    if sub(cached_prod, cq_cons) > size {
        return broke(
            "CqNoOverflow",
            format!("reserved up to {cached_prod:#x} with ->consumer at {cq_cons:#x} on a ring of {size}"),
        );
    }
    let reserved = sub(cached_prod, cq_prod) as usize;
    let owed = skb_addrs.len()
        + sys
            .socks
            .iter()
            .map(|k| k.call.pend as usize + k.call.batch.len() + k.frags() as usize)
            .sum::<usize>();
    if reserved != owed {
        return broke(
            "ReservationsAccounted",
            format!("{reserved} completion slots reserved ({cq_prod:#x}..{cached_prod:#x}), {owed} owed to skbs, batches, packets being built and pending builds"),
        );
    }
    let budget = sys.cfg.spec.budget as u32;
    if let Some(k) = sys.socks.iter().find(|k| k.call.done > budget) {
        return broke(
            "BudgetPerCall",
            format!(
                "socket {}'s sendto has sent {} descriptors, budget {budget}",
                k.id, k.call.done
            ),
        );
    }
    for &(pos, f) in &published {
        if census.held(f) != 1 {
            return broke(
                "NoDoubleCompletion",
                format!("frame {f}, completed at {pos:#x}, is in {}", census.show(f)),
            );
        }
    }
    for f in 0..umem.frames {
        let h = census.held(f);
        if h == 0 || (h > 1 && !completed[f as usize]) {
            return broke(
                "FrameConservation",
                format!("frame {f} is in {}", census.show(f)),
            );
        }
    }
    let partial = sys.pool.in_flight(|q| q.iter().find(|k| k.contd).cloned());
    if let Some(k) = partial {
        return broke(
            "MultiBufAtomic",
            format!(
                "an skb of socket {} holding {:x?} reached the driver before its packet's last descriptor",
                k.sock, k.addrs
            ),
        );
    }
    Ok(())
}

/// At a quiescent point: every frame is the application's again, nothing
/// is reserved, queued or charged, every call is over.
pub fn quiescent(sys: &CopyTx) -> Result<(), String> {
    let n = sys.pool.umem.frames as usize;
    if sys.app.free.len() != n {
        let missing: Vec<u32> = (0..n as u32)
            .filter(|f| !sys.app.free.contains(f))
            .collect();
        return Err(format!(
            "frames {missing:?} never came back to the application"
        ));
    }
    let reserved = sys
        .pool
        .cq
        .peek(|p| sub(p.cached_prod(), p.ring().producer().load(Relaxed)));
    if reserved != 0 {
        return Err(format!("{reserved} completion slots are still reserved"));
    }
    if let Some(k) = sys
        .socks
        .iter()
        .find(|k| k.call.stage != super::Stage::Idle)
    {
        return Err(format!("socket {} is still in a sendto", k.id));
    }
    if let Some(k) = sys.socks.iter().find(|k| k.skb.is_some()) {
        return Err(format!("socket {} is still building a packet", k.id));
    }
    for (s, w) in sys.pool.wmem.iter().enumerate() {
        let w = w.load(Relaxed);
        if w != 0 {
            return Err(format!("socket {s} still has {w} skbs charged"));
        }
    }
    Ok(())
}
