//! The kernel's half of `ringlab diff --boundary`: for each umem of
//! boundary::CASES a copy-mode TX socket on the sandbox's veth, and each
//! grid descriptor sent alone: written to the TX ring, sendto, the
//! completion ring drained, XDP_STATISTICS read before and after.
//!
//! A descriptor with XDP_PKT_CONTD that the kernel accepts starts a
//! multi-buffer packet (copy mode builds it whether or not the socket was
//! bound with XDP_USE_SG: __xsk_generic_xmit never reads xs->sg), so a
//! valid descriptor without the flag follows it; if it was refused, the
//! follower is drained as the rest of a dropped packet. Either way the
//! socket is back to no packet in progress before the next descriptor.
//! A descriptor with XDP_TX_METADATA goes second in a packet instead
//! (Case::opener says why).

use std::io;
use std::time::{Duration, Instant};

use ringlab_model::afxdp::ETH_P_TXONLY;
use ringlab_model::desc::Boundary;
use ringlab_ring::XdpDesc;

use crate::boundary::{compare, model_verdict, BoundaryDoc, Case, CaseResult, Mode, Plan, Seen, CASES};
use crate::campaign::in_sandbox;
use crate::env::{release, Env};
use crate::runner::frame;
use crate::xsk::{Xsk, XskConfig};

/// How long a sent packet may take to complete (its skb freed).
const SETTLE: Duration = Duration::from_secs(2);
const RING: u32 = 64;

/// Every case of [`CASES`] on the running kernel, in a sandbox of its own.
pub fn run() -> io::Result<BoundaryDoc> {
    let cases = in_sandbox(|env| CASES.iter().map(|c| run_case(env, c)).collect::<io::Result<Vec<_>>>())?;
    Ok(BoundaryDoc::of(release(), cases))
}

/// One umem: registered (or refused), then its grid sent.
pub fn run_case(env: &Env, case: &Case) -> io::Result<CaseResult> {
    let c = XskConfig {
        ifindex: env.ifindex_a,
        queue: 0,
        frames: case.frames,
        frame_size: case.chunk,
        headroom: 0,
        fill_size: RING,
        comp_size: RING,
        rx_size: 0,
        tx_size: RING,
        need_wakeup: false,
        sg: false,
    };
    let flags = match case.mode {
        Mode::Aligned => 0,
        Mode::Unaligned => libc::XDP_UMEM_UNALIGNED_CHUNK_FLAG,
    };
    let mut x = match Xsk::create_with(&c, flags) {
        Ok(x) => x,
        // sys::check names the call: only the registration's refusal is a verdict.
        Err(e) if e.to_string().starts_with("XDP_UMEM_REG:") => return Ok(compare(case, Err(e.to_string()), &[], model_verdict)),
        Err(e) => return Err(e),
    };
    let mut seen = Vec::new();
    for d in case.grid() {
        seen.push(send_alone(&mut x, &d, case)?);
    }
    Ok(compare(case, Ok(()), &seen, model_verdict))
}

/// Sends `d` alone: after the case's opener if it needs one, before
/// its closer if it carries XDP_PKT_CONTD.
fn send_alone(x: &mut Xsk, d: &Boundary, case: &Case) -> io::Result<Seen> {
    let chunk = case.chunk;
    let plan = Plan::of(d);
    if plan.opener {
        let before = x.stats()?.tx_invalid_descs;
        send(x, &case.opener(), chunk)?;
        if x.stats()?.tx_invalid_descs != before {
            return Err(io::Error::other(format!("the kernel refused the opener {:?}", case.opener())));
        }
    }
    let before = x.stats()?.tx_invalid_descs;
    let errno = send(x, d, chunk)?;
    let invalid = x.stats()?.tx_invalid_descs - before;
    if plan.closer {
        // The packet's skb is held (xs->skb) until it is closed.
        send(x, &case.closer(), chunk)?;
    }
    // A refused descriptor may still be completed alone; wait only for
    // what an accepted packet makes.
    let expected = plan.completions();
    let completions = settle(x, if invalid == 0 { expected } else { 0 })?;
    Ok(Seen { invalid, completions, expected, errno, in_packet: plan.opener })
}

/// Writes `d` to the TX ring (its frame into the umem where it fits) and
/// kicks: the sendto's errno, 0 if it succeeded.
fn send(x: &mut Xsk, d: &Boundary, chunk: u32) -> io::Result<i32> {
    x.umem.write(d.addr, &frame(d.len.min(chunk), ETH_P_TXONLY, 0));
    let tx = x.tx.as_mut().ok_or_else(|| io::Error::other("the boundary socket has no TX ring"))?;
    let idx = tx.reserve(1).ok_or_else(|| io::Error::other("the TX ring is full: the kernel consumed no earlier descriptor"))?;
    tx.write(idx, XdpDesc { addr: d.addr, len: d.len, options: d.options });
    tx.submit(1);
    Ok(match x.kick() {
        Ok(_) => 0,
        Err(e) => e,
    })
}

/// Drains the completion ring until `want` completions came and every
/// TX skb is freed, or SETTLE passed: the completions drained.
fn settle(x: &mut Xsk, want: u32) -> io::Result<u32> {
    let start = Instant::now();
    let mut got = 0;
    loop {
        let (n, _) = x.comp.peek(RING);
        x.comp.release(n);
        got += n;
        if (got >= want && x.wmem_alloc()? == 0) || start.elapsed() >= SETTLE {
            return Ok(got);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}
