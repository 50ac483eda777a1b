//! AF_XDP receive (specs/XskRx.tla) on real atomics: the queue's buffer
//! pool shared by its sockets (the fill ring's kernel consumer, the free
//! list, pool->rx_lock), each socket's rx ring, the XSKMAP and seed
//! 002's netdev_rx_queue socket, each CPU's bpf_redirect_info, flush
//! list and driver slot, the queue's NAPI poll, and the application on
//! the other side of the rings.
//!
//! Each kernel function is a method of its object, written to run on any
//! thread (loom sees every atomic, lock and cell); [`XskRx`] puts them
//! together and exposes each spec action as a method of the same name in
//! snake_case; [`XskRx::model_state`] maps the whole onto the spec's
//! variables.
//!
//! config.rs: what a run is; lock.rs: the rx spinlocks; pool.rs: the
//! buffer pool and fill ring consumer; sock.rs: a socket and its rx ring;
//! xskmap.rs: the XSKMAP; queue.rs: the queue, its poll and the wire;
//! cpu.rs: per-CPU state; app.rs: the application's ring handles;
//! system.rs: all of it, step by step; project.rs: the projection;
//! invariants.rs: the checks; pick.rs: how the scheduler draws a step;
//! protocol.rs: the harness's view; rcv.rs: whole receives for loom;
//! threads.rs: the real-thread runner (the spec's actions on a thread per
//! CPU and one for the application); cost.rs: operation counts.

mod app;
pub mod config;
pub mod cost;
mod cpu;
mod lock;
mod pool;
mod project;
mod queue;
pub mod rcv;
mod sock;
mod system;
mod xskmap;

#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
mod pick;
#[cfg(not(loom))]
pub mod protocol;
#[cfg(not(loom))]
pub mod threads;

pub use app::App;
pub use config::XskRxConfig;
pub use cost::Cost;
pub use cpu::{PerCpu, Receive, RedirectInfo};
pub use lock::SpinLock;
pub use pool::{addr_of, buf_of, Pool, CHUNK};
#[cfg(not(loom))]
pub use protocol::{Report, NAME};
pub use queue::RxQueue;
pub use ringlab_model::xsk_rx::{Action, Buf, Cpu, Fate, Mutant, Sock, Sst, Stage, Verdict};
pub use sock::{XdpSock, XDP_PKT_CONTD};
pub use system::XskRx;
pub use xskmap::XskMap;

pub use crate::{Disabled, Step};

/// The mutant this run puts back, as the spec names it: the mutants of
/// XskRx.tla the simulator puts back are `mutant-<id>` of ringlab-mutant.
pub fn mutant() -> Mutant {
    if ringlab_mutant::on("mutant-xsk-gen-rx-race") {
        Mutant::XskGenRxRace
    } else if ringlab_mutant::on("mutant-xdp-missing-flush") {
        Mutant::XdpMissingFlush
    } else if ringlab_mutant::on("mutant-redirect-xsk-ignore-key") {
        Mutant::RedirectXskIgnoreKey
    } else if ringlab_mutant::on("mutant-redirect-xsk-batch-tail-lost") {
        Mutant::RedirectXskBatchTailLost
    } else if ringlab_mutant::on("mutant-redirect-xsk-batch-reorder") {
        Mutant::RedirectXskBatchReorder
    } else if ringlab_mutant::on("mutant-redirect-xsk-batch-stale-sock") {
        Mutant::RedirectXskBatchStaleSock
    } else {
        Mutant::None
    }
}
