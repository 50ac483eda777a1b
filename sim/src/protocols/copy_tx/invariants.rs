//! The spec's safety invariants, checked on the concrete state: the rings'
//! real indices and entries, the driver's skbs, the sockets' calls and
//! packets being built, the application's frames. Same names as
//! specs/XskCopyTx.tla.

use std::collections::BTreeMap;

use super::system::CopyTx;
pub use crate::harness::Violation;
use ringlab_ring::idx::{add, sub};
use ringlab_ring::RingMem;
use ringlab_ring::sync::Ordering::Relaxed;

fn broke(invariant: &'static str, detail: String) -> Result<(), Violation> {
    Err(Violation::of(invariant, detail))
}

/// Where each frame is, by place.
#[derive(Default)]
struct Census {
    places: BTreeMap<u32, Vec<String>>,
}

impl Census {
    fn put(&mut self, f: u32, place: String) {
        self.places.entry(f).or_default().push(place);
    }
    fn held(&self, f: u32) -> usize {
        self.places.get(&f).map_or(0, Vec::len)
    }
    fn show(&self, f: u32) -> String {
        self.places
            .get(&f)
            .map_or("nowhere".into(), |p| p.join(", "))
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
    let mut census = Census::default();
    for &f in &sys.app.free {
        census.put(f, "the application".into());
    }
    for k in &sys.socks {
        let prod = k.tx.ring().producer().load(Relaxed);
        for i in 0..sub(prod, k.tx.cached_cons()) {
            let pos = add(k.tx.cached_cons(), i);
            let d = read(k.tx.ring(), pos);
            match umem.frame(d.addr) {
                Some(f) => census.put(f, format!("tx ring {} at {pos:#x}", k.id)),
                None => {
                    return broke(
                        "FrameConservation",
                        format!("tx ring {} holds {:#x}", k.id, d.addr),
                    )
                }
            }
        }
    }
    let mut in_kernel: BTreeMap<u32, String> = BTreeMap::new();
    for k in &sys.socks {
        for &a in k.skb.iter().flat_map(|p| &p.addrs) {
            let f = umem.frame(a).expect("a fragment was validated");
            census.put(f, format!("socket {}'s packet", k.id));
            in_kernel.insert(f, format!("socket {}'s packet", k.id));
        }
        for d in &k.call.batch {
            let f = umem
                .frame(d.addr)
                .expect("a batch descriptor was validated");
            census.put(f, format!("socket {}'s batch", k.id));
            in_kernel.insert(f, format!("socket {}'s batch", k.id));
        }
    }
    let skb_addrs = sys.pool.in_flight(|q| {
        q.iter()
            .flat_map(|k| k.addrs.iter().map(move |&a| (k.sock, a)))
            .collect::<Vec<_>>()
    });
    for &(s, a) in &skb_addrs {
        let f = umem.frame(a).expect("an skb's address was validated");
        census.put(f, format!("an skb of socket {s}"));
        in_kernel.insert(f, format!("an skb of socket {s}"));
    }
    let mut published = Vec::new();
    for i in 0..sub(cq_prod, cq_cons) {
        let pos = add(cq_cons, i);
        let a = read(&cq, pos);
        match umem.frame(a) {
            Some(f) => {
                census.put(f, format!("completion at {pos:#x}"));
                published.push((pos, f));
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
        if let Some(place) = in_kernel.get(&f) {
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
        let completed = published.iter().any(|&(_, g)| g == f);
        if h == 0 || (h > 1 && !completed) {
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
