//! The projection of the model's receive state onto specs/XskRx.tla's
//! variables (`xsk_rx::State`), and the spec constants of a scenario.
//! Umem chunk k (address k * frame_size) is buffer k + 1; injected frames
//! are packets 1.. in the order they arrive; RX socket s is socket s + 1;
//! the one CPU is c1 (the harness sends one frame at a time).

use std::collections::BTreeSet;

use crate::xsk_rx::{Buf, Cnt, Config, Desc, Mutant, Recv, Redirect, RxPath, Sst, State, Verdict};

use super::rx_chain::RxRecorder;
use super::rx_trace::{Refusal, Refused};
use super::scenario::{Op, Scenario, XdpAct};
use super::state::{Model, Ring};

/// The NAPI weight (NAPI_POLL_WEIGHT); the generic path never reads it.
const POLL_BUDGET: u32 = 64;

/// XskRx's constants for `s`: one CPU, the RX sockets, the umem's chunks,
/// one packet per frame injected, a second chunk for a frame longer than
/// a chunk holds (the sockets are bound without XDP_USE_SG), the fill and
/// RX rings' sizes, the generic path through the XSKMAP, the verdicts its
/// frames get.
pub fn rx_config(s: &Scenario) -> Result<Config, Refused> {
    let st = &s.setup;
    let refuse = |kind, what: String| Err(Refused { op: 0, kind, what });
    if !st.rx_socket {
        return refuse(Refusal::NoRxSocket, "the scenario has no RX socket".into());
    }
    if st.loopback {
        return refuse(Refusal::Loopback, "transmitted frames are received (loopback)".into());
    }
    if st.frames > 64 {
        return refuse(Refusal::TooManyBufs, format!("{} umem chunks, more than 64", st.frames));
    }
    let mut frames: Vec<(u32, XdpAct)> = Vec::new();
    for op in &s.ops {
        match op {
            Op::Inject(lens) => frames.extend(lens.iter().map(|&l| (l, XdpAct::Redirect))),
            Op::InjectAs(fs) => frames.extend(fs.iter().copied()),
            _ => {}
        }
    }
    if frames.len() > 200 {
        return refuse(Refusal::TooManyPackets, format!("{} frames injected, more than 200", frames.len()));
    }
    let second = st.rx_shared;
    let mut verdicts = vec![Verdict::Redirect];
    for &(_, a) in &frames {
        verdicts.push(match a {
            XdpAct::Drop => Verdict::Drop,
            XdpAct::Redirect2 if second => Verdict::Redirect,
            XdpAct::Redirect => Verdict::Redirect,
            // An empty XSKMAP entry: the program returns XDP_PASS.
            XdpAct::Redirect2 | XdpAct::Pass => Verdict::Pass,
        });
    }
    verdicts.sort();
    verdicts.dedup();
    let long = frames.iter().any(|&(l, _)| l > st.rx_frame_len());
    Ok(Config {
        cpus: vec!["c1".into()],
        n_sockets: 1 + second as u8,
        n_bufs: st.frames as u8,
        max_pkts: frames.len() as u8,
        max_len: 1 + long as u8,
        sg: false,
        fq_size: st.fill_size,
        rx_size: st.rx_size,
        poll_budget: POLL_BUDGET,
        path: RxPath::Generic,
        verdicts,
        closes: false,
        late_bind: vec![],
        remap: false,
        tx_only: vec![],
        redirect: Redirect::Map,
        batch: 1,
        mutant: Mutant::None,
    })
}

/// The entries of `r` from index `from` up to `to`.
fn window<T: Clone>(r: &Ring<T>, from: u32, to: u32) -> Vec<T> {
    (0..to.wrapping_sub(from)).map(|i| r.slots[&(from.wrapping_add(i) & (r.size - 1))].clone()).collect()
}

impl Model {
    /// The buffer of the chunk holding `addr`.
    pub(super) fn rx_buf(&self, addr: u64) -> Buf {
        (addr / self.setup.frame_size as u64 + 1) as Buf
    }

