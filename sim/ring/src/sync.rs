//! Atomics, cells, `Arc`, `Mutex` and threads: loom's under `cfg(loom)`, std's
//! otherwise, so the ring code is the same text in both builds.

#[cfg(loom)]
pub use loom::cell::UnsafeCell;
#[cfg(loom)]
pub use loom::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU8, Ordering};
#[cfg(loom)]
pub use loom::sync::Arc;
#[cfg(loom)]
pub use loom::sync::{Mutex, MutexGuard};
#[cfg(loom)]
pub use loom::thread;

#[cfg(not(loom))]
pub use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU8, Ordering};
#[cfg(not(loom))]
pub use std::sync::Arc;
#[cfg(not(loom))]
pub use std::sync::{Mutex, MutexGuard};
#[cfg(not(loom))]
pub use std::thread;

/// std's `UnsafeCell` behind loom's closure API (`with`, `with_mut`), which
/// is what lets loom see every slot access. Transparent, so a slice of them
/// is a slice of `T` (the owned ring copies runs of slots at once).
#[cfg(not(loom))]
#[derive(Debug, Default)]
#[repr(transparent)]
pub struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub const fn new(data: T) -> Self {
        Self(std::cell::UnsafeCell::new(data))
    }

    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::UnsafeCell;

    #[test]
    fn cell_reads_back_what_was_written() {
        let c = UnsafeCell::new(1u64);
        c.with_mut(|p| unsafe { *p = 7 });
        assert_eq!(c.with(|p| unsafe { *p }), 7);
    }
}
