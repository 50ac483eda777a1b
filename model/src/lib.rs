//! ringlab reference model: the state machines of specs/XskRing.tla,
//! specs/XskCopyTx.tla, specs/DevmemTokens.tla, specs/XskRx.tla and
//! specs/IoUringZcNotif.tla in Rust, an explicit-state checker over them,
//! and readers for TLC's values and traces so TLC behaviours can be
//! replayed in the model.

pub mod cfg;
pub mod paths;
pub mod rng;
pub mod schema;
pub mod afxdp;
pub mod copy_tx;
pub mod desc;
pub mod devmem;
pub mod explore;
pub mod iouring_zc;
pub mod napi_cache;
mod mutant;
pub mod replay;
pub mod tla;
pub mod xsk_ring;
pub mod xsk_rx;

pub use explore::{bfs, explore, ExploreOptions, ExploreResult, Outcome, SpecMachine, Trace};
pub use replay::{replay, replay_checking, states_from_dump, ReplayError};
pub use xsk_ring::{
    init_states, Action, Barrier, Barriers, CfgError, Config, Entry, Load, ModelCfg, Mutant, Own,
    Side, State,
};
