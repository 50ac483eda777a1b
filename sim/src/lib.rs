//! ringlab simulator.
