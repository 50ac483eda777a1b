//! What the running kernel offers ringlab: the batch series' socket
//! options (an unbound socket with a TX ring is asked; ENOPROTOOPT means
//! the option does not exist) and fault injection.

use std::io;

use serde::{Deserialize, Serialize};

use crate::env::release;
use crate::failnth;
use crate::sys::{check, setsockopt, AF_XDP, SOL_XDP, XDP_GENERIC_XMIT_BATCH, XDP_MAX_TX_SKB_BUDGET, XDP_TX_RING};
use crate::txopts::{set, TX_BATCH_SIZE};
use crate::xsk::FdGuard;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    pub kernel: String,
    pub xmit_batch_supported: bool,
    pub max_tx_budget_supported: bool,
    /// /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION).
    pub fail_nth: bool,
    /// /sys/kernel/debug/failslab (CONFIG_FAILSLAB, debugfs mounted).
    pub failslab: bool,
}

pub fn probe() -> io::Result<Probe> {
    // Safety: plain socket(2).
    let fd = unsafe { libc::socket(AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    check(fd as libc::c_long, "socket(AF_XDP)")?;
    let _guard = FdGuard(fd);
    setsockopt(fd, SOL_XDP, XDP_TX_RING, &64u32, "XDP_TX_RING")?;
    // The defaults: batch off, budget TX_BATCH_SIZE.
    let known = |name, val| set(fd, name, val) != Err(libc::ENOPROTOOPT);
    Ok(Probe {
        kernel: release(),
        xmit_batch_supported: known(XDP_GENERIC_XMIT_BATCH, 0),
        max_tx_budget_supported: known(XDP_MAX_TX_SKB_BUDGET, TX_BATCH_SIZE),
        fail_nth: std::path::Path::new(failnth::FAIL_NTH).exists(),
        failslab: std::path::Path::new(failnth::FAILSLAB).is_dir(),
    })
}
