//! `ringlab repro rx-ring-missing`: frames redirected to an XSKMAP entry
//! naming a socket bound with a Tx ring only. linux 6.12.117 has no test
//! for the missing Rx ring on receive (the map stopped refusing such
//! sockets in 2020) and dereferences NULL in softirq:
//! xsk_generic_rcv() -> xsk_flush() -> xskq_prod_submit(xs->rx), whatever
//! the fill ring holds; kernel/patches/xsk-rx-ring-check adds the test.
//! On a kernel with it every frame is dropped and nothing of the socket
//! moves, which is what this checks. Run it in a VM: `ringlab kernel-test`
//! boots each kernel once more for it.

use std::io;
use std::sync::atomic::Ordering::Acquire;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use ringlab_ring::RingMem;

use crate::bpf::{Paths, Redirect};
use crate::env::{release, Env};
use crate::runner::frame;
use crate::xsk::{Xsk, XskConfig};

/// How long the frames may take to reach the XDP program.
const SEEN_WITHIN: Duration = Duration::from_secs(5);
/// ringlab's EtherType the program redirects to XSKMAP entry 0.
const ETH_P_REDIRECT: u16 = 0x88B5;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RxRingMissing {
    pub kernel: String,
    /// Fill ring entries the application gave before the frames came.
    pub filled: u32,
    pub frames_sent: u32,
    /// Frames the XDP program redirected to the Tx-only socket.
    pub redirected: u64,
    /// Fill ring (producer, consumer) after the frames: a buffer taken for
    /// a socket that cannot receive would be lost.
    pub fill: (u32, u32),
    /// XDP_STATISTICS rx_dropped, rx_ring_full, rx_fill_ring_empty_descs.
    pub rx_counters: [u64; 3],
    /// With bpf_redirect_xsk(): the frames it sent by the fast path and by
    /// the fallback (a queue whose only socket has no Rx ring keeps no
    /// socket, so every frame must fall back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Paths>,
    /// What is wrong with the kernel's answer (empty: as the fix has it).
    pub problems: Vec<String>,
}

impl RxRingMissing {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Binds a copy-mode socket with Tx, fill and completion rings and no Rx
/// ring to the receiving veth's queue 0, gives it `filled` fill entries,
/// puts it in XSKMAP entry 0 and sends `frames` frames to that queue,
/// which the XDP program redirects with `redirect`.
pub fn rx_ring_missing(filled: u32, frames: u32, redirect: Redirect) -> io::Result<RxRingMissing> {
    const SIZE: u32 = 64;
    if filled > SIZE {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("--fill {filled}: the fill ring has {SIZE} entries")));
    }
    let env = Env::with(redirect)?;
    let c = XskConfig {
        ifindex: env.ifindex_b,
        queue: 0,
        frames: SIZE,
        frame_size: 4096,
        headroom: 0,
        fill_size: SIZE,
        comp_size: SIZE,
        rx_size: 0,
        tx_size: SIZE,
        need_wakeup: false,
        sg: false,
    };
    let mut x = Xsk::create(&c)?;
    if filled > 0 {
        let idx = x.fill.reserve(filled).ok_or_else(|| io::Error::other("the fill ring refused its first entries"))?;
        for k in 0..filled {
            x.fill.write(idx.wrapping_add(k), u64::from(k) * u64::from(c.frame_size));
        }
        x.fill.submit(filled);
    }
    let seen0 = env.prog.seen()?;
    let paths0 = env.prog.paths()?;
    env.prog.insert(0, x.fd)?;
    for k in 0..frames {
        env.injector.send(&frame(64, ETH_P_REDIRECT, k))?;
    }
    let t0 = Instant::now();
    let mut redirected = env.prog.seen()? - seen0;
    while redirected < u64::from(frames) && t0.elapsed() < SEEN_WITHIN {
        std::thread::sleep(Duration::from_millis(20));
        redirected = env.prog.seen()? - seen0;
    }
    let paths = match redirect {
        Redirect::Xsk => {
            Some(env.prog.paths()? - paths0)
        }
        Redirect::Map => None,
    };
    env.prog.remove(0);
    let r = x.fill.ring();
    let fill = (r.producer().load(Acquire), r.consumer().load(Acquire));
    let s = x.stats()?;
    let rx_counters = [s.rx_dropped, s.rx_ring_full, s.rx_fill_ring_empty_descs];
    Ok(judge(RxRingMissing { kernel: release(), filled, frames_sent: frames, redirected, fill, rx_counters, paths, problems: Vec::new() }))
}

/// What the fixed kernel does: every frame reaches the program and is
/// redirected, no fill entry is taken, no receive counter moves (the
/// socket has no ring to have been full or short of).
fn judge(mut o: RxRingMissing) -> RxRingMissing {
    if o.redirected != u64::from(o.frames_sent) {
        o.problems.push(format!("the XDP program redirected {} of the {} frames within {} s", o.redirected, o.frames_sent, SEEN_WITHIN.as_secs()));
    }
    if o.fill != (o.filled, 0) {
        o.problems.push(format!("fill ring (producer, consumer) is {:?}, not ({}, 0): a buffer was taken for a socket that cannot receive", o.fill, o.filled));
    }
    if o.rx_counters != [0; 3] {
        o.problems.push(format!("rx_dropped, rx_ring_full, rx_fill_ring_empty_descs are {:?}, not all 0", o.rx_counters));
    }
    if let Some(p) = o.paths.filter(|p| p.fast_path != 0 || p.fallback != o.redirected) {
        o.problems.push(format!(
            "bpf_redirect_xsk() took the fast path for {} and fell back for {} of {} redirected frames: a socket without an Rx ring must never be the queue's",
            p.fast_path, p.fallback, o.redirected
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed() -> RxRingMissing {
        RxRingMissing { kernel: "6.12.117".into(), filled: 4, frames_sent: 8, redirected: 8, fill: (4, 0), rx_counters: [0; 3], paths: None, problems: vec![] }
    }

    #[test]
    fn the_fixed_kernels_answer_passes() {
        assert!(judge(fixed()).ok());
    }

    #[test]
    fn a_taken_buffer_a_counter_or_a_lost_frame_fails() {
        let taken = judge(RxRingMissing { fill: (4, 1), ..fixed() });
        assert!(taken.problems[0].contains("buffer was taken"), "{:?}", taken.problems);
        let counted = judge(RxRingMissing { rx_counters: [1, 0, 0], ..fixed() });
        assert!(counted.problems[0].contains("rx_dropped"), "{:?}", counted.problems);
        let unseen = judge(RxRingMissing { redirected: 7, ..fixed() });
        assert!(unseen.problems[0].contains("7 of the 8"), "{:?}", unseen.problems);
    }

    #[test]
    fn with_bpf_redirect_xsk_every_frame_falls_back() {
        assert!(judge(RxRingMissing { paths: Some(Paths { fast_path: 0, fallback: 8 }), ..fixed() }).ok());
        let fast = judge(RxRingMissing { paths: Some(Paths { fast_path: 1, fallback: 7 }), ..fixed() });
        assert!(fast.problems[0].contains("fast path for 1"), "{:?}", fast.problems);
    }
}
