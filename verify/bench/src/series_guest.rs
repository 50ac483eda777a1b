//! The guest side of `ringlab bench series`: on a veth pair in a namespace,
//! exactly N 64-byte frames a case (AF_XDP copy mode with
//! XDP_GENERIC_XMIT_BATCH unset, 1, 16, 64; AF_PACKET with
//! PACKET_QDISC_BYPASS), each bracketed by the instruction-count markers
//! (series_marker.rs). One JSON line a case on stdout ([`GuestCase`]).

use std::time::Duration;

use clap::Args;
use ringlab_kernel::sandbox::Sandbox;

use super::live_packet::PacketSender;
use super::live_xdp::{frame, XdpSender};
use super::series_marker::mark;
use super::series_table::{GuestCase, CASES};

/// Descriptors (or sendmmsg messages) a call, the same for every case, so
/// the cases differ only in what the kernel does with them.
const PER_CALL: u32 = 64;

#[derive(Args, Debug, Clone)]
pub struct SeriesGuestArgs {
    /// Frames a case
    #[arg(long, default_value_t = 20000)]
    pub packets: u64,
}

pub fn run(a: &SeriesGuestArgs) -> Result<bool, String> {
    if a.packets == 0 {
        return Err("--packets must be at least 1".into());
    }
    let sandbox = Sandbox::new().map_err(|e| format!("cannot create the namespace and veth pair: {e}"))?;
    let out = std::thread::scope(|sc| {
        sc.spawn(|| -> Result<bool, String> {
            sandbox.enter().map_err(|e| format!("entering the namespace: {e}"))?;
            let ifindex = Sandbox::ifindex(&sandbox.a).map_err(|e| e.to_string())?;
            let mut ok = true;
            for (i, (name, batch)) in CASES.iter().enumerate() {
                let c = one(ifindex, i as u16, name, *batch, a.packets);
                ok &= c.error.is_none();
                println!("{}", serde_json::to_string(&c).map_err(|e| e.to_string())?);
            }
            Ok(ok)
        })
        .join()
        .unwrap_or_else(|_| Err("the sending thread panicked".into()))
    });
    drop(sandbox);
    out
}

/// Case `i`: markers 2i (start) and 2i+1 (end) around exactly `n` frames,
/// after a warm-up of n/10 outside them.
fn one(ifindex: u32, i: u16, name: &str, batch: Option<Option<u32>>, n: u64) -> GuestCase {
    let mut c = GuestCase { case: name.into(), marker: i * 2, packets: n, secs: None, calls: None, refused: None, error: None };
    let r = match batch {
        // AF_XDP: Some(None) is the option unset
        Some(b) => xdp(ifindex, i, b, n, &mut c),
        None => packet(ifindex, i, n),
    };
    match r {
        Ok(Some((d, calls))) => {
            c.secs = Some(d.as_secs_f64());
            c.calls = Some(calls);
        }
        Ok(None) => {}
        Err(e) => c.error = Some(e),
    }
    c
}

fn xdp(ifindex: u32, i: u16, batch: Option<u32>, n: u64, c: &mut GuestCase) -> Result<Option<(Duration, u64)>, String> {
    let mut s = XdpSender::new(ifindex, PER_CALL).map_err(|e| format!("AF_XDP copy-mode socket: {e}"))?;
    if let Some(b) = batch {
        match s.set_xmit_batch(b) {
            Ok(()) => {}
            Err(libc::ENOPROTOOPT) => {
                c.refused = Some("XDP_GENERIC_XMIT_BATCH refused (ENOPROTOOPT): the kernel has no batch option".into());
                return Ok(None);
            }
            Err(e) => return Err(format!("setsockopt XDP_GENERIC_XMIT_BATCH = {b}: {}", std::io::Error::from_raw_os_error(e))),
        }
    }
    s.send_exact((n / 10).max(1)).map_err(|e| format!("AF_XDP warm-up: {e}"))?;
    mark(i * 2);
    let d = s.send_exact(n);
    mark(i * 2 + 1);
    d.map(Some).map_err(|e| format!("AF_XDP send: {e}"))
}

fn packet(ifindex: u32, i: u16, n: u64) -> Result<Option<(Duration, u64)>, String> {
    let mut s = PacketSender::new(ifindex, PER_CALL as usize).map_err(|e| format!("AF_PACKET socket: {e}"))?;
    let f = frame();
    s.send_exact(&f, (n / 10).max(1)).map_err(|e| format!("AF_PACKET warm-up: {e}"))?;
    mark(i * 2);
    let d = s.send_exact(&f, n);
    mark(i * 2 + 1);
    d.map(Some).map_err(|e| format!("AF_PACKET send: {e}"))
}
