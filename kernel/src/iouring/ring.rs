//! The driver: one io_uring per scenario (small rings, so the CQ
//! overflows), IORING_OP_SEND_ZC and IORING_OP_SEND on the scenario's
//! socket, n SQEs per io_uring_enter(), every CQE reaped; a buffer is
//! written again only after its notification (or after a CQE without
//! F_MORE).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use io_uring::{cqueue, opcode, squeue, types, IoUring};

use super::net::{Net, Pair};
use super::obs::{BatchObs, CqeObs, Live};
use super::scenario::{Fault, Request, Scenario, Step};
use super::sys::{SEND_ZC_REPORT_USAGE, ZC_FLAG_UNKNOWN};

/// How long a batch's CQEs may take to come: a bound, not a figure.
const PATIENCE: Duration = Duration::from_secs(5);
/// The wait after the last batch for CQEs nobody expects.
const LATE: Duration = Duration::from_millis(50);

/// A page-aligned anonymous mapping, unmapped on drop.
struct Map {
    ptr: *mut u8,
    len: usize,
}

impl Map {
    fn new(len: usize, prot: i32) -> io::Result<Map> {
        let len = len.max(1).next_multiple_of(4096);
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        if p == libc::MAP_FAILED {
            return Err(io::Error::other(format!("mmap of {len} bytes: {}", io::Error::last_os_error())));
        }
        Ok(Map { ptr: p.cast(), len })
    }

