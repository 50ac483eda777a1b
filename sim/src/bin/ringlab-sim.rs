//! `ringlab-sim`: run the simulator, and turn its traces into TLA+.

#[cfg(not(loom))]
fn main() -> std::process::ExitCode {
    ringlab_sim::cli::main(std::env::args().skip(1).collect())
}

/// Under loom only the ring code is built; there is nothing to run.
#[cfg(loom)]
fn main() {}
