//! The checks after each step: what only the concrete state shows (the
//! rings' counters, the free list, the locks), then every invariant of
//! specs/XskRx.tla, evaluated on [`XskRx::model_state`] for every
//! socket, CPU, buffer and packet, with a description of what broke.

use ringlab_model::xsk_rx::{Config, Fate, RxPath, Stage, State, INVARIANTS};
use ringlab_ring::sync::Ordering::Acquire;
use ringlab_ring::RingMem;

use super::system::XskRx;
pub use crate::harness::Violation;

/// The invariants checked after every step, in the order of the spec's
/// model configs.
pub fn checked() -> Vec<&'static str> {
    INVARIANTS.iter().map(|(n, _)| *n).collect()
}

/// What the projection does not show: each rx ring's producer within
/// [consumer, cached_prod] and its size; the fill ring's published
/// consumer within [.., cached_cons] and the producer within the ring;
/// no buffer twice on the free list; a lock held only by a CPU inside
/// xsk_generic_rcv().
pub fn concrete(sys: &XskRx) -> Result<(), String> {
    for s in &sys.socks {
        let r = &s.rx_ring;
        let (cons, prod) = (r.consumer().load(Acquire), r.producer().load(Acquire));
        let cached = s.with_rx(|q| q.cached_prod());
        let (published, reserved) = (prod.wrapping_sub(cons), cached.wrapping_sub(cons));
        if published > reserved || reserved > r.size() {
            return Err(format!(
                "socket {}: rx ring consumer {cons}, producer {prod}, cached_prod {cached} on a ring of {}",
                s.id,
                r.size()
            ));
        }
    }
    let fq = &sys.pool.fq_ring;
    let (cons, prod) = (fq.consumer().load(Acquire), fq.producer().load(Acquire));
    let cached = sys.pool.with_fq(|q| q.cached_cons());
    if cached.wrapping_sub(cons) > prod.wrapping_sub(cons) || prod.wrapping_sub(cons) > fq.size() {
        return Err(format!(
            "fill ring: consumer {cons}, cached_cons {cached}, producer {prod} on a ring of {}",
            fq.size()
        ));
    }
    let mut free = sys.pool.free_list();
    let n = free.len();
    free.sort_unstable();
    free.dedup();
    if free.len() != n {
        return Err(format!(
            "the free list holds a buffer twice: {:?}",
            sys.pool.free_list()
        ));
    }
    let holders = std::iter::once(&sys.pool.rx_lock)
        .chain(sys.socks.iter().map(|s| &s.rx_lock))
        .filter_map(|l| l.holder());
    for c in holders {
        let r = sys.recv.get(usize::from(c));
        if sys.cfg.spec.path != RxPath::Generic
            || !r.is_some_and(|r| matches!(r.stage, Stage::Alloc | Stage::Take | Stage::Flush))
        {
            return Err(format!(
                "CPU {c} holds an rx lock outside xsk_generic_rcv()"
            ));
        }
    }
    Ok(())
}

/// Every invariant on the projection; the state if they hold.
pub fn check(sys: &XskRx) -> Result<State, Violation> {
    let st = sys.model_state();
    let cfg = &sys.cfg.spec;
    match st.violated(cfg, &checked()) {
        None => Ok(st),
        Some(invariant) => Err(Violation::of(invariant, explain(&st, cfg, invariant))),
    }
}

