//! Explore the model for each .cfg given: `cargo run --release -p
//! ringlab-model --example explore -- specs/mc/MCXskRing_Fill.cfg ...`

use ringlab_model::{explore, ExploreOptions, ModelCfg, Outcome};

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let m = match ModelCfg::from_file(&path) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{e}");
                failed = true;
                continue;
            }
        };
        let opts = ExploreOptions::from_model_cfg(&m).unwrap_or_else(|e| panic!("{path}: {e}"));
        let r = explore(&m.config, &opts);
        println!(
            "{path}: {} distinct, {} generated, depth {}, {}, {:.3}s",
            r.distinct,
            r.generated,
            r.depth,
            r.outcome.summary(),
            r.elapsed.as_secs_f64()
        );
        if let Outcome::Violation { trace, .. } | Outcome::Deadlock { trace } = &r.outcome {
            println!(
                "  trace of {} states: {}",
                trace.len(),
                trace
                    .steps
                    .iter()
                    .map(|(a, _)| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if failed {
        std::process::exit(1);
    }
}
