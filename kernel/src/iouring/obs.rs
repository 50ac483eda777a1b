//! What the driver saw: every CQE in the order it was reaped, per batch.

use serde::{Deserialize, Serialize};

use super::sys::{CQE_F_MORE, CQE_F_NOTIF, NOTIF_USAGE_ZC_COPIED};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CqeObs {
    pub user_data: u64,
    pub res: i32,
    pub flags: u32,
}

impl CqeObs {
    pub fn more(&self) -> bool {
        self.flags & CQE_F_MORE != 0
    }

    pub fn notif(&self) -> bool {
        self.flags & CQE_F_NOTIF != 0
    }

    /// A notification's IORING_NOTIF_USAGE_ZC_COPIED.
    pub fn copied(&self) -> bool {
        self.notif() && self.res & NOTIF_USAGE_ZC_COPIED != 0
    }
}

/// One batch: its io_uring_enter() and the CQEs reaped after it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchObs {
    /// What io_uring_enter() returned: the SQEs it consumed.
    pub submitted: usize,
    /// IORING_SQ_CQ_OVERFLOW as io_uring_enter() returned.
    pub overflow_flag: bool,
    pub cqes: Vec<CqeObs>,
    /// The CQ's overflow counter after the batch: CQEs the kernel dropped.
    pub dropped: u32,
}

/// A scenario's run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Live {
    /// One per Step::Batch, in order.
    pub batches: Vec<BatchObs>,
    /// CQEs that came after the last batch was complete.
    pub late: Vec<CqeObs>,
    /// SQ and CQ entries the kernel gave.
    pub sq_entries: u32,
    pub cq_entries: u32,
}

impl Live {
    pub fn cqes(&self) -> usize {
        self.batches.iter().map(|b| b.cqes.len()).sum::<usize>() + self.late.len()
    }

    /// Notifications reporting zero copy, and reporting a copy.
    pub fn usage(&self) -> (u64, u64) {
        let n = self.batches.iter().flat_map(|b| &b.cqes).filter(|c| c.notif());
        let (copied, zc): (Vec<&CqeObs>, Vec<&CqeObs>) = n.partition(|c| c.copied());
        (zc.len() as u64, copied.len() as u64)
    }
}
