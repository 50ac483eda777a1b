//! ringlab's simulation harness and the protocols it runs.
//!
//! A protocol ([`protocols`]) is a system of objects on real atomics (the
//! ring of [`ringlab_ring`], or objects built on its `sync` shim, so loom
//! sees every access), its actions named as in its spec, its invariants,
//! and a projection of its state onto the spec's variables. The harness
//! ([`harness`]) runs any of them: one seeded scheduler, one thread runner,
//! one trace writer, replay and verdict.

mod disabled;
pub mod protocols;

pub use disabled::{Disabled, Step};
pub use protocols::{copy_tx, devmem, xsk_ring, xsk_rx};

/// Items of the std build only: loom builds just the protocols' objects.
macro_rules! std_only {
    ($($item:item)*) => { $( #[cfg(not(loom))] $item )* };
}

std_only! {
    pub mod harness;
}

/// The mutant this run puts back ([`ringlab_mutant::active`]), as a list
/// so that traces and replays record it: empty in every ordinary build.
pub fn mutants() -> Vec<&'static str> {
    ringlab_mutant::active().into_iter().collect()
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// What a trace records is what RINGLAB_MUTANT asked for, read here
    /// from the environment itself; an ordinary build records nothing.
    #[test]
    fn mutants_names_the_one_of_this_run() {
        let asked = std::env::var(ringlab_mutant::ENV).ok().filter(|v| !v.is_empty());
        let want: Vec<String> = if ringlab_mutant::built_in() { asked.into_iter().collect() } else { Vec::new() };
        assert_eq!(super::mutants(), want);
    }
}
