//! Explore XskCopyTx models: `cargo run --release -p ringlab-model
//! --example copy_tx -- specs/mc/MCXskCopyTx_B.cfg ...`

use ringlab_model::copy_tx::{explore, ModelCfg};
use ringlab_model::Outcome;

fn main() {
    for path in std::env::args().skip(1) {
        let m = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let r = explore(&m).unwrap_or_else(|e| panic!("{path}: {e}"));
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
}
