//! What the live-kernel tests share: the skip rule and a default setup.

#![allow(dead_code)]

use ringlab_kernel::env::skip_reason;
use ringlab_model::afxdp::{Setup, TxDesc};

/// True, after printing why, when this process cannot use AF_XDP (not
/// root, no AF_XDP): the only case in which these tests pass untried.
pub fn skip() -> bool {
    match skip_reason() {
        Some(why) => {
            println!("SKIP: {why}");
            true
        }
        None => false,
    }
}

/// One socket's umem and rings, 64 of everything, 4 KiB frames.
pub fn setup(rx_socket: bool, loopback: bool) -> Setup {
    Setup {
        frame_size: 4096,
        frames: 64,
        headroom: 0,
        fill_size: 64,
        comp_size: 64,
        rx_size: 64,
        tx_size: 64,
        need_wakeup: true,
        rx_socket,
        loopback,
        sg: false,
        shared: false,
    }
}

pub fn desc(addr: u64, len: u32, options: u32, class: &str) -> TxDesc {
    TxDesc { addr, len, options, class: class.into() }
}
