//! The workload of `ringlab bench napi-cache`: a seeded walk of the
//! NapiSkbCache model at the kernel's sizes, with a fixed policy. CPU 1
//! runs vhost-net's tun_sendmsg() batches; a socket on CPU 2 reads the
//! skbs and frees them with skb_attempt_defer_free(), onto CPU 1's defer
//! list; CPU 1 runs NET_RX when an IPI asks, and now and then for other
//! work. What the steps cost is counted outside the state (cost.rs).

use std::collections::VecDeque;

use ringlab_model::napi_cache::{counted, Action, Config, Costs, Ctx, Path, State, XdpVerdict};
use ringlab_model::rng::Rng;

/// CPU 1: vhost-net and tun; CPU 2: the receiving socket.
const TX: u8 = 1;
const RX: u8 = 2;

/// What one walk did and cost.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WalkCost {
    pub path: &'static str,
    pub frames: u32,
    pub batch: u32,
    pub rcvd: u32,
    pub dropped: u32,
    pub steps: u64,
    pub costs: Costs,
}

/// The walk's constants: the kernel's sizes but for `batch`, two CPUs,
/// the most heads the model numbers.
pub fn config(path: Path, frames: u32, batch: u32) -> Config {
    Config { batch, ..Config::kernel(2, 250, frames, path) }
}

struct Walker {
    cfg: Config,
    s: State,
    costs: Costs,
    steps: u64,
    /// The socket's receive queue, oldest first.
    queue: VecDeque<u8>,
}

impl Walker {
    fn step(&mut self, a: Action) {
        let (cfg, s) = (&self.cfg, &self.s);
        let t = counted(&mut self.costs, || s.step(cfg, &a))
            .unwrap_or_else(|| panic!("the policy took {a}, which is not enabled"));
        // A frame passed to the stack: the skb that came into use.
        if matches!(a, Action::TunXdpOne { .. }) {
            self.queue.extend((0..t.users.len()).filter(|&k| s.users[k] == 0 && t.users[k] > 0).map(|k| k as u8 + 1));
        }
        self.s = t;
        self.steps += 1;
    }

    /// NET_RX on CPU 1: net_rx_action() and its end, each flushing the
    /// defer list.
    fn poll(&mut self) {
        self.step(Action::NetRxAction { c: TX });
        self.step(Action::NapiComplete { c: TX });
    }
}

/// One walk of `frames` frames in tun batches of `batch` on `path`, its
/// choices drawn from `seed`.
pub fn walk(path: Path, frames: u32, batch: u32, seed: u64) -> WalkCost {
    let cfg = config(path, frames, batch);
    let mut rng = Rng::new(seed);
    let mut w = Walker { s: State::init(&cfg), cfg, costs: Costs::default(), steps: 0, queue: VecDeque::new() };
    let room_for = w.cfg.batch as usize;
    loop {
        let tx = usize::from(TX - 1);
        if w.s.ctx[tx] == Ctx::Tun {
            if w.s.pending[tx] == 0 {
                w.step(Action::TunSendmsgEnd { c: TX });
                continue;
            }
            // One frame in a hundred dropped by the XDP program.
            let verdict = if rng.chance(1, 100) {
                XdpVerdict::Drop
            } else if path == Path::Slab {
                XdpVerdict::PassSlab { fail: false }
            } else {
                XdpVerdict::PassHead
            };
            w.step(Action::TunXdpOne { c: TX, verdict });
            continue;
        }
        if w.s.kick[tx] {
            w.poll();
            continue;
        }
        let room = w.queue.len() < room_for;
        if w.s.left > 0 && room && (w.queue.is_empty() || rng.chance(1, 2)) {
            // Other NAPI work on CPU 1 (its own device), now and then.
            if rng.chance(1, 16) {
                w.poll();
            }
            w.step(Action::TunSendmsg { c: TX, fail: false });
        } else if !w.queue.is_empty() {
            // recvmsg() reads a random part of the queue.
            let n = 1 + rng.below(w.queue.len() as u32) as usize;
            for _ in 0..n {
                let s = w.queue.pop_front().unwrap();
                w.step(Action::SkbAttemptDeferFree { c: RX, s });
            }
        } else {
            break;
        }
    }
    WalkCost { path: path.id(), frames, batch, rcvd: w.s.rcvd, dropped: w.s.dropped, steps: w.steps, costs: w.costs }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frame_is_accounted_and_the_bulk_paths_call_the_slab_less() {
        let walks: Vec<WalkCost> = Path::ALL.iter().map(|&p| walk(p, 4000, 64, 7)).collect();
        for c in &walks {
            assert_eq!(c.rcvd + c.dropped, 4000, "{c:?}");
            assert!(c.rcvd > 3800, "{c:?}");
        }
        let calls = |c: &WalkCost| c.costs.slab_calls();
        assert!(calls(&walks[1]) * 10 < calls(&walks[0]), "{walks:?}");
        assert!(calls(&walks[2]) <= calls(&walks[1]), "{walks:?}");
        // A seed replays.
        assert_eq!(walk(Path::Bulk, 500, 64, 3).costs, walk(Path::Bulk, 500, 64, 3).costs);
    }

    #[test]
    fn flush_first_sends_no_ipi_when_a_batch_is_below_half_of_defer_max() {
        let bulk = walk(Path::Bulk, 4000, 16, 5);
        let flush = walk(Path::Flush, 4000, 16, 5);
        assert!(bulk.costs.kicks > 0, "{bulk:?}");
        assert_eq!(flush.costs.kicks, 0, "{flush:?}");
    }
}
