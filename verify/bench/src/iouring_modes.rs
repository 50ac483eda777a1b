//! The eight ways of sending the seed compared, named as its table names
//! them, and what each one is here. Each measurement gets a fresh connected
//! socket (and ring), so no mode inherits another's state.

use std::time::Duration;

use super::iouring_net::connected;
use super::iouring_pool::Run;
use super::iouring_ring::{self, RingMode};
use super::iouring_send;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// send(2) copying.
    Send,
    /// send(2) with MSG_ZEROCOPY.
    MsgZerocopy,
    Ring(RingMode),
}

const fn ring(zc: bool, n: usize, flush: bool) -> Mode {
    Mode::Ring(RingMode { zc, n, flush })
}

/// In the seed's order.
pub const MODES: [Mode; 8] = [
    Mode::Send,
    Mode::MsgZerocopy,
    ring(false, 1, false),
    ring(false, 8, false),
    ring(true, 1, true),
    ring(true, 1, false),
    ring(true, 8, true),
    ring(true, 8, false),
];

/// What every row is normalised to, as the seed's table was.
pub const BASE: Mode = Mode::MsgZerocopy;

impl Mode {
    /// The seed's name for it.
    pub fn name(self) -> String {
        match self {
            Mode::Send => "msg_zerocopy (non-zc)".into(),
            Mode::MsgZerocopy => "msg_zerocopy (zc)".into(),
            Mode::Ring(m) => {
                let tail = match (m.zc, m.flush) {
                    (false, _) => " -z0",
                    (true, true) => " -f",
                    (true, false) => "",
                };
                format!("io_uring -n{}{tail}", m.n)
            }
        }
    }

    /// What it does here.
    pub fn what(self) -> String {
        match self {
            Mode::Send => "send(2) loop, one buffer (copied by the kernel)".into(),
            Mode::MsgZerocopy => {
                "send(2, MSG_ZEROCOPY) on SO_ZEROCOPY, 64 buffers each reused after its error-queue completion".into()
            }
            Mode::Ring(m) if !m.zc => format!("IORING_OP_SEND, {} per io_uring_enter", m.n),
            Mode::Ring(m) if m.flush => format!(
                "IORING_OP_SEND_ZC, {} per io_uring_enter, their notifications waited for before the next batch",
                m.n
            ),
            Mode::Ring(m) => format!("IORING_OP_SEND_ZC, {} per io_uring_enter, 64 buffers in flight", m.n),
        }
    }

    /// Whether it sends zero-copy (and so has completions to count).
    pub fn zc(self) -> bool {
        match self {
            Mode::Send => false,
            Mode::MsgZerocopy => true,
            Mode::Ring(m) => m.zc,
        }
    }

    /// One timed run of `payload`-byte datagrams, on the calling thread's
    /// namespace (the path iouring_net::setup made).
    pub fn measure(self, payload: usize, run: Duration) -> Result<Run, String> {
        let s = connected()?;
        let r = match self {
            Mode::Send => iouring_send::plain(&s, payload, run),
            Mode::MsgZerocopy => iouring_send::msg_zerocopy(&s, payload, run),
            Mode::Ring(m) => iouring_ring::run(&s, payload, m, run),
        };
        r.map_err(|e| format!("{} ({} bytes): {e}", self.name(), payload))
    }
}
