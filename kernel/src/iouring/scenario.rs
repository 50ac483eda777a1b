//! A live io_uring scenario: a ring, one socket pair, and steps: batches
//! of requests each submitted by one io_uring_enter(), the peer's reset,
//! the buffer table's unregistration.

use serde::{Deserialize, Serialize};

/// The socket pair the requests send on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Transport {
    /// UDP to 127.0.0.1 in the harness's namespace.
    UdpLo,
    /// TCP over 127.0.0.1 in the harness's namespace.
    TcpLo,
    /// UDP over a veth pair into a second namespace of the harness's.
    UdpVeth,
    /// TCP over that veth pair.
    TcpVeth,
}

impl Transport {
    pub const ALL: [Transport; 4] = [Transport::UdpLo, Transport::TcpLo, Transport::UdpVeth, Transport::TcpVeth];

    pub fn tcp(self) -> bool {
        matches!(self, Transport::TcpLo | Transport::TcpVeth)
    }

    pub fn veth(self) -> bool {
        matches!(self, Transport::UdpVeth | Transport::TcpVeth)
    }
}

/// What a request is made to meet (the sends' failure classes; the peer's
/// reset and the unregistered table are steps of the scenario).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Fault {
    /// A buffer the socket takes whole.
    None,
    /// A buffer address nothing is mapped at.
    Unmapped,
    /// A zc_flags bit the kernel does not know.
    BadFlags,
    /// The request names a pipe, not a socket.
    NotSock,
    /// IOSQE_CQE_SKIP_SUCCESS, which SEND_ZC refuses.
    CqeSkip,
    /// A UDP datagram longer than 65507 bytes.
    TooLong,
    /// io_alloc_notif() fails (fault injection).
    Nomem,
}

/// One SQE.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// IORING_OP_SEND_ZC; else IORING_OP_SEND.
    pub zc: bool,
    /// Payload bytes.
    pub len: u32,
    pub fault: Fault,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// SQEs written, then one io_uring_enter() submitting them all, then
    /// every CQE reaped.
    Batch(Vec<Request>),
    /// The peer closes with SO_LINGER 0: the connection is reset (TCP).
    PeerReset,
    /// IORING_UNREGISTER_BUFFERS (fixed-buffer scenarios).
    Unregister,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub transport: Transport,
    /// The zero-copy sends send from registered buffers, each its own.
    pub fixed: bool,
    /// IORING_SEND_ZC_REPORT_USAGE on every zero-copy send.
    pub report_usage: bool,
    /// SQ and CQ entries asked for (the kernel rounds them to powers of
    /// two; the CQ is never smaller than the SQ).
    pub sq: u32,
    pub cq: u32,
    pub steps: Vec<Step>,
}

impl Scenario {
    /// Every request, in submission order.
    pub fn requests(&self) -> impl Iterator<Item = &Request> {
        self.steps.iter().flat_map(|s| match s {
            Step::Batch(b) => b.as_slice(),
            _ => &[],
        })
    }

    /// The zero-copy sends: the model's requests 1 .. NReqs.
    pub fn zc_count(&self) -> usize {
        self.requests().filter(|r| r.zc).count()
    }

    /// The largest batch.
    pub fn max_batch(&self) -> usize {
        self.steps.iter().map(|s| if let Step::Batch(b) = s { b.len() } else { 0 }).max().unwrap_or(0)
    }

    /// Whether a request asks for fault injection.
    pub fn needs_nomem(&self) -> bool {
        self.requests().any(|r| r.fault == Fault::Nomem)
    }
}
