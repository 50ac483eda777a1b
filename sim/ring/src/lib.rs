//! ringlab's lock-free xsk ring: the shared memory, and the four handles on
//! it that mirror the kernel's `xsk_queue.h` and libxdp's `xsk.h`. No
//! dependencies: [`sync`] is loom's under `cfg(loom)` and std's otherwise,
//! [`idx`] the free-running u32 positions.
//!
//! The barriers, as `xsk_queue.h` names them:
//!
//! ```text
//! producer                         consumer
//! if (LOAD ->consumer) {  (A)      LOAD.acq ->producer  (C)
//!    STORE $data                   LOAD $data
//!    STORE.rel ->producer (B)      STORE.rel ->consumer (D)
//! }
//! ```
//!
//! (A) pairs with (D), (B) with (C).

/// `assert!` for the handles' protocol checks, whose message takes copies
/// of its values on the failing path only. (A local the message borrowed
/// would live in memory, each update of it a store; on a ring shared with
/// another CPU those stores queue behind the stores to the shared lines.)
#[cfg(not(ringlab_unchecked))]
macro_rules! check {
    ($cond:expr, $fmt:literal, $($arg:expr),+ $(,)?) => {
        if !$cond {
            panic!($fmt, $({ $arg }),+)
        }
    };
}

/// The bench's second build (`--cfg ringlab_unchecked`, `ringlab bench
/// ring`): the checks compiled out, their expressions still type-checked.
/// Tests and every other build keep them.
#[cfg(ringlab_unchecked)]
macro_rules! check {
    ($cond:expr, $fmt:literal, $($arg:expr),+ $(,)?) => {
        if false {
            let _ = $cond;
            $(let _ = &$arg;)+
        }
    };
}

/// Whether the handles' protocol checks are compiled in.
pub const CHECKED: bool = !cfg!(ringlab_unchecked);

pub mod idx;
pub mod sync;

mod desc;
mod kernel_cons;
mod kernel_prod;
mod mem;
mod owned;
mod queue;
mod user_cons;
mod user_prod;

pub use desc::XdpDesc;
pub use kernel_cons::{KernelCons, TxBatch};
pub use kernel_prod::{KernelProd, NoSpace};
pub use mem::RingMem;
pub use owned::{Ring, SizeError};
pub use queue::Queue;
pub use user_cons::UserCons;
pub use user_prod::UserProd;
