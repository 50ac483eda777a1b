//! The IoUringZcNotif model against a live TLC run on the current spec
//! (common::vs_tlc says what the two tests compare).

mod common;

model_vs_tlc_tests!(iouring_zc, "IoUringZcNotif", "iouring", 2, 14);
