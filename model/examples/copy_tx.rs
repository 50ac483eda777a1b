//! Explore XskCopyTx models: `cargo run --release -p ringlab-model
//! --example copy_tx -- specs/mc/MCXskCopyTx_B.cfg ...`

mod common;

use ringlab_model::copy_tx::{explore, ModelCfg};

fn main() {
    for path in std::env::args().skip(1) {
        let m = ModelCfg::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let r = explore(&m).unwrap_or_else(|e| panic!("{path}: {e}"));
        common::print_result(&path, &r);
    }
}
