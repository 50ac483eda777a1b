//! The one harness every protocol runs on (std only: loom builds just the
//! protocols' objects).
//!
//! protocol.rs: what a protocol gives (the [`Protocol`] trait); sched.rs:
//! the seeded deterministic scheduler; threads.rs: the real-thread
//! runner's machinery; trace.rs: the JSON-lines trace; replay.rs: replay
//! of a trace; verdict.rs: how a run ends. docs/src/adding-a-protocol.md
//! says how a protocol plugs in.

pub mod protocol;
pub mod replay;
pub mod sched;
pub mod threads;
pub mod trace;
pub mod verdict;

pub use protocol::{Protocol, Stats};
pub use replay::{replay, Outcome, Replayed};
pub use sched::{run, Sched};
pub use threads::{preempt, settle, Crew, Stop, Worker};
pub use trace::{Header, Line, RawTrace, SharedBuf, Trace, TraceError, TraceWriter};
pub use verdict::{panic_message, Failure, RunError, Violation};
pub use crate::{Disabled, Step};
