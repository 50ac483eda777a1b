//! The entries the rings carry: a SEND_ZC SQE (the fields of struct
//! io_uring_sqe the protocol reads) and struct io_uring_cqe, with the
//! flags of include/uapi/linux/io_uring.h; and their spec values.

use ringlab_model::iouring_zc as model;

/// IORING_CQE_F_MORE: the request posts another CQE (its notification).
pub const IORING_CQE_F_MORE: u32 = 1 << 1;
/// IORING_CQE_F_NOTIF: this CQE is a notification.
pub const IORING_CQE_F_NOTIF: u32 = 1 << 3;

/// An SQE of IORING_OP_SEND_ZC: whose it is and how many units it sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sqe {
    pub user_data: u64,
    pub len: u32,
    /// IORING_RECVSEND_FIXED_BUF: buf_index names a registered buffer.
    pub fixed: bool,
}

/// struct io_uring_cqe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cqe {
    pub user_data: u64,
    pub res: i32,
    pub flags: u32,
}

impl Cqe {
    /// The request CQE of r: res, and F_MORE when a notification follows.
    pub fn req(r: model::Req, res: i64, more: bool) -> Cqe {
        Cqe {
            user_data: u64::from(r),
            res: i32::try_from(res).expect("a result fits the CQE's res"),
            flags: if more { IORING_CQE_F_MORE } else { 0 },
        }
    }

    /// The notification CQE of r (io_notif_tw_complete): res 0, F_NOTIF.
    pub fn notif(r: model::Req) -> Cqe {
        Cqe {
            user_data: u64::from(r),
            res: 0,
            flags: IORING_CQE_F_NOTIF,
        }
    }

    pub fn is_notif(&self) -> bool {
        self.flags & IORING_CQE_F_NOTIF != 0
    }

    pub fn more(&self) -> bool {
        self.flags & IORING_CQE_F_MORE != 0
    }

    /// The request it is for (user_data is the spec's request number).
    pub fn r(&self) -> model::Req {
        model::Req::try_from(self.user_data).expect("user_data is a request number")
    }

    /// The spec's value of this CQE.
    pub fn spec(&self) -> model::Cqe {
        model::Cqe {
            r: self.r(),
            notif: self.is_notif(),
            res: i64::from(self.res),
            more: self.more(),
        }
    }
}
