//! What the live-kernel tests share: the skip rule and a default setup.

#![allow(dead_code)]

use ringlab_kernel::campaign::in_sandbox;
use ringlab_kernel::compare::check;
use ringlab_kernel::env::{release, skip_reason};
use ringlab_kernel::runner;
use ringlab_model::afxdp::{predict, Obs, Profile, Scenario, Setup, TxDesc};

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
        rx_shared: false,
    }
}

pub fn desc(addr: u64, len: u32, options: u32, class: &str) -> TxDesc {
    TxDesc { addr, len, options, class: class.into() }
}

/// Runs `s` on the kernel; panics with both sides on a divergence.
pub fn agree(s: Scenario) {
    let p = Profile::for_release(&release());
    let want = predict(&s, &p);
    let m = in_sandbox(move |env| check(env, &s, &p)).unwrap();
    assert!(m.is_none(), "kernel diverges from the model: {m:?}\nmodel: {want:?}");
}

/// The kernel's observations of `s`, printed, after checking they are the
/// model's under the running kernel's profile.
pub fn observe(s: Scenario) -> Vec<Obs> {
    let p = Profile::for_release(&release());
    let want = predict(&s, &p);
    let k = in_sandbox(move |env| runner::run(env, &s)).unwrap();
    for (i, o) in k.iter().enumerate() {
        println!("  {i}: {o:?}");
    }
    assert_eq!(want, k, "kernel (right) diverges from the model under profile {}", p.name);
    k
}
