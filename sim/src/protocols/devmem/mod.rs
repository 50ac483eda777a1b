//! Devmem TCP receive tokens (specs/DevmemTokens.tla) on real atomics: a
//! dmabuf binding's net_iovs with their `pp_ref_count` and `uref`, the
//! binding's page pool, TCP sockets with their receive queues and
//! `sk_user_frags` xarrays, and the application holding tokens, in both
//! token modes: linux 6.12.117's xarray mode and seed 004's array mode.
//!
//! Each kernel function is a method of its object, written to run on any
//! thread (loom sees every atomic and lock); [`Devmem`] puts them together
//! and exposes each spec action as a method of the same name in
//! snake_case, returning whether it was enabled; [`Devmem::model_state`]
//! maps the whole onto the spec's variables.
//!
//! config.rs: what a run is; niov.rs: a net_iov's counters; pool.rs: the
//! page pool's free list; binding.rs: bind, unbind and the references;
//! xarray.rs: sk_user_frags; sock.rs: a socket, its queue and close;
//! recv.rs: tcp_recvmsg_dmabuf; dontneed.rs: SO_DEVMEM_DONTNEED; app.rs:
//! the application's tokens; system.rs: all of it, step by step;
//! project.rs: the projection to the model; invariants.rs: the checks;
//! pick.rs: how the scheduler draws a step; protocol.rs: the harness's
//! view (the drain, the report); threads.rs: the real-thread runner's
//! threads; cost.rs: operation counts.

mod app;
mod binding;
pub mod config;
pub mod cost;
mod dontneed;
mod niov;
mod pool;
mod project;
mod recv;
mod sock;
mod system;
mod xarray;

#[cfg(not(loom))]
pub mod invariants;
#[cfg(not(loom))]
mod pick;
#[cfg(not(loom))]
pub mod protocol;
#[cfg(not(loom))]
pub mod threads;

pub use app::App;
pub use binding::Binding;
pub use config::DevmemConfig;
pub use cost::Cost;
pub use dontneed::{DmabufToken, DontneedError, Released, MAX_DONTNEED_TOKENS};
pub use niov::NetIov;
pub use pool::PagePool;
pub use recv::{Piece, RecvError};
pub use ringlab_model::devmem::{Action, Bst, Mode, Mutant, Niov, Sock, Tok};
pub use sock::{Skb, TcpSock};
pub use system::Devmem;
pub use xarray::{Slot, UserFrags};
#[cfg(not(loom))]
pub use protocol::{Report, NAME};

pub use crate::{Disabled, Step};

/// The mutant this run puts back, as the spec names it: every mutant of
/// DevmemTokens.tla is `mutant-<id>` of ringlab-mutant.
pub fn mutant() -> Mutant {
    if ringlab_mutant::on("mutant-dm-dontneed-loop") {
        Mutant::DontneedLoop
    } else if ringlab_mutant::on("mutant-dm-cmsg-trunc") {
        Mutant::CmsgTrunc
    } else if ringlab_mutant::on("mutant-zcrx-uref-race") {
        Mutant::UrefRace
    } else if ringlab_mutant::on("mutant-dm-recv-no-ref") {
        Mutant::RecvNoRef
    } else if ringlab_mutant::on("mutant-dm-close-no-release") {
        Mutant::CloseNoRelease
    } else if ringlab_mutant::on("mutant-dm-unbind-no-cleanup") {
        Mutant::UnbindNoCleanup
    } else if ringlab_mutant::on("mutant-dm-mode-mix") {
        Mutant::ModeMix
    } else {
        Mutant::None
    }
}
