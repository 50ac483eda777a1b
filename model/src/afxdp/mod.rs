//! A concrete model of what the kernel does for an AF_XDP socket in copy
//! (SKB) mode on a veth: descriptor validation, the per-sendto transmit
//! loop with its budget and completion-queue backpressure, the receive
//! path with the fill ring, and XDP_STATISTICS. `ringlab diff` runs the
//! same [`Scenario`] here and on the live kernel and compares every
//! [`Obs`]ervation. Rules differing between kernel releases are named in a
//! [`Profile`]; so is the copy-mode batch series (batch.rs). With a
//! recorder on, the same run is a trace of specs/XskCopyTx.tla
//! ([`spec_trace`], chain.rs), and its receive a trace of
//! specs/XskRx.tla ([`rx_spec_trace`], rx_chain.rs).

mod batch;
mod chain;
mod cq;
mod ghost;
mod packet;
mod poll;
mod profile;
mod project;
mod rx;
mod rx_chain;
mod rx_project;
mod rx_trace;
pub mod rules;
mod scenario;
mod trace;
mod state;
mod tx;
mod validate;

#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod chain_tests;
#[cfg(test)]
mod one_socket_tests;
#[cfg(test)]
mod rx_chain_tests;
#[cfg(test)]
mod rx_tests;
#[cfg(test)]
mod threshold_tests;

pub use chain::spec_trace;
pub use rx_chain::rx_spec_trace;
pub use rx_project::rx_config;
pub use rx_trace::{Refusal, Refused, RxStep, RxTrace};
pub use trace::{Hint, ProjectionError, SpecTrace, TraceStep, Unprojected};
pub use ghost::{Compl, Id, TxSlot, Via};
pub use poll::{POLLIN_MASK, POLLOUT_MASK};
pub use profile::{DropFrags, Profile, V6_12, V6_18};
pub use project::{expected_completion, STRAY};
pub use scenario::{
    Obs, Op, RingIdx, Scenario, Setup, Stats, TxDesc, XdpAct, ETH_P_RINGLAB, ETH_P_TXONLY, XDP_PACKET_HEADROOM, XDP_PKT_CONTD,
    XSKMAP_SECOND,
};
pub use state::Model;
pub use validate::{aligned_valid, Invalid};

/// The observations the model predicts for `s` under `p`: one per
/// operation, then the ring indices at the end.
pub fn predict(s: &Scenario, p: &Profile) -> Vec<Obs> {
    let mut m = Model::new(&s.setup, p);
    let mut out: Vec<Obs> = s.ops.iter().map(|op| m.apply(op)).collect();
    out.push(Obs::Rings(m.rings()));
    out
}
