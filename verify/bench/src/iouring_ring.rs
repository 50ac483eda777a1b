//! The io_uring modes: IORING_OP_SEND (the seed's `-z0`) and
//! IORING_OP_SEND_ZC, `n` requests per io_uring_enter(2) (`-n1`, `-n8`),
//! the zero-copy ones with and without `-f`.
//!
//! `-f` today: the seed's uAPI had notification slots, and `-f` flushed a
//! slot's notification after every request instead of one notification for
//! many. Since linux 6.0 every SEND_ZC request posts its own notification
//! CQE (io_send_zc() -> io_notif_flush()), so there is nothing left to
//! flush. What still differs is when the submitter waits for them: here
//! `-f` waits for the notifications of each batch before it submits the
//! next (its n buffers then reused at once); without `-f` up to SLOTS
//! buffers are in flight and a notification is only waited for when none is
//! free. Either way no buffer is reused before its notification.

use std::io;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use io_uring::types::{Fd, SubmitArgs, Timespec};
use io_uring::{cqueue, opcode, IoUring};

use super::iouring_pool::{Pool, Run, SLOTS};

/// include/uapi/linux/io_uring.h; the crate keeps them private.
const IORING_SEND_ZC_REPORT_USAGE: u16 = 1 << 3;
const IORING_NOTIF_USAGE_ZC_COPIED: u32 = 1 << 31;
/// Room for a request CQE and a notification per slot: no CQ overflow.
const CQ_ENTRIES: u32 = 4 * SLOTS as u32;
/// How long an expected CQE may take before the run is called broken.
const DRAIN: Duration = Duration::from_secs(2);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingMode {
    /// IORING_OP_SEND_ZC (else IORING_OP_SEND).
    pub zc: bool,
    /// Requests per io_uring_enter(2).
    pub n: usize,
    /// Wait for every notification of a batch before the next.
    pub flush: bool,
}

struct Sender {
    ring: IoUring,
    pool: Pool,
    payload: usize,
    op: &'static str,
}

impl Sender {
    /// Submits what is queued and waits (up to DRAIN) for `want` CQEs.
    fn enter(&mut self, want: usize, r: &mut Run) -> Result<(), String> {
        let ts = Timespec::from(DRAIN);
        let args = SubmitArgs::new().timespec(&ts);
        loop {
            r.calls += 1;
            let got = if want == 0 { self.ring.submit() } else { self.ring.submitter().submit_with_args(want, &args) };
            match got {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::ETIME) => {
                    return Err(format!("no CQE within {DRAIN:?} with {} {} requests in flight", self.pool.in_flight(), self.op))
                }
                Err(e) => return Err(format!("io_uring_enter: {e}")),
            }
        }
    }

    /// Reads every CQE there: a request's frees its buffer unless a
    /// notification follows (IORING_CQE_F_MORE); a notification frees it.
    fn reap(&mut self, r: &mut Run) -> Result<(), String> {
        for cqe in self.ring.completion() {
            let (slot, res, flags) = (cqe.user_data() as usize, cqe.result(), cqe.flags());
            if cqueue::notif(flags) {
                self.pool.give_back(slot)?;
                r.zc_done += 1;
                if res as u32 & IORING_NOTIF_USAGE_ZC_COPIED != 0 {
                    r.zc_copied += 1;
                }
                continue;
            }
            if res < 0 {
                return Err(format!("{} of {} bytes: {}", self.op, self.payload, io::Error::from_raw_os_error(-res)));
            }
            if res as usize != self.payload {
                return Err(format!("{} sent {res} of {} bytes", self.op, self.payload));
            }
            r.requests += 1;
            if !cqueue::more(flags) {
                self.pool.give_back(slot)?;
            }
        }
        Ok(())
    }

    /// Queues `n` requests, each from a free buffer.
    fn queue(&mut self, fd: Fd, n: usize, zc: bool) -> Result<(), String> {
        let len = self.payload as u32;
        let mut sq = self.ring.submission();
        for _ in 0..n {
            let (slot, buf) = self.pool.take().ok_or("no free buffer to queue")?;
            let sqe = if zc {
                opcode::SendZc::new(fd, buf, len).zc_flags(IORING_SEND_ZC_REPORT_USAGE).build()
            } else {
                opcode::Send::new(fd, buf, len).build()
            };
            // Safety: the buffer stays lent (and the pool alive) until its
            // last CQE is reaped.
            unsafe { sq.push(&sqe.user_data(slot as u64)) }.map_err(|_| "submission queue full".to_string())?;
        }
        Ok(())
    }
}

/// Sends for `run`, then waits for every CQE still due.
pub fn run(s: &UdpSocket, payload: usize, m: RingMode, run: Duration) -> Result<Run, String> {
    let ring = IoUring::builder()
        .setup_cqsize(CQ_ENTRIES)
        .build(SLOTS as u32)
        .map_err(|e| format!("io_uring_setup: {e}"))?;
    let op = if m.zc { "IORING_OP_SEND_ZC" } else { "IORING_OP_SEND" };
    let mut t = Sender { ring, pool: Pool::new(payload), payload, op };
    let fd = Fd(s.as_raw_fd());
    let mut r = Run::default();
    let start = Instant::now();
    while start.elapsed() < run {
        while t.pool.free() < m.n {
            t.enter(1, &mut r)?;
            t.reap(&mut r)?;
        }
        t.queue(fd, m.n, m.zc)?;
        // SEND on UDP completes inline: its CQEs are there when enter returns.
        t.enter(0, &mut r)?;
        t.reap(&mut r)?;
        while m.flush && t.pool.in_flight() > 0 {
            t.enter(1, &mut r)?;
            t.reap(&mut r)?;
        }
    }
    while t.pool.in_flight() > 0 {
        t.enter(1, &mut r)?;
        t.reap(&mut r)?;
    }
    r.elapsed = start.elapsed();
    Ok(r)
}