/// What breaks `invariant` in `st`, in the spec's terms: every socket,
/// CPU, buffer or packet that breaks it.
pub fn explain(st: &State, cfg: &Config, invariant: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    match invariant {
        "BufConservation" => {
            for b in cfg.bufs() {
                let n = st.places(cfg, b);
                if n != 1 {
                    out.push(format!("buffer {b} is in {n} places"));
                }
            }
        }
        "PktAccounted" | "DropsCounted" => {
            for (i, f) in st.fate.iter().enumerate() {
                let p = i + 1;
                let busy = st
                    .cpu
                    .iter()
                    .any(|r| r.pkt as usize == p && !matches!(r.stage, Stage::Idle | Stage::Flush));
                if (*f == Fate::Busy) != busy || ((p as u32 <= st.arrived) != (*f != Fate::None)) {
                    out.push(format!("packet {p} is {} (arrived {})", f.id(), st.arrived));
                }
            }
            for (s, c) in st.cnt.iter().enumerate() {
                out.push(format!(
                    "socket {}: rx_dropped {}, rx_queue_full {}",
                    s + 1,
                    c.rx_dropped,
                    c.rx_queue_full
                ));
            }
        }
        "FlushedAtPollEnd" | "MultiBufAllOrNone" => {
            for (s, q) in st.rx.iter().enumerate() {
                if st.rx_pub[s] as usize != q.len() {
                    out.push(format!(
                        "socket {}: {} of {} descriptors published",
                        s + 1,
                        st.rx_pub[s],
                        q.len()
                    ));
                }
            }
            for (c, f) in st.flush.iter().enumerate() {
                if !f.is_empty() || st.fast_xs[c] != 0 {
                    out.push(format!("CPU {c}: flush list {f:?}, slot {}", st.fast_xs[c]));
                }
            }
        }
        "DeliveredToKey" => {
            for (c, r) in st.cpu.iter().enumerate() {
                if r.sock != r.tgt {
                    out.push(format!(
                        "CPU {c} receives packet {} into socket {}, its XSKMAP entry named {}",
                        r.pkt, r.sock, r.tgt
                    ));
                }
            }
        }
        "RxRingPresent" => {
            for &s in &cfg.tx_only {
                for (c, r) in st.cpu.iter().enumerate() {
                    if r.stage != Stage::Idle && r.sock == s {
                        out.push(format!("CPU {c} receives packet {} into socket {s}, which has no Rx ring", r.pkt));
                    }
                }
                if !st.rx[usize::from(s) - 1].is_empty() {
                    out.push(format!("socket {s} has no Rx ring and descriptors on it"));
                }
            }
        }
        "ChunkedOnlyWithSG" => {
            for (s, q) in st.rx.iter().enumerate() {
                for d in q.iter().filter(|d| d.contd) {
                    out.push(format!("socket {}: packet {} continues past a chunk without XDP_USE_SG", s + 1, d.pkt));
                }
            }
        }
        _ => {}
    }
    if out.is_empty() {
        out.push(format!("{st:?}"));
    }
    out.join("; ")
}

/// What a drained system must be: every CPU idle, no poll, no lock held,
/// every flush list and driver slot empty, every descriptor reserved
/// published, every packet ended, every buffer in exactly one place.
pub fn quiescent(sys: &XskRx) -> Result<(), String> {
    let st = sys.model_state();
    let cfg = &sys.cfg.spec;
    if let Some(c) = st.cpu.iter().position(|r| r.stage != Stage::Idle) {
        return Err(format!("CPU {c} is {}", st.cpu[c].stage.id()));
    }
    if let Some(c) = st.poller {
        return Err(format!("CPU {c} still polls"));
    }
    if st.lock.iter().any(Option::is_some) {
        return Err(format!("a lock is held: {:?}", st.lock));
    }
    if st.flush.iter().any(|f| !f.is_empty()) || st.fast_xs.iter().any(|&x| x != 0) {
        return Err(format!(
            "flush lists {:?}, slots {:?}",
            st.flush, st.fast_xs
        ));
    }
    for (s, q) in st.rx.iter().enumerate() {
        if st.rx_pub[s] as usize != q.len() {
            return Err(format!(
                "socket {}: descriptors reserved, not published",
                s + 1
            ));
        }
    }
    if let Some(p) = st.fate.iter().position(|f| *f == Fate::Busy) {
        return Err(format!("packet {} is still busy", p + 1));
    }
    if !st.buf_conservation(cfg) {
        return Err(explain(&st, cfg, "BufConservation"));
    }
    Ok(())
}

/// Each concrete check and the quiescence check fail on the state they
/// forbid, built by hand from a fresh system.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::xsk_rx::XskRxConfig;

    fn sys(base: Config) -> XskRx {
        XskRx::new(XskRxConfig::from_spec(base).seed(1)).expect("a valid config")
    }

    #[test]
    fn a_fresh_system_passes_every_check() {
        for base in [Config::driver(), Config::generic(), Config::fast()] {
            let s = sys(base);
            assert_eq!(concrete(&s), Ok(()));
            assert_eq!(quiescent(&s), Ok(()));
        }
    }

    #[test]
    fn a_buffer_twice_on_the_free_list_is_caught() {
        let s = sys(Config::driver());
        s.pool.xsk_buff_free(&[1]);
        s.pool.xsk_buff_free(&[1]);
        let e = concrete(&s).unwrap_err();
        assert!(e.contains("the free list holds a buffer twice"), "{e}");
    }

    #[test]
    fn a_lock_held_outside_a_generic_receive_is_caught() {
        for base in [Config::driver(), Config::generic()] {
            let s = sys(base);
            s.pool.rx_lock.lock(0);
            let e = concrete(&s).unwrap_err();
            assert!(e.contains("holds an rx lock outside xsk_generic_rcv()"), "{e}");
            assert!(quiescent(&s).unwrap_err().contains("a lock is held"));
        }
    }

    #[test]
    fn a_buffer_in_two_places_is_not_quiescent() {
        let s = sys(Config::driver());
        // On the free list as well as the application's: in two places.
        s.pool.xsk_buff_free(&[1]);
        let e = quiescent(&s).unwrap_err();
        assert!(e.contains("buffer 1 is in 2 places"), "{e}");
    }
}
