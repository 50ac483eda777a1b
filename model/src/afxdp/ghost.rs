//! Ghost identities: each descriptor the application submits is a
//! submission of its own, and its identity travels with it through the TX
//! ring, `xs->skb` and the completion ring. Ghost state only: no
//! observation reads it; the chain's projection (project.rs) does.

/// A submission identity: the k-th descriptor the application submitted
/// (counted over both sockets, from 0).
pub type Id = u32;

/// A TX ring slot: the descriptor as the application wrote it, and the
/// submission it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxSlot {
    pub addr: u64,
    pub len: u32,
    pub options: u32,
    pub id: Id,
}

/// How a completion came to be: the destructor (or drop) of a packet,
/// its `first` descriptor or a later one, or a lone completion
/// (xsk_cq_submit_addr_single_locked) of a descriptor that never became
/// an skb. The address a profile writes depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Packet { first: bool },
    Lone,
}

/// A completion ring slot: the address written, and (ghost) which
/// submission it completes and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compl {
    pub addr: u64,
    pub id: Id,
    pub via: Via,
}

impl TxSlot {
    /// The completion of this descriptor as the `i`-th of a packet, its
    /// address as the oracle writes it.
    pub fn compl(&self, addr: u64, i: usize) -> Compl {
        Compl { addr, id: self.id, via: Via::Packet { first: i == 0 } }
    }
}
