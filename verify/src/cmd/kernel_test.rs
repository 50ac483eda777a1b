//! `ringlab kernel-test`: the kernel series built, booted and tested in
//! qemu (ringlab-kernel's kernel_test), then every guest campaign's kernel
//! traces validated against specs/XskCopyTx.tla here, where TLC is.

use std::path::Path;

use ringlab_kernel::kernel_test::{self, KernelDoc, KernelTestArgs};

use super::args::to_json;
use super::chain;

pub fn run(a: &KernelTestArgs) -> Result<bool, String> {
    let root = ringlab_model::paths::find_root()?;
    let doc = test(&root, a)?;
    if a.json {
        println!("{}", to_json(&doc)?);
    } else {
        kernel_test::print(&doc);
    }
    Ok(doc.ok)
}

/// kernel_test::test, then the chain of every guest campaign; the
/// document saved again with what the chain found.
pub fn test(root: &Path, a: &KernelTestArgs) -> Result<KernelDoc, String> {
    let mut doc = kernel_test::test(root, a)?;
    if doc.guests.is_some() {
        eprintln!("kernel-test: validating the guests' kernel traces against XskCopyTx");
        chain::vm_doc(&mut doc);
        kernel_test::save(root, &doc)?;
    }
    Ok(doc)
}
