//! The send buffers of one run and what a run counted. A zero-copy send
//! lends its buffer to the kernel until its completion (an io_uring
//! notification CQE, a MSG_ZEROCOPY error-queue range) says the skbs let go
//! of it; a slot is reused only after that.

use std::time::Duration;

/// Buffers a sender may have in flight.
pub const SLOTS: usize = 64;

pub struct Pool {
    bytes: Vec<u8>,
    size: usize,
    busy: Vec<bool>,
    free: Vec<usize>,
}

impl Pool {
    pub fn new(size: usize) -> Pool {
        // Distinct bytes per slot, so a buffer's pages are really touched.
        let bytes = (0..SLOTS * size).map(|i| (i / size) as u8 ^ (i as u8)).collect();
        Pool { bytes, size, busy: vec![false; SLOTS], free: (0..SLOTS).rev().collect() }
    }

    pub fn free(&self) -> usize {
        self.free.len()
    }

    pub fn in_flight(&self) -> usize {
        SLOTS - self.free.len()
    }

    /// A free slot, now busy, and its buffer.
    pub fn take(&mut self) -> Option<(usize, *const u8)> {
        let s = self.free.pop()?;
        self.busy[s] = true;
        Some((s, self.bytes[s * self.size..].as_ptr()))
    }

    /// Slot `s` is the sender's again; Err if it was not lent.
    pub fn give_back(&mut self, s: usize) -> Result<(), String> {
        match self.busy.get_mut(s) {
            Some(b) if *b => {
                *b = false;
                self.free.push(s);
                Ok(())
            }
            _ => Err(format!("a completion for buffer slot {s}, which was not in flight")),
        }
    }
}

/// What one timed run did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Run {
    /// Datagrams sent in full (a request CQE or send(2) returning the payload).
    pub requests: u64,
    /// From the first send to the last completion reaped.
    pub elapsed: Duration,
    /// Zero-copy completions, and how many of them the kernel reported as
    /// copied after all (IORING_NOTIF_USAGE_ZC_COPIED, SO_EE_CODE_ZEROCOPY_COPIED).
    pub zc_done: u64,
    pub zc_copied: u64,
    /// System calls made (submit and reap).
    pub calls: u64,
}

impl Run {
    pub fn per_sec(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}
