//! Explore the model for each .cfg given: `cargo run --release -p
//! ringlab-model --example explore -- specs/mc/MCXskRing_Fill.cfg ...`

mod common;

use ringlab_model::{explore, ExploreOptions, ModelCfg};

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
        common::print_result(&path, &r);
    }
    if failed {
        std::process::exit(1);
    }
}
