//! sk->sk_user_frags: the socket's xarray of the net_iovs the application
//! holds tokens on (xarray mode). An id is reserved with XA_ZERO_ENTRY by
//! __xa_alloc() (lowest free id first) before the token is written to the
//! application, and filled in by __xa_cmpxchg() once it has been; the
//! caller holds xa_lock_bh (the socket's `frags` lock) around each call.
//!
//! The kernel's ids start at 1 (XA_FLAGS_ALLOC1); the spec's and these
//! start at 0: the same ids, shifted by one.

use std::collections::BTreeMap;

use ringlab_model::devmem::Tok;

/// An entry of the xarray.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// XA_ZERO_ENTRY: reserved by tcp_xa_pool_refill(), reads as empty.
    Reserved,
    /// The net_iov (its index in the binding) the token names.
    Niov(usize),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserFrags {
    map: BTreeMap<Tok, Slot>,
}

impl UserFrags {
    /// __xa_alloc(xa, &id, XA_ZERO_ENTRY, ...): the lowest free id.
    pub fn alloc(&mut self) -> Tok {
        let id = self
            .map
            .keys()
            .zip(0..)
            .find(|(&k, i)| k != *i)
            .map_or(self.map.len() as Tok, |(_, i)| i);
        self.map.insert(id, Slot::Reserved);
        id
    }

    /// __xa_cmpxchg(xa, id, XA_ZERO_ENTRY, niov): fills a reserved id;
    /// false (and nothing stored) if the id is no longer reserved.
    pub fn commit(&mut self, id: Tok, niov: usize) -> bool {
        match self.map.get_mut(&id) {
            Some(s @ Slot::Reserved) => {
                *s = Slot::Niov(niov);
                true
            }
            _ => false,
        }
    }

    /// __xa_erase(xa, id): removes the entry, reserved or not; returns the
    /// net_iov if it held one (a reserved id reads as NULL).
    pub fn erase(&mut self, id: Tok) -> Option<usize> {
        match self.map.remove(&id)? {
            Slot::Niov(n) => Some(n),
            Slot::Reserved => None,
        }
    }

    /// tcp_release_user_frags() then xa_destroy(): every net_iov held, and
    /// an empty xarray.
    pub fn drain(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.map)
            .into_values()
            .filter_map(|s| match s {
                Slot::Niov(n) => Some(n),
                Slot::Reserved => None,
            })
            .collect()
    }

    /// Every entry, by id.
    pub fn entries(&self) -> impl Iterator<Item = (Tok, Slot)> + '_ {
        self.map.iter().map(|(&k, &v)| (k, v))
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_lowest_free() {
        let mut x = UserFrags::default();
        assert_eq!([x.alloc(), x.alloc(), x.alloc()], [0, 1, 2]);
        assert!(x.commit(1, 7));
        assert_eq!(x.erase(1), Some(7));
        assert_eq!(x.erase(0), None, "a reserved id reads as empty");
        assert_eq!(x.alloc(), 0);
        assert_eq!(x.alloc(), 1);
        assert_eq!(x.alloc(), 3);
    }

    #[test]
    fn a_commit_needs_the_reservation() {
        let mut x = UserFrags::default();
        let id = x.alloc();
        assert_eq!(x.erase(id), None);
        assert!(!x.commit(id, 3), "the reservation was erased");
        assert!(x.is_empty());
        let id = x.alloc();
        assert!(x.commit(id, 3));
        assert_eq!(x.drain(), vec![3]);
        assert!(x.is_empty());
    }
}
