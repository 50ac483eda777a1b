//! The two actors of a simulation. Each public step function is one spec
//! action: it checks the action's guard (returning `Disabled` if false),
//! then does exactly what the action does, through the ring handles.

mod consumer;
mod producer;

pub use consumer::{Consumer, Loaded};
pub use producer::Producer;

use std::ops::Deref;

use crate::xsk_ring::action::{Action, Counts, StepError};
use crate::xsk_ring::config::Side;
use ringlab_ring::{Queue, RingMem};

/// An actor's ring handle: the kernel's or libxdp's.
#[derive(Debug)]
enum Handle<K, U> {
    Kernel(K),
    User(U),
}

impl<K, U> Handle<K, U> {
    fn side(&self) -> Side {
        match self {
            Handle::Kernel(_) => Side::Kernel,
            Handle::User(_) => Side::User,
        }
    }
}

impl<R: RingMem, K, U> Handle<K, U>
where
    K: Deref<Target = Queue<R>>,
    U: Deref<Target = Queue<R>>,
{
    /// The ring and cached counters, whichever side holds them.
    fn q(&self) -> &Queue<R> {
        match self {
            Handle::Kernel(k) => k,
            Handle::User(u) => u,
        }
    }
}

/// What both actors keep besides their handle: the batch bound and how
/// many of each action they have taken.
#[derive(Debug)]
struct Steps {
    max_batch: u32,
    counts: Counts,
}

impl Steps {
    fn new(max_batch: u32) -> Self {
        Steps {
            max_batch,
            counts: Counts::default(),
        }
    }

    fn in_batch(&self, n: u32) -> bool {
        (1..=self.max_batch).contains(&n)
    }

    /// Count action `a` as taken; `v` is its step function's value.
    fn done<T>(&mut self, a: Action, v: T) -> Result<T, StepError> {
        self.counts.add(a);
        Ok(v)
    }
}
