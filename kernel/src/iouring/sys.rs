//! The io_uring ABI values the io-uring crate keeps private, and whether
//! this process may use io_uring at all.

/// IORING_CQE_F_MORE: a notification follows this CQE.
pub const CQE_F_MORE: u32 = 1 << 1;
/// IORING_CQE_F_NOTIF: the CQE is a zero-copy notification.
pub const CQE_F_NOTIF: u32 = 1 << 3;
/// IORING_SEND_ZC_REPORT_USAGE (sqe->ioprio): the notification's res says
/// whether the pages were copied.
pub const SEND_ZC_REPORT_USAGE: u16 = 1 << 3;
/// IORING_NOTIF_USAGE_ZC_COPIED: in a notification's res, the data was
/// copied after all (io_tx_ubuf_complete(), zc_copied).
pub const NOTIF_USAGE_ZC_COPIED: i32 = 1 << 31;
/// A zc_flags bit outside IO_ZC_FLAGS_VALID (io_send_zc_prep()).
pub const ZC_FLAG_UNKNOWN: u16 = 1 << 7;

const DISABLED: &str = "/proc/sys/kernel/io_uring_disabled";

/// Why this process cannot use io_uring here, if it cannot:
/// kernel.io_uring_disabled, or io_uring_setup(2) refused.
pub fn skip_reason() -> Option<String> {
    if let Ok(v) = std::fs::read_to_string(DISABLED) {
        match v.trim() {
            "0" => {}
            "1" if unsafe { libc::geteuid() } == 0 => {}
            other => return Some(format!("io_uring is disabled ({DISABLED} = {other})")),
        }
    }
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) for the namespaces and veth of the io_uring diff".into());
    }
    if let Err(e) = io_uring::IoUring::new(2) {
        return Some(format!("io_uring_setup(2) is not permitted here: {e}"));
    }
    None
}
