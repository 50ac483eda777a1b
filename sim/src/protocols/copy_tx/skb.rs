//! An skb of the copy path: which socket built it and the umem addresses
//! whose completions its destructor owes (one for a single-buffer packet;
//! a multi-buffer packet's skb carries one per descriptor).

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skb {
    pub sock: usize,
    pub addrs: Vec<u64>,
    /// Its last descriptor had XDP_PKT_CONTD: the packet is not whole
    /// (only mutant-mb-send-partial hands such an skb to the driver).
    pub contd: bool,
}

impl Skb {
    /// A new skb of socket `sock` for the descriptor at `addr`.
    pub fn of(sock: usize, addr: u64) -> Skb {
        Skb {
            sock,
            addrs: vec![addr],
            contd: false,
        }
    }
}
