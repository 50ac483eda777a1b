//! The kernel side of a devmem TCP receiver, as the kernel selftest
//! ncdevmem drives it: a dma-buf from /dev/udmabuf, bound to RX queues over
//! the netdev generic netlink family, TCP payload received into it with
//! recvmsg(MSG_SOCK_DEVMEM) and its tokens given back with
//! SO_DEVMEM_DONTNEED; netdevsim devices as the wire. Only the encoding and
//! decoding can run without a devmem-capable kernel, so it sits in pure
//! functions with tests on byte buffers; the calls that need the kernel
//! fail with errors naming what is missing.

mod error;
pub mod doc;
pub mod genl;
pub mod net;
pub mod netlink;
pub mod nsim;
pub mod oracle;
pub mod recv;
pub mod run;
pub mod udmabuf;

pub use error::Error;
pub use genl::{bind_rx, page_pools, BindError, Binding, Netdev, PagePool};
pub use netlink::Refusal;
pub use nsim::Nsim;
pub use recv::{dontneed, recv_devmem, DmabufFrag, Received};
pub use udmabuf::Udmabuf;
