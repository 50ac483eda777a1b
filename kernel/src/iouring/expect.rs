//! One kernel CQE against the model's: the model says which request, a
//! request CQE or a notification, F_MORE, and success or failure; the
//! failure class says the value (bytes sent, or which errno: the model's
//! errno is the place of the failure, see class.rs). The projection drops
//! sizes (a whole send is one unit) and IORING_NOTIF_USAGE_ZC_COPIED
//! (the model does not say whether pages were copied).

use ringlab_model::iouring_zc::Cqe;

use super::class::Class;
use super::obs::CqeObs;
use super::sys::{CQE_F_MORE, CQE_F_NOTIF, NOTIF_USAGE_ZC_COPIED};

/// Why `k`, the kernel's CQE for model request `m.r` (user_data `ud`,
/// class `c`, `len` bytes), is not the model's `m`; None if it is.
pub fn zc_mismatch(m: &Cqe, ud: u64, c: Class, len: u32, report_usage: bool, k: &CqeObs) -> Option<String> {
    if k.user_data != ud {
        return Some(format!("the model posts a CQE of user_data {ud} here, the kernel one of {}", k.user_data));
    }
    if k.notif() != m.notif {
        return Some(format!("the model posts {} here, the kernel {}", kind(m.notif), kind(k.notif())));
    }
    if k.more() != m.more {
        return Some(format!("F_MORE: the model {}, the kernel {}", m.more, k.more()));
    }
    let unknown = k.flags & !(CQE_F_MORE | CQE_F_NOTIF);
    if unknown != 0 {
        return Some(format!("the kernel's CQE has flags {:#x} besides F_MORE and F_NOTIF", unknown));
    }
    if m.notif {
        let usage = if report_usage { k.res & !NOTIF_USAGE_ZC_COPIED } else { k.res };
        return (usage != 0).then(|| format!("the notification's res is {:#x}, the model's 0 (usage bit aside)", k.res));
    }
    if (m.res < 0) != (k.res < 0) {
        return Some(format!("the model's request {} ({}), the kernel's res {}", if m.res < 0 { "fails" } else { "succeeds" }, m.res, k.res));
    }
    let want = c.res(len);
    (k.res != want).then(|| format!("class {c:?} of {len} bytes gives res {want}, the kernel's is {}", k.res))
}

/// Why `k` is not the CQE of a plain IORING_OP_SEND of class `c`: the
/// spec has no plain send; it completes once, without F_MORE, with the
/// class's res, and has no notification.
pub fn plain_mismatch(c: Class, len: u32, k: &CqeObs) -> Option<String> {
    if k.flags != 0 {
        return Some(format!("a plain send's CQE has flags {:#x} (no F_MORE, no notification)", k.flags));
    }
    let want = c.res(len);
    (k.res != want).then(|| format!("a plain send of class {c:?}, {len} bytes, gives res {want}; the kernel's is {}", k.res))
}

fn kind(notif: bool) -> &'static str {
    if notif {
        "a notification"
    } else {
        "a request CQE"
    }
}
