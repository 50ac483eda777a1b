//! An skb of the copy path: which socket built it and the umem addresses
//! whose completions its destructor owes (one for a single-buffer packet;
//! a multi-buffer packet's skb carries one per fragment).

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skb {
    pub sock: usize,
    pub addrs: Vec<u64>,
}