    /// Where the chunk at `chunk` is, if the application does not hold
    /// it: "the fill ring", "the free list" or "RX ring s".
    pub fn rx_chunk_place(&self, chunk: u64) -> Option<String> {
        let fs = self.setup.frame_size as u64;
        if window(&self.fill, self.fill.cached_cons, self.fill.prod).contains(&chunk) {
            return Some("on the fill ring".into());
        }
        if self.free_list.contains(&chunk) {
            return Some("on the pool's free list".into());
        }
        self.rx.iter().enumerate().find_map(|(s, k)| {
            let on = window(&k.rx, k.rx.cons, k.rx.prod).iter().any(|d| d.0 & !(fs - 1) == chunk);
            on.then(|| format!("on RX ring {}", s + 1))
        })
    }
}

impl RxRecorder {
    /// `m` as a state of XskRx, the receive in progress as the recorder
    /// has it. ufree is every buffer in no other place.
    pub(super) fn project(&self, m: &Model) -> Result<State, Refused> {
        let fs = m.setup.frame_size as u64;
        let fq: Vec<Buf> = window(&m.fill, m.fill.cached_cons, m.fill.prod).iter().map(|&a| m.rx_buf(a)).collect();
        let kfree: Vec<Buf> = m.free_list.iter().rev().map(|&a| m.rx_buf(a)).collect();
        let mut rx = Vec::with_capacity(m.rx.len());
        let mut rx_pub = Vec::with_capacity(m.rx.len());
        for (s, k) in m.rx.iter().enumerate() {
            let descs = window(&k.rx, k.rx.cons, k.rx.prod)
                .iter()
                .map(|&(addr, _, opt)| {
                    let chunk = addr & !(fs - 1);
                    let pkt = *self.pkt_of.get(&chunk).ok_or_else(|| self.internal(format!("chunk {chunk:#x} on RX ring {} came from no packet", s + 1)))?;
                    Ok(Desc { buf: m.rx_buf(chunk), pkt, contd: opt & super::XDP_PKT_CONTD != 0 })
                })
                .collect::<Result<Vec<_>, Refused>>()?;
            // What xsk_flush has not published yet (kernel_push publishes at once).
            let unpub = (self.unpub == Some(s)) as u32;
            let n = (descs.len() as u32).checked_sub(unpub).ok_or_else(|| self.internal(format!("RX ring {} is empty before its flush", s + 1)))?;
            rx_pub.push(n);
            rx.push(descs);
        }
        let mut held: Vec<Buf> = fq.iter().chain(&kfree).chain(&self.cpu.bufs).copied().collect();
        held.extend(rx.iter().flatten().map(|d| d.buf));
        let set: BTreeSet<Buf> = held.iter().copied().collect();
        if set.len() != held.len() {
            return Err(self.internal(format!("a buffer is in two places: fill {fq:?}, free list {kfree:?}, rx {rx:?}")));
        }
        let ns = m.rx.len();
        let mut lock = vec![None; ns];
        lock[0] = self.locked.then_some(0);
        Ok(State {
            ufree: (1..=self.cfg.n_bufs).filter(|b| !set.contains(b)).collect(),
            fq,
            fq_held: m.fill.cached_cons.wrapping_sub(m.fill.cons),
            kfree,
            rx,
            rx_pub,
            st: vec![Sst::Bound; ns],
            map: (1..=ns as u8).collect(),
            arrived: self.arrived,
            fate: self.fate.clone(),
            cpu: vec![self.cpu.clone()],
            poller: None,
            poll_start: 0,
            flush: vec![BTreeSet::new()],
            lock,
            cnt: m.rx.iter().map(|k| Cnt { rx_dropped: k.rx_dropped as u32, rx_queue_full: k.rx_ring_full as u32 }).collect(),
            rxq_xsk: 0,
            fast_xs: vec![0],
            pend: vec![Vec::new()],
        })
    }
}

/// The receive a frame for socket `sock` (1-based) starts: XdpRun's go.
pub(super) fn going(pkt: u8, sock: u8) -> Recv {
    Recv { stage: crate::xsk_rx::Stage::Lock, pkt, sock, tgt: sock, len: 1, ..Recv::IDLE }
}
