//! Shared by the examples: how an exploration's result is printed.

use std::fmt::Display;

use ringlab_model::{ExploreResult, Outcome};

/// One line of counts for `path`, then the trace if the search found one.
pub fn print_result<S, A: Display>(path: &str, r: &ExploreResult<S, A>) {
    println!(
        "{path}: {} distinct, {} generated, depth {}, {}, {:.3}s",
        r.distinct,
        r.generated,
        r.depth,
        r.outcome.summary(),
        r.elapsed.as_secs_f64()
    );
    if let Outcome::Violation { trace, .. } | Outcome::Deadlock { trace } = &r.outcome {
        let steps: Vec<String> = trace.steps.iter().map(|(a, _)| a.to_string()).collect();
        println!("  trace of {} states: {}", trace.len(), steps.join(", "));
    }
}