    /// A fresh pattern in the buffer: the application reusing it.
    fn write(&self, round: u8) {
        unsafe { std::ptr::write_bytes(self.ptr, round, self.len) };
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// An address with nothing mapped at it, between two PROT_NONE pages
/// (so no later mapping of the run lands there). Only the guards are
/// unmapped on drop: another thread may have mapped the hole since.
struct Hole {
    guard: *mut u8,
    addr: *const u8,
}

impl Hole {
    fn new() -> io::Result<Hole> {
        let m = Map::new(3 * 4096, libc::PROT_NONE)?;
        let guard = m.ptr;
        std::mem::forget(m);
        let addr = unsafe { guard.add(4096) };
        if unsafe { libc::munmap(addr.cast(), 4096) } != 0 {
            return Err(io::Error::other(format!("munmap: {}", io::Error::last_os_error())));
        }
        Ok(Hole { guard, addr })
    }
}

impl Drop for Hole {
    fn drop(&mut self) {
        unsafe {
            libc::munmap(self.guard.cast(), 4096);
            libc::munmap(self.guard.add(2 * 4096).cast(), 4096);
        }
    }
}

/// Runs `s` on the kernel: its sockets from `net`, its ring made here.
pub fn run(net: &Net, s: &Scenario) -> io::Result<Live> {
    let mut pair = net.pair(s.transport)?;
    // SUBMIT_ALL: the model's io_uring_enter() submits its whole batch;
    // without it io_submit_sqes() stops at an SQE whose prep fails.
    let ring: IoUring = IoUring::builder().setup_cqsize(s.cq).setup_submit_all().build(s.sq).map_err(|e| io::Error::other(format!("io_uring_setup({} SQ, {} CQ entries): {e}", s.sq, s.cq)))?;
    if !ring.params().is_feature_nodrop() {
        return Err(io::Error::other("the kernel's io_uring lacks IORING_FEAT_NODROP"));
    }
    let reqs: Vec<&Request> = s.requests().collect();
    let bufs = reqs.iter().map(|r| Map::new(r.len as usize, libc::PROT_READ | libc::PROT_WRITE)).collect::<io::Result<Vec<_>>>()?;
    let hole = Hole::new()?;
    let pipe = pipe()?;
    // Request i (from 0) has user_data i + 1; a zero-copy send's fixed
    // buffer is its own entry of the table.
    let fixed_index: Vec<Option<u16>> = {
        let mut k = 0u16;
        reqs.iter().map(|r| (s.fixed && r.zc).then(|| { k += 1; k - 1 })).collect()
    };
    if s.fixed {
        let iov: Vec<libc::iovec> = reqs.iter().zip(&bufs).filter(|(r, _)| r.zc).map(|(_, b)| libc::iovec { iov_base: b.ptr.cast(), iov_len: b.len }).collect();
        if !iov.is_empty() {
            unsafe { ring.submitter().register_buffers(&iov) }.map_err(|e| io::Error::other(format!("IORING_REGISTER_BUFFERS: {e}")))?;
        }
    }
    let mut live = Live { sq_entries: ring.params().sq_entries(), cq_entries: ring.params().cq_entries(), ..Live::default() };
    let mut ring = ring;
    let mut next = 0usize;
    for step in &s.steps {
        match step {
            Step::PeerReset => pair.reset_peer()?,
            Step::Unregister => ring.submitter().unregister_buffers().map_err(|e| io::Error::other(format!("IORING_UNREGISTER_BUFFERS: {e}")))?,
            Step::Batch(b) => {
                let first = next;
                next += b.len();
                let sqes: Vec<squeue::Entry> = (first..next)
                    .map(|i| {
                        let r = reqs[i];
                        let addr = if r.fault == Fault::Unmapped { hole.addr } else { bufs[i].ptr as *const u8 };
                        let fd = types::Fd(if r.fault == Fault::NotSock { pipe.as_raw_fd() } else { pair.tx.as_raw_fd() });
                        sqe(r, s, fd, addr, fixed_index[i]).user_data(i as u64 + 1)
                    })
                    .collect();
                live.batches.push(batch(&mut ring, &pair, &sqes, &bufs[first..next], first)?);
            }
        }
    }
    live.late = late(&mut ring)?;
    Ok(live)
}

fn sqe(r: &Request, s: &Scenario, fd: types::Fd, addr: *const u8, fixed: Option<u16>) -> squeue::Entry {
    if !r.zc {
        return opcode::Send::new(fd, addr, r.len).build();
    }
    let mut zc_flags = if s.report_usage { SEND_ZC_REPORT_USAGE } else { 0 };
    if r.fault == Fault::BadFlags {
        zc_flags |= ZC_FLAG_UNKNOWN;
    }
    let mut op = opcode::SendZc::new(fd, addr, r.len).zc_flags(zc_flags);
    if let Some(i) = fixed {
        op = op.buf_index(Some(i));
    }
    let e = op.build();
    if r.fault == Fault::CqeSkip {
        e.flags(squeue::Flags::SKIP_SUCCESS)
    } else {
        e
    }
}

/// One io_uring_enter() submitting `sqes`, then CQEs reaped until every
/// request has its CQE and each CQE with F_MORE its notification (or
/// PATIENCE runs out: what is missing then is for the comparison to
/// name). A buffer is written again once its request is over.
fn batch(ring: &mut IoUring, pair: &Pair, sqes: &[squeue::Entry], bufs: &[Map], first: usize) -> io::Result<BatchObs> {
    unsafe { ring.submission().push_multiple(sqes) }.map_err(|_| io::Error::other(format!("{} SQEs do not fit the SQ", sqes.len())))?;
    let submitted = ring.submit()?;
    let mut obs = BatchObs { submitted, overflow_flag: ring.submission().cq_overflow(), ..BatchObs::default() };
    // Per request: its CQE seen, a notification owed.
    let mut cqe = vec![false; sqes.len()];
    let mut owed = vec![false; sqes.len()];
    let start = Instant::now();
    loop {
        for c in ring.completion() {
            let o = CqeObs { user_data: c.user_data(), res: c.result(), flags: c.flags() };
            obs.cqes.push(o);
            let Some(i) = (o.user_data as usize).checked_sub(first + 1).filter(|&i| i < sqes.len()) else { continue };
            let over = if o.notif() {
                owed[i] = false;
                true
            } else {
                cqe[i] = true;
                owed[i] = cqueue::more(o.flags);
                !owed[i]
            };
            if over {
                bufs[i].write(obs.cqes.len() as u8);
            }
        }
        if cqe.iter().all(|c| *c) && !owed.iter().any(|o| *o) || start.elapsed() > PATIENCE {
            break;
        }
        pair.drain();
        wait(ring, Duration::from_millis(20))?;
    }
    obs.dropped = ring.completion().overflow();
    Ok(obs)
}

/// io_uring_enter(GETEVENTS) for one CQE or `d`, which also flushes the
/// overflow list into the CQ.
fn wait(ring: &mut IoUring, d: Duration) -> io::Result<()> {
    let ts = types::Timespec::from(d);
    match ring.submitter().submit_with_args(1, &types::SubmitArgs::new().timespec(&ts)) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => Ok(()),
        Err(e) => Err(io::Error::other(format!("io_uring_enter(GETEVENTS): {e}"))),
    }
}

fn late(ring: &mut IoUring) -> io::Result<Vec<CqeObs>> {
    wait(ring, LATE)?;
    Ok(ring.completion().map(|c| CqeObs { user_data: c.user_data(), res: c.result(), flags: c.flags() }).collect())
}

fn pipe() -> io::Result<OwnedFd> {
    let mut fds = [0; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::other(format!("pipe2: {}", io::Error::last_os_error())));
    }
    unsafe { libc::close(fds[0]) };
    Ok(unsafe { OwnedFd::from_raw_fd(fds[1]) })
}
