//! The projection of the simulator onto the spec's nineteen variables.
//! Every model value is built here, so a change of the model's types
//! changes this file alone.

use ringlab_model::xsk_rx::{self as model, Cnt, Desc, Recv, Sst};

use super::system::XskRx;

impl XskRx {
    /// The spec's state this system is in: the application's buffers;
    /// the fill ring from the kernel's cached_cons to the producer, and
    /// how far cached_cons is past the published consumer; the free list;
    /// each socket's rx ring from the consumer to cached_prod (a
    /// descriptor's packet is what its chunk holds) and how much of it is
    /// published (a freed socket's rings are gone); the sockets' states,
    /// the XSKMAP, the wire's record, each CPU's receive, the poll, the
    /// flush lists, the locks' holders, the counters, the queue's socket,
    /// the driver's slots and its batches.
    ///
    /// Call it when no thread is inside a kernel function.
    pub fn model_state(&self) -> model::State {
        let (fq, fq_held) = self.pool.fq_state();
        let mut rx = Vec::new();
        let mut rx_pub = Vec::new();
        for s in &self.socks {
            if s.state() == Sst::Freed {
                rx.push(Vec::new());
                rx_pub.push(0);
                continue;
            }
            let (descs, published) = s.rx_state();
            rx.push(
                descs
                    .into_iter()
                    .map(|(buf, contd)| Desc {
                        buf,
                        pkt: self.pool.chunk(buf),
                        contd,
                    })
                    .collect(),
            );
            rx_pub.push(published);
        }
        let per_socket_locks = ringlab_mutant::on("mutant-xsk-gen-rx-race");
        model::State {
            ufree: self.app.held(),
            fq,
            fq_held,
            kfree: self.pool.free_list(),
            rx,
            rx_pub,
            st: self.socks.iter().map(|s| s.state()).collect(),
            map: self.map.entries(),
            arrived: self.rxq.arrived(),
            fate: self.rxq.fates(),
            cpu: self
                .recv
                .iter()
                .map(|r| Recv {
                    stage: r.stage,
                    pkt: r.pkt,
                    sock: r.sock,
                    tgt: r.tgt,
                    key: 0,
                    len: r.len,
                    bufs: r.bufs.clone(),
                    peek: r.peek,
                    fast: r.fast,
                })
                .collect(),
            poller: self.rxq.poller(),
            poll_start: self.rxq.poll_start(),
            flush: self.cpus.iter().map(|c| c.listed()).collect(),
            lock: self
                .socks
                .iter()
                .enumerate()
                .map(|(i, s)| match (per_socket_locks, i) {
                    (true, _) => s.rx_lock.holder(),
                    (false, 0) => self.pool.rx_lock.holder(),
                    (false, _) => None,
                })
                .collect(),
            cnt: self
                .socks
                .iter()
                .map(|s| {
                    let (rx_dropped, rx_queue_full) = s.counters();
                    Cnt {
                        rx_dropped,
                        rx_queue_full,
                    }
                })
                .collect(),
            rxq_xsk: self.rxq.xsk(),
            fast_xs: self.cpus.iter().map(|c| c.slot()).collect(),
            pend: self.pend.clone(),
        }
    }
}
