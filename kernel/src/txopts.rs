//! The TX socket options a profile needs on the running kernel:
//! XDP_MAX_TX_SKB_BUDGET when its budget is not TX_BATCH_SIZE (32), and
//! XDP_GENERIC_XMIT_BATCH when it batches. A kernel that refuses one
//! fails the run: the model would otherwise predict a socket the kernel
//! does not have.

use std::io;

use ringlab_model::afxdp::Profile;

use crate::sys::{SOL_XDP, XDP_GENERIC_XMIT_BATCH, XDP_MAX_TX_SKB_BUDGET};

/// The kernel's default budget (TX_BATCH_SIZE, net/xdp/xsk.c).
pub const TX_BATCH_SIZE: u32 = 32;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxOpts {
    /// XDP_MAX_TX_SKB_BUDGET, if set.
    pub budget: Option<u32>,
    /// XDP_GENERIC_XMIT_BATCH, if set.
    pub batch: Option<u32>,
}

impl TxOpts {
    pub fn of(p: &Profile) -> TxOpts {
        TxOpts::new(p.tx_batch, p.tx_budget)
    }

    /// The options for a batch size and budget (0 and 32: none).
    pub fn new(batch: u32, budget: u32) -> TxOpts {
        TxOpts { budget: (budget != TX_BATCH_SIZE).then_some(budget), batch: (batch > 0).then_some(batch) }
    }

    /// Sets them on TX socket `fd`, whose TX ring has `tx_size` entries.
    pub fn apply(&self, fd: libc::c_int, tx_size: u32) -> io::Result<()> {
        if let Some(b) = self.budget {
            set(fd, XDP_MAX_TX_SKB_BUDGET, b).map_err(|e| refused("XDP_MAX_TX_SKB_BUDGET", b, tx_size, e))?;
        }
        if let Some(b) = self.batch {
            set(fd, XDP_GENERIC_XMIT_BATCH, b).map_err(|e| refused("XDP_GENERIC_XMIT_BATCH", b, tx_size, e))?;
        }
        Ok(())
    }
}

/// setsockopt(SOL_XDP, name, u32): the errno on failure.
pub fn set(fd: libc::c_int, name: libc::c_int, val: u32) -> Result<(), i32> {
    // Safety: val is a u32 of the size passed.
    let r = unsafe {
        libc::setsockopt(
            fd,
            SOL_XDP,
            name,
            &val as *const u32 as *const libc::c_void,
            std::mem::size_of::<u32>() as u32,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
    } else {
        Ok(())
    }
}

fn refused(name: &str, val: u32, tx_size: u32, errno: i32) -> io::Error {
    let msg = match errno {
        libc::ENOPROTOOPT if name == "XDP_GENERIC_XMIT_BATCH" => {
            "the running kernel has no XDP_GENERIC_XMIT_BATCH (is the series applied?)".to_string()
        }
        libc::ENOPROTOOPT => "the running kernel has no XDP_MAX_TX_SKB_BUDGET (6.17+, or the batch series)".to_string(),
        _ => format!(
            "setsockopt {name} = {val} on a socket with a {tx_size}-entry TX ring: {}",
            io::Error::from_raw_os_error(errno)
        ),
    };
    io::Error::new(io::ErrorKind::Unsupported, msg)
}
