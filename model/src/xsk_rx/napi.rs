//! The driver's NAPI poll (Path = "driver"): NapiPoll and XdpDoFlush.

use std::collections::BTreeSet;

use super::config::{Config, Mutant, RxPath};
use super::state::{si, Cpu, Sock, Stage, State};

impl State {
    /// NapiPoll(c): napi_poll() of the queue on c; one CPU at a time.
    pub fn napi_poll(&self, cfg: &Config, c: Cpu) -> Option<State> {
        if cfg.path != RxPath::Driver
            || usize::from(c) >= self.cpu.len()
            || self.poller.is_some()
            || self.arrived >= u32::from(cfg.max_pkts)
        {
            return None;
        }
        let mut t = self.clone();
        t.poller = Some(c);
        t.poll_start = self.arrived;
        Some(t)
    }

    /// DriverFlushes(c): the sockets the driver flushes itself at the
    /// poll's end: the one its fast path received into
    /// (redirect-xsk-missing-flush: none; redirect-xsk-flush-rereads: the
    /// one netdev_rx_queue names then).
    pub fn driver_flushes(&self, cfg: &Config, c: Cpu) -> Option<Sock> {
        match cfg.mutant {
            Mutant::RedirectXskMissingFlush => None,
            Mutant::RedirectXskFlushRereads => {
                (self.fast_xs[usize::from(c)] != 0 && self.rxq_xsk != 0).then_some(self.rxq_xsk)
            }
            _ => self.fast_set(c),
        }
    }

    /// XdpDoFlush(c): the end of the poll, c's batch received
    /// (redirect-xsk-batch-tail-lost: not necessarily): the driver's
    /// xsk_flush() of its own socket and xdp_do_flush()'s __xsk_map_flush() publish each
    /// listed socket's rx producer and the fill ring's consumer, before
    /// napi_complete_done() (xdp-missing-flush: nothing is published;
    /// rx-flush-no-fq-release: the fill ring's consumer is not).
    pub fn xdp_do_flush(&self, cfg: &Config, c: Cpu) -> Option<State> {
        let ci = usize::from(c);
        if cfg.path != RxPath::Driver
            || self.poller != Some(c)
            || self.cpu[ci].stage != Stage::Idle
            || self.arrived <= self.poll_start
            || (!self.pend[ci].is_empty() && cfg.mutant != Mutant::RedirectXskBatchTailLost)
        {
            return None;
        }
        let mut t = self.clone();
        if cfg.mutant != Mutant::XdpMissingFlush {
            let mut todo: BTreeSet<Sock> = self.flush[ci].clone();
            todo.extend(self.driver_flushes(cfg, c));
            for &s in &todo {
                t.rx_pub[si(s)] = self.rx[si(s)].len() as u32;
            }
            if !todo.is_empty() && cfg.mutant != Mutant::RxFlushNoFqRelease {
                t.fq_held = 0;
            }
            t.flush[ci].clear();
            t.fast_xs[ci] = 0;
        }
        t.poller = None;
        Some(t)
    }
}
