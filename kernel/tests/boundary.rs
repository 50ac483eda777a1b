//! `ringlab diff --boundary` on the running kernel: every boundary
//! descriptor of every umem of boundary::CASES, the kernel's verdicts held
//! to the model's validator. Each umem must show both verdicts, so a wrong
//! validator could not pass by accepting or refusing everything. Prints
//! SKIP and passes when this process cannot use AF_XDP.

use ringlab_kernel::boundary::{disagreement_line, table, CASES};
use ringlab_kernel::boundary_live;

mod common;

#[test]
fn every_boundary_descriptor_as_the_model_judges_it() {
    if common::skip() {
        return;
    }
    let doc = boundary_live::run().expect("the boundary run");
    println!("{}", table(&doc));
    assert_eq!(doc.cases.len(), CASES.len());
    for c in &doc.cases {
        let lines: Vec<String> = c.disagreements.iter().map(disagreement_line).collect();
        assert!(c.disagreements.is_empty(), "{} {}: {}", c.mode.name(), c.chunk, lines.join("; "));
        assert_eq!(c.kernel_reg.is_ok(), c.model_reg.is_ok(), "{} {}: XDP_UMEM_REG {:?} vs the model {:?}", c.mode.name(), c.chunk, c.kernel_reg, c.model_reg);
        assert!(c.accepted > 0 && c.refused > 0, "{} {}: {} accepted, {} refused", c.mode.name(), c.chunk, c.accepted, c.refused);
    }
    assert!(doc.ok);
}
