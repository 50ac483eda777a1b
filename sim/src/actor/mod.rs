//! The two actors of a simulation. Each public step function is one spec
//! action: it checks the action's guard (returning `Disabled` if false),
//! then does exactly what the action does, through the ring handles.

mod consumer;
mod producer;

pub use consumer::{Consumer, Loaded};
pub use producer::Producer;
