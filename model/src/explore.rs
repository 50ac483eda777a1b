//! Explicit-state breadth-first search of the model, as TLC does it.
